// Royal capture (Variant::royalCapture, chu shogi): a king may move into or stay in check, so
// "check" only describes the position, and the game ends when a side has lost every royal
// piece. The bare-king rule and the draw between two bare kings follow lishogi (shogiops'
// chushogi), the reference docs/RULES.md names for chu shogi.
#include "game/position.h"

namespace poppy::game {
namespace {

// A piece that can never move again (a pawn or lance on its last rank) does not count.
bool counts(const Variant& v, Piece p, Square s) { return !v.isDeadSquare(faceOf(p), colorOf(p), s); }

bool adjacent(const Variant& v, Square a, Square b) {
  const int dc = v.colOf(a) - v.colOf(b), dr = v.rankOf(a) - v.rankOf(b);
  return a != b && dc >= -1 && dc <= 1 && dr >= -1 && dr <= 1;
}

}  // namespace

int Position::royalCount(Color c) const {
  const Variant& v = *variant_;
  int n = 0;
  for (Square s = 0; s < v.numSquares(); ++s)
    if (board_[s] && colorOf(board_[s]) == c && v.faces[faceOf(board_[s])].royal) ++n;
  return n;
}

bool Position::royalAttacked(Color c) const {
  const Variant& v = *variant_;
  for (Square s = 0; s < v.numSquares(); ++s)
    if (board_[s] && colorOf(board_[s]) == c && v.faces[faceOf(board_[s])].royal && attackedBy(s, opponent(c)))
      return true;
  return false;
}

bool Position::checkAfterMove() const {
  const Color mover = (side_ + variant_->numPlayers - 1) % variant_->numPlayers;
  if (variant_->royalCapture) return royalAttacked(side_);
  return kingSq_[side_] >= 0 && attackedBy(kingSq_[side_], mover);
}

Outcome Position::royalCaptureOutcome() const {
  const Variant& v = *variant_;
  const Color us = side_, them = opponent(us);
  // One pass over the board serves every rule below; attacks are looked at only when needed.
  struct Tally {
    int royals = 0;
    int counted = 0;  // pieces that can still move
    int strong = 0;   // counted and not weak (bare-king rule: chu's pawns and go-betweens)
    Square royal = -1;
  } side[kMaxPlayers];
  for (Square s = 0; s < v.numSquares(); ++s) {
    const Piece p = board_[s];
    if (!p) continue;
    Tally& t = side[colorOf(p)];
    if (v.faces[faceOf(p)].royal) {
      ++t.royals;
      t.royal = s;
    }
    if (counts(v, p, s)) {
      ++t.counted;
      t.strong += !((v.bareKingWeakFaces >> faceOf(p)) & 1);
    }
  }
  if (side[us].royals == 0) return Outcome{EndReason::kRoyalsCaptured, them};
  if (!hasLegalMove()) return Outcome{EndReason::kNoLegalMove, them};
  if (!v.bareKingRule) return Outcome{};

  // Has `bare` lost by the bare-king rule? Its royal stands alone (dead pieces aside) while the
  // other side keeps its single royal, out of check, and more than its weak pieces: at least two
  // others, or one that the bare royal cannot reach at once (the other royal counts as one).
  const auto bareKingLoses = [&](Color bare) {
    const Color other = opponent(bare);
    const Tally &b = side[bare], &o = side[other];
    if (b.counted != 1 || b.royals != 1 || o.strong < 2 || o.royals != 1 || royalAttacked(other)) return false;
    if (o.strong > 2) return true;
    for (Square s = 0; s < v.numSquares(); ++s) {
      const Piece p = board_[s];
      if (p && colorOf(p) == other && adjacent(v, s, b.royal) && counts(v, p, s) &&
          !((v.bareKingWeakFaces >> faceOf(p)) & 1))
        return false;
    }
    return true;
  };
  if (bareKingLoses(us)) return Outcome{EndReason::kBareKing, them};
  if (bareKingLoses(them)) return Outcome{EndReason::kBareKing, us};
  if (side[us].counted + side[them].counted == 2 && side[us].royals == 1 && side[them].royals == 1 &&
      !royalAttacked(us) && !royalAttacked(them))
    return Outcome{EndReason::kBareKings, -1};
  return Outcome{};
}

}  // namespace poppy::game
