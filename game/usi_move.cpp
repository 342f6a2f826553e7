// USI move text both ways. A flip is written "+" when the piece turns to its promoted face and
// "-" when it turns back (micro and kyoto shogi). Where the flip is forced, the parser also
// takes the move without its suffix. A two-leg move is written with its middle square, as
// lishogi writes chu shogi's lion moves: "7g6f5e"; igui and a pass come back, "7g6f7g". A burn
// (Move::kBurn) names each burned square after an "x": "7g6fx6ex7e"; a double igui goes from
// the piece's square to itself, "7g7gx7fx8f".
#include <cctype>
#include <cstdlib>

#include "game/neighbours.h"
#include "game/position.h"
#include "game/usi_square.h"
#include "game/special_moves.h"

namespace poppy::game {

std::string Position::squareName(Square s) const {
  return std::to_string(variant_->fileNumber(s)) + char('a' + variant_->rankOf(s));
}

std::string Position::moveToUsi(Move m) const {
  if (m.isNone()) return "none";
  const Variant& v = *variant_;
  if (m.isDrop()) return v.faces[m.dropFace()].token() + "*" + squareName(m.to);
  std::string text = squareName(m.from) + (m.isTwoLeg() ? squareName(m.mid()) : "") + squareName(m.to);
  if (m.isBurn())
    for (int d = 0; d < 8; ++d)
      if ((m.burnMask() >> d) & 1) text += "x" + squareName(neighbourOf(v, m.to, d));
  if (m.isFlip()) {
    const Piece p = board_[m.from];
    text += (p && v.faces[faceOf(p)].promoted) ? '-' : '+';
  }
  return text;
}

Square readUsiSquare(const Variant& v, const std::string& text, size_t& i) {
  size_t start = i;
  int file = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 3)
    file = file * 10 + (text[i++] - '0');
  if (i == start || i >= text.size()) return -1;
  const int rank = text[i] - 'a';
  ++i;
  if (file < 1 || file > v.files || rank < 0 || rank >= v.ranks) return -1;
  return v.square(v.files - file, rank);
}

