// Basic value types of the rules engine: squares, colours, pieces and moves.
#pragma once
#include <cstdint>
#include <stdexcept>

namespace poppy::game {

constexpr int kMaxFiles = 16;
constexpr int kMaxRanks = 16;
constexpr int kMaxSquares = kMaxFiles * kMaxRanks;
constexpr int kMaxPlayers = 4;   // yonin shogi; two-player variants use colours 0 and 1
constexpr int kMaxFaces = 63;    // piece faces (a promoted side counts as its own face)
constexpr int kMaxHandKinds = 32;
constexpr int kMaxHandCount = 63;
constexpr int kMaxChecksToWin = 9;  // Variant::checksToWin (miburi shogi: 3)
constexpr int kMaxMoveNumber = 100000000;  // SFEN move numbers above this are refused
// More than any legal move count of the supported variants; mitsugumi shogi with a full hand
// (26 kinds, each droppable on 100-odd empty squares) can pass 2,048.
constexpr int kMaxMoves = 8192;

// Squares are numbered in SFEN reading order: rank a (gote's back rank) first, and in each rank
// from the highest file number (sente's left) down to file 1.
using Square = int;
// Colour 0 is sente (moves first, "b" in SFEN, upper-case letters), 1 is gote.
using Color = int;

// A piece in one byte: 0 is an empty square, otherwise (colour << 6) | (face + 1).
using Piece = uint8_t;
constexpr Piece kEmpty = 0;
inline constexpr Piece makePiece(Color c, int face) { return Piece((c << 6) | (face + 1)); }
inline constexpr int faceOf(Piece p) { return (p & 63) - 1; }
inline constexpr Color colorOf(Piece p) { return p >> 6; }

// A move in four bytes. Board moves use from/to; drops use `to` and put the dropped face in aux.
// kFlip turns the piece over (promotion, or demotion where the variant flips back).
// kTwoLeg marks a two-leg (XBetza `a`) move that stops on aux on its way from `from` to `to`:
// the piece on aux, if any, is captured (a lion's double capture; igui when to == from), and an
// empty aux with to == from is a pass. A two-leg move through an empty aux to another square is
// written as a plain board move, so each resulting position has one encoding (passes through
// different empty squares stay distinct moves). Note: lishogi's shogiops lists a lion's two
// steps through an empty square (and the falcon's and eagle's) as moves of their own, so its
// chu perft counts are larger; a comparison with it must account for that.
// kBurn marks a move that also captures pieces next to `to` without moving there (mitsugumi's
// fire demon burning after its move; a double igui when to == from): aux is then a mask of
// those neighbours, bit d for the direction kNeighbourDc/Dr[d] of game/neighbours.h.
struct Move {
  uint8_t from = 0;
  uint8_t to = 0;
  uint8_t aux = 0;
  uint8_t flags = kNone;

  static constexpr uint8_t kDrop = 1;
  static constexpr uint8_t kFlip = 2;
  static constexpr uint8_t kTwoLeg = 4;
  static constexpr uint8_t kBurn = 8;
  static constexpr uint8_t kNone = 0x80;  // the "no move" value

  static constexpr Move none() { return Move{}; }
  static constexpr Move board(int from, int to, bool flip) {
    return Move{uint8_t(from), uint8_t(to), 0, uint8_t(flip ? kFlip : 0)};
  }
  static constexpr Move drop(int face, int to) { return Move{0, uint8_t(to), uint8_t(face), kDrop}; }
  static constexpr Move twoLeg(int from, int mid, int to, bool flip) {
    return Move{uint8_t(from), uint8_t(to), uint8_t(mid), uint8_t(kTwoLeg | (flip ? kFlip : 0))};
  }

  static constexpr Move burn(int from, int to, int neighbourMask, bool flip) {
    return Move{uint8_t(from), uint8_t(to), uint8_t(neighbourMask), uint8_t(kBurn | (flip ? kFlip : 0))};
  }

  bool isNone() const { return flags & kNone; }
  bool isDrop() const { return flags & kDrop; }
  bool isFlip() const { return flags & kFlip; }
  bool isTwoLeg() const { return flags & kTwoLeg; }
  int dropFace() const { return aux; }
  Square mid() const { return aux; }  // the intermediate square of a two-leg move
  bool isBurn() const { return flags & kBurn; }
  int burnMask() const { return aux; }  // the burned neighbours of `to` (kBurn)
  bool operator==(const Move& o) const {
    return from == o.from && to == o.to && aux == o.aux && flags == o.flags;
  }
  bool operator!=(const Move& o) const { return !(*this == o); }
};

struct MoveList {
  // The moves are written before they are read: the union keeps them uninitialised, where a
  // plain array would write all 32 KB of Move::none() each time a list is made.
  MoveList() {}
  union {
    Move moves[kMaxMoves];
  };
  int count = 0;
  void push(Move m) {
    if (count == kMaxMoves) throw std::length_error("more than kMaxMoves legal moves (game/types.h)");
    moves[count++] = m;
  }
  int size() const { return count; }
  const Move* begin() const { return moves; }
  const Move* end() const { return moves + count; }
  const Move& operator[](int i) const { return moves[i]; }
  void clear() { count = 0; }
};

}  // namespace poppy::game
