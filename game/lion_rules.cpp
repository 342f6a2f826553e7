// Chu shogi's lion trading rules (Variant::lionFaces), as lishogi's shogiops implements them,
// the reference docs/RULES.md names for chu shogi:
// - A lion may take an enemy lion two squares away only when no enemy piece guards it, unless
//   the lion's first step took a piece that is not cheap (a pawn or go-between in chu). A guard
//   is found with the lion's start and middle squares empty; a piece taken on the middle square
//   still counts as a guard, as in shogiops.
// - Counter-strike: after a non-lion takes a lion, the other side's non-lions may take a lion
//   on the next move only on that same square (Position::lionCaptureSquare()).
// An adjacent lion may always be taken by a lion.
#include <cstdlib>

#include "game/position.h"

namespace poppy::game {

bool Position::lionRulesAllow(int face, Square from, int mid, Square to) const {
  const Variant& v = *variant_;
  const Color them = opponent(side_);
  auto enemyLion = [&](Square s) {
    const Piece p = board_[s];
    return p && colorOf(p) == them && ((v.lionFaces >> faceOf(p)) & 1);
  };

  if ((v.lionFaces >> face) & 1) {
    const int distance = std::max(std::abs(v.colOf(from) - v.colOf(to)), std::abs(v.rankOf(from) - v.rankOf(to)));
    if (to == from || distance < 2 || !enemyLion(to)) return true;
    const Piece taken = mid >= 0 ? board_[mid] : kEmpty;
    if (taken && !((v.lionCheapFaces >> faceOf(taken)) & 1)) return true;
    Piece* b = const_cast<Piece*>(board_);
    const Piece mover = b[from];
    b[from] = kEmpty;
    if (taken) b[mid] = kEmpty;
    bool guarded = attackedBy(to, them);
    if (!guarded && taken) guarded = faceAttacks(faceOf(taken), them, mid, to);
    if (taken) b[mid] = taken;
    b[from] = mover;
    return !guarded;
  }

  const Square allowed = lionCaptureSquare();
  if (allowed < 0) return true;
  if (mid >= 0 && mid != allowed && enemyLion(mid)) return false;
  return to == from || to == allowed || !enemyLion(to);
}

}  // namespace poppy::game
