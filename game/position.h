// A game position: board, hands, side to move and the history needed for repetition.
// makeMove/unmakeMove restore everything exactly, the hash included.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "game/types.h"
#include "game/variant.h"

namespace poppy::game {

// Thrown for malformed SFEN text; the message names the text and what is wrong.
class SfenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Thrown for an unparsable or illegal USI move; the message names the move and the position.
class MoveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class EndReason {
  kNone,
  kNoLegalMove,
  kRepetition,
  kPerpetualCheck,
  kPlyCap,
  kRoyalsCaptured,  // royal capture: the side to move has no royal piece left
  kBareKing,        // royal capture: a side is left with its royal piece alone
  kBareKings,       // royal capture: both sides have nothing but their royal piece (a draw)
  kStalemate,       // no legal move and not in check, where the variant draws it (yari shogi);
                    // four players: nobody can move (a draw)
  kSecondMate,      // four players: the winner has mated a second army (game/four_players.cpp)
  kChecks,          // the winner has given Variant::checksToWin checks (miburi shogi; game/check_count.cpp)
  kPerpetualAttack,  // a repetition in which one side attacked with every move (chu as lishogi;
                     // game/perpetual_attack.cpp); that side loses
};

struct Outcome {
  EndReason reason = EndReason::kNone;
  Color winner = -1;  // -1 for a draw or an ongoing game
  bool over() const { return reason != EndReason::kNone; }
  bool draw() const { return over() && winner < 0; }
};

// The hash key of "colour c has given n checks" (miburi shogi; game/check_count.cpp), 0 for n = 0.
uint64_t checkCountKey(Color c, int n);

class Position {
 public:
  // The variant's start position.
  explicit Position(VariantPtr variant);
  // Throws SfenError.
  static Position fromSfen(VariantPtr variant, const std::string& sfen);

  std::string sfen() const;
  const Variant& variant() const { return *variant_; }
  const VariantPtr& variantPtr() const { return variant_; }

  Piece at(Square s) const { return board_[s]; }
  int handCount(Color c, int kind) const { return hand_[c][kind]; }
  Color sideToMove() const { return side_; }
  // The next colour in turn order (two players: the other one).
  Color opponent(Color c) const { return (c + 1) % variant_->numPlayers; }
  // Four players (game/four_players.cpp): the player who moves army a's pieces (a itself until
  // a is mated); a player is out once its own army is another's.
  Color controllerOf(Color army) const { return controller_[army]; }
  bool isOut(Color player) const { return controller_[player] != player; }
  int armiesOf(Color player) const;
  // Is the king of `player` attacked by a piece that player does not control?
  bool playerInCheck(Color player) const;
  Square kingSquare(Color c) const { return kingSq_[c]; }
  int moveNumber() const { return moveNumber_ + gamePly(); }  // SFEN move number (plies, from 1)
  int gamePly() const { return int(states_.size()) - 1; }  // moves made since the SFEN
  uint64_t hash() const { return states_.back().hash; }
  // The side to move is in check (royal capture: one of its royal pieces is attacked).
  bool inCheck() const { return states_.back().inCheck; }
  // Chu shogi: the square where the last move's non-lion took a lion, or -1 (lion_rules.cpp).
  Square lionCaptureSquare() const { return states_.back().lionCapture; }
  // Royal pieces of colour c on the board, and whether any of them is attacked (royal_capture.cpp).
  int royalCount(Color c) const;
  bool royalAttacked(Color c) const;
  Move lastMove() const { return states_.back().move; }
  // Who made the last move (-1 at the SFEN's position).
  Color lastMover() const { return states_.size() > 1 ? states_.back().mover : -1; }

  // Legal moves: never leave the mover's king attacked, and obey the variant's drop rules.
  void generateLegal(MoveList& out) const;
  bool hasLegalMove() const;
  bool isLegal(Move m) const;

  // makeMove expects a legal move (from generateLegal or parseUsi).
  void makeMove(Move m);
  void unmakeMove();

  // Is square s attacked by any piece of colour `by`? Frozen pieces attack nothing.
  bool attackedBy(Square s, Color by) const;
  // Is the piece on s frozen (freezing.cpp: next to an enemy freezer, not one itself)?
  bool isFrozen(Square s) const;
  // Was the last move a turn skip (a pass that did not promote)? freezing.cpp, beside the
  // other rule of mitsugumi's it serves.
  bool lastMoveSkipped() const;

  // USI text: "7g7f", "7g7f+", "P*5e", "+G*3c"; "-" marks a flip back to the setup face.
  std::string moveToUsi(Move m) const;
  std::string squareName(Square s) const;
  // Parses and checks legality; throws MoveError naming the move and the position.
  Move parseUsi(const std::string& text) const;

  // Game end: no legal move (loss), repetition (draw or loss per the variant), ply cap.
  // plyCap counts moves since this position's SFEN was set; 0 disables it.
  Outcome outcome(int plyCap = 0) const;
  // How often the current position occurred before (0 the first time).
  int repetitionsSoFar() const;
  // Checks colour c has given so far (miburi shogi, Variant::checksToWin; game/check_count.cpp).
  int checksGiven(Color c) const { return states_.back().checks[c]; }
  // The game has ended with a side's last check (miburi): the position has no moves to play,
  // though generateLegal still lists its side's moves (as chu's after the last royal is taken).
  bool wonByChecks() const;
  // Yari shogi (repetition result `illegal`): would m bring back a position for the
  // repetitionCount-th time? Such a move is not legal (repetition_ban.cpp).
  bool repeatsTooOften(Move m) const;
  // The hash after a board move or drop without two legs or burns (repetition_ban.cpp).
  uint64_t hashAfter(Move m) const;
  // How often a position with hash h would have occurred, counting it once more (1: new).
  uint8_t occurrences(uint64_t h) const;