Move Position::parseUsi(const std::string& text) const {
  const Variant& v = *variant_;
  auto fail = [&](const std::string& why) -> Move {
    throw MoveError("move \"" + text + "\" in position " + sfen() + ": " + why);
  };
  if (text.empty()) return fail("empty move text");
  MoveList legal;
  generateLegal(legal);

  const size_t star = text.find('*');
  if (star != std::string::npos) {
    size_t i = 0;
    const bool promoted = text[0] == '+';
    if (promoted) ++i;
    const bool prime = star == i + 2 && text[i + 1] == '\'';  // Z'*5e
    if (star != i + 1 && !prime) return fail("a drop is written like P*5e, +G*3c or Z'*5e");
    const char letter = char(std::toupper(static_cast<unsigned char>(text[i])));
    const int face = v.faceIndex(letter, promoted, prime);
    if (face < 0) return fail(std::string("no piece '") + text.substr(0, star) + "' in " + v.name);
    size_t j = star + 1;
    const Square to = readUsiSquare(v, text, j);
    if (to < 0 || j != text.size()) return fail("bad target square (files 1-" + std::to_string(v.files) + ", ranks a-" + char('a' + v.ranks - 1) + ")");
    const Move m = Move::drop(face, to);
    for (const Move& x : legal)
      if (x == m) return m;
    if (!v.dropsEnabled) return fail(v.name + " has no drops");
    const int kind = v.faces[face].handKind;
    if (kind < 0 || hand_[side_][kind] == 0)
      return fail("the side to move has no " + v.faces[face].letterToken() + " in hand");
    if (board_[to]) return fail(squareName(to) + " is occupied");
    return fail("the drop is not legal here");
  }

  size_t i = 0;
  const Square from = readUsiSquare(v, text, i);
  if (from < 0) return fail("expected a move like 7g7f, 7g7f+ or P*5e on a " + std::to_string(v.files) + "x" + std::to_string(v.ranks) + " board");
  Square to = readUsiSquare(v, text, i);
  if (to < 0) return fail("bad target square (files 1-" + std::to_string(v.files) + ", ranks a-" + char('a' + v.ranks - 1) + ")");
  // A third square makes a two-leg move: the second was the middle one.
  Square mid = -1;
  if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    mid = to;
    to = readUsiSquare(v, text, i);
    if (to < 0) return fail("bad target square after the middle square (files 1-" + std::to_string(v.files) + ", ranks a-" + char('a' + v.ranks - 1) + ")");
    auto next = [&](Square a, Square b) {
      return a != b && std::abs(v.colOf(a) - v.colOf(b)) <= 1 && std::abs(v.rankOf(a) - v.rankOf(b)) <= 1;
    };
    if (!next(from, mid) || !next(mid, to))
      return fail("the middle square " + squareName(mid) + " must be next to both " + squareName(from) + " and " + squareName(to));
  }
  // Burned squares: "x" and a square next to the destination, at most eight.
  int burnMask = 0;
  while (i < text.size() && text[i] == 'x') {
    ++i;
    const Square b = readUsiSquare(v, text, i);
    if (b < 0) return fail("bad burned square after 'x' (files 1-" + std::to_string(v.files) + ", ranks a-" + char('a' + v.ranks - 1) + ")");
    const int d = neighbourDirection(v, to, b);
    if (d < 0) return fail("the burned square " + squareName(b) + " is not next to " + squareName(to));
    if ((burnMask >> d) & 1) return fail("the burned square " + squareName(b) + " is named twice");
    burnMask |= 1 << d;
  }
  if (burnMask && mid >= 0) return fail("a move names either a middle square or burned squares, not both");
  // One square taken without moving is written as an igui ("7g7f7g"); take "7g7gx7f" for it too.
  if (burnMask && to == from && (burnMask & (burnMask - 1)) == 0) {
    mid = neighbourOf(v, from, __builtin_ctz(unsigned(burnMask)));
    burnMask = 0;
  }
  char suffix = 0;
  if (i < text.size()) suffix = text[i++];
  if (i != text.size() || (suffix && suffix != '+' && suffix != '-'))
    return fail("unexpected text after the squares (only + or - may follow)");

  const Piece p = board_[from];
  if (!p || controller_[colorOf(p)] != side_) {
    if (p && faceOf(p) == v.turnedKingFace) return fail(squareName(from) + " holds a turned king, which never moves");
    return fail("no piece of the side to move on " + squareName(from));
  }
  const bool promotedNow = v.faces[faceOf(p)].promoted;
  const Move* plain = nullptr;
  const Move* flip = nullptr;
  auto collect = [&](bool twoLeg) {
    for (const Move& x : legal) {
      if (x.isDrop() || x.from != from || x.to != to || x.isTwoLeg() != twoLeg) continue;
      if (twoLeg && x.mid() != mid) continue;
      if (x.isBurn() != (burnMask != 0) || (burnMask && x.burnMask() != burnMask)) continue;
      (x.isFlip() ? flip : plain) = &x;
    }
  };
  // A move that comes home leaves a position fixed by its middle square (a pass, or igui of the
  // piece there), so the legal list holds one such move per middle square (or one pass): if
  // this piece may make the move the text names, the listed one stands for it.
  if (mid >= 0 && to == from && (v.specialFaces() >> faceOf(p) & 1)) {
    SpecialTarget targets[kMaxSpecialTargets];
    const int n = specialTargets(v, board_, faceOf(p), side_, from, targets);
    bool can = false;
    for (int k = 0; k < n; ++k) can = can || (targets[k].to == from && targets[k].mid == mid);
    can = can && (!v.lionFaces || lionRulesAllow(faceOf(p), from, mid, to));
    if (can) {
      // Without a suffix, the listed plain one (whichever piece's); with one, this piece's
      // flip (a pass or igui that promotes is a position of this piece's own).
      const Move* plainHome = nullptr;
      const Move* flipHome = nullptr;
      for (const Move& x : legal)
        if (x.isTwoLeg() && x.to == x.from && homeMoveKey(x.mid()) == homeMoveKey(mid)) {
          if (!x.isFlip()) plainHome = &x;
          else if (x.from == from) flipHome = &x;
        }
      if (!suffix && (plainHome || flipHome)) return plainHome ? *plainHome : *flipHome;  // a flip may be forced
      if (suffix && flipHome) {
        if ((suffix == '+') == promotedNow)
          return fail(std::string("this move turns the piece ") + (promotedNow ? "back; write '-'" : "over; write '+'"));
        return *flipHome;
      }
      if (suffix && plainHome)
        return fail("the piece does not flip on this move; write it without '" + std::string(1, suffix) + "'");
    }
  }
  collect(mid >= 0);
  // Through an empty middle square to another square is an ordinary move (types.h).
  if (!plain && !flip && mid >= 0 && !board_[mid] && to != from) collect(false);
  if (!plain && !flip && burnMask && to == from && (v.specialFaces() >> faceOf(p) & 1)) {
    // A double igui that another piece's double igui on the same two squares stands for.
    SpecialTarget targets[kMaxSpecialTargets];
    const int n = specialTargets(v, board_, faceOf(p), side_, from, targets);
    bool can = false;
    for (int k = 0; k < n; ++k) can = can || (targets[k].to == from && targets[k].burn == burnMask);
    for (const Move& x : legal)
      if (x.isBurn() && x.to == x.from && to == from && x.from != from) {
        Square a[2], b[2];
        int ka = 0, kb = 0;
        for (int d = 0; d < 8; ++d) {
          if ((x.burnMask() >> d) & 1) a[ka++] = neighbourOf(v, x.from, d);
          if ((burnMask >> d) & 1) b[kb++] = neighbourOf(v, from, d);
        }
        if (can && ka == 2 && kb == 2 && ((a[0] == b[0] && a[1] == b[1]) || (a[0] == b[1] && a[1] == b[0])))
          return x;
      }
  }
  if (!plain && !flip) {
    // Mitsugumi's rules that forbid a move the piece's pattern allows say so by name.
    if (isFrozen(from))
      return fail("the piece on " + squareName(from) + " is frozen: an enemy piece that freezes (a heavenly tetrarch) stands next to it");
    if (to == from && mid >= 0 && !board_[mid] && v.noSkipAfterSkip && lastMoveSkipped())
      return fail("a turn skip may not answer the opponent's turn skip");
    for (int d = 0; d < 8 && to != from; ++d) {
      const Square b = (burnMask >> d) & 1 ? neighbourOf(v, to, d) : -1;
      if (b >= 0 && board_[b] && (v.burnImmuneFaces >> faceOf(board_[b]) & 1))
        return fail("burning never takes the " + v.faces[size_t(faceOf(board_[b]))].name + " on " + squareName(b));
    }
    return fail("the piece on " + squareName(from) + " cannot legally go to " + squareName(to) +
                (mid >= 0 ? " through " + squareName(mid) : std::string()) +
                (burnMask ? std::string(" burning those squares") : std::string()));
  }
  if (suffix == 0) {
    if (plain) return *plain;
    return *flip;  // the flip is forced: accept the move without its suffix
  }
  if (!flip) return fail("the piece does not flip on this move; write it without '" + std::string(1, suffix) + "'");
  if ((suffix == '+') == promotedNow)
    return fail(std::string("this move turns the piece ") + (promotedNow ? "back; write '-'" : "over; write '+'"));
  return *flip;
}

}  // namespace poppy::game
