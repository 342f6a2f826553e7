// Freezing and the turn-skip rule (docs/RULES.md "Mitsugumi shogi"). A piece next to an enemy
// freezer (the heavenly tetrarch, Face::freezes) cannot move at all and attacks nothing,
// unless it is a freezer itself. A turn skip is illegal right after the opponent skipped
// (Variant::noSkipAfterSkip); a pass that promotes is not a skip.
#include "game/neighbours.h"
#include "game/position.h"

namespace poppy::game {

bool Position::isFrozen(Square s) const {
  const Variant& v = *variant_;
  const Piece p = board_[s];
  if (!v.freezerFaces || !p || ((v.freezerFaces >> faceOf(p)) & 1)) return false;
  for (int d = 0; d < 8; ++d) {
    const Square n = neighbourOf(v, s, d);
    if (n < 0) continue;
    const Piece q = board_[n];
    if (q && colorOf(q) != colorOf(p) && ((v.freezerFaces >> faceOf(q)) & 1)) return true;
  }
  return false;
}

bool Position::lastMoveSkipped() const {
  const State& st = states_.back();
  const Move m = st.move;
  // A pass comes home through an empty square: nothing was taken there.
  return !m.isNone() && m.isTwoLeg() && m.to == m.from && !st.capturedMid && !m.isFlip();
}

}  // namespace poppy::game