  // Recomputes the hash from scratch (tests compare it with the incremental one).
  uint64_t computeHash() const;

 private:
  struct State {
    Move move;           // the move that led here
    Piece captured = kEmpty;     // taken on `to`
    Piece capturedMid = kEmpty;  // taken on the middle square of a two-leg move
    Piece burned[2] = {kEmpty, kEmpty};  // taken next to `to` by a burn, in direction order
    Piece moved = kEmpty;  // the piece as it stood before the move
    uint64_t hash = 0;
    bool inCheck = false;  // side to move is in check here
    int16_t lionCapture = -1;  // lionCaptureSquare() here
    // Yari shogi's repetition ban (repetition_ban.cpp): the most times any position of the game
    // so far has occurred (1 until one comes back). Below the repetition count less one no move
    // can be banned, and move generation skips the check.
    uint8_t mostRepeats = 1;
    int8_t mover = -1;  // who made `move` (four players' turns jump; game/four_players.cpp)
    uint8_t checks[2] = {0, 0};  // checks each side has given so far (Variant::checksToWin)
  };
  // Four players: a mate made on the move to state `ply`, undone with it.
  struct Takeover {
    int ply;
    Color mated, mater;
    Square king;  // the mated king's square, where its turned face now stands
    Color controllersBefore[kMaxPlayers];
    uint8_t hand[kMaxHandKinds];  // the mated player's hand, now the mater's
  };
  struct Pin {
    Square square;
    int dcol, drank;  // direction from the king
    int maxDist;      // distance to the pinner
  };

  Position(VariantPtr variant, int /*empty*/) : variant_(std::move(variant)) { clear(); }
  void clear();
  bool faceAttacks(int face, Color c, Square from, Square target) const;
  bool plainReaches(int face, Color c, Square from, Square target) const;
  bool specialAttackedBy(Square s, Color by) const;
  // game/borrowed_moves.cpp (an-nan shogi): the face whose moves a piece of colour c with face
  // ownFace makes on s, and attackedBy under that rule.
  int borrowedFace(Square s, Color c, int ownFace) const;
  // game/king_in_hand.cpp (unashogi): has colour c's king not been dropped yet (so that side
  // may not capture or promote, and attacks nothing)? May the side to move drop its king on `to`?
  bool disarmed(Color c) const;
  bool kingDropIsSafe(Square to) const;
  bool borrowedAttackedBy(Square s, Color by) const;
  int findPins(Color us, Pin* pins) const;
  bool keepsKingSafe(Move m) const;
  bool dropGivesMateIllegally(Move m) const;
  // A two-leg move from a square back to it leaves a position fixed by the middle square: the
  // piece taken there, or nothing (a pass). Key kMaxSquares for every pass, else the square.
  int homeMoveKey(Square mid) const { return board_[mid] ? mid : kMaxSquares; }
  // A double igui (Move::kBurn with to == from) is fixed by the two squares it empties, in
  // keys beyond homeMoveKey's.
  int homePairKey(Square from, int burnMask) const;
  // lion_rules.cpp: may the piece of `face` on `from` make this move (mid -1 for a plain move)?
  bool lionRulesAllow(int face, Square from, int mid, Square to) const;
  // check_count.cpp: the move to the newest state gave check: count it for `mover`.
  void countCheck(Color mover);
  Outcome checkCountOutcome() const;
  // perpetual_attack.cpp: did the last move check, or leave the piece it moved attacking an
  // enemy piece? And that for each move of the stretch states_[first+1 .. last], into out.
  bool lastMoveAttacks() const;
  void attacksSince(int first, std::vector<bool>& out) const;
  // royal_capture.cpp.
  bool checkAfterMove() const;
  Outcome royalCaptureOutcome() const;
  template <bool kStopAtFirst, bool kFourPlayers>
  int generate(MoveList* out) const;
  // game/four_players.cpp. Two players: attacked by the opponent.
  bool attackedByEnemyOf(Square s, Color player) const {
    return variant_->numPlayers == 2 ? attackedBy(s, opponent(player)) : attackedByOtherArmies(s, player);
  }
  bool attackedByOtherArmies(Square s, Color player) const;
  void passTurn(Color mover);
  void mate(Color mated, Color mater);
  void undoTakeovers();
  Outcome fourPlayerOutcome(int plyCap) const;
  bool fourPlayerDropMates(Move m) const;
  // game/four_player_sfen.cpp.
  static Position fromFourPlayerSfen(VariantPtr variant, const std::string& sfen);
  std::string fourPlayerSfen() const;

  VariantPtr variant_;
  Piece board_[kMaxSquares];
  uint8_t hand_[kMaxPlayers][kMaxHandKinds];
  Square kingSq_[kMaxPlayers];
  Color controller_[kMaxPlayers] = {0, 1, 2, 3};
  std::vector<Takeover> takeovers_;
  Color side_ = 0;
  int moveNumber_ = 1;
  std::vector<State> states_;
};

}  // namespace poppy::game
