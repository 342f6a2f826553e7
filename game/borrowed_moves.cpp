// An-nan shogi (docs/RULES.md "An-nan shogi"; Variant::movesAsPieceBehind): a piece moves as
// the friendly piece directly behind it (one square towards its owner's side), or as itself
// when that square is empty, off the board or holds an enemy piece. What it borrows is the
// movement only: a pawn moving as a rook is still a pawn, promotes to a tokin and is dropped
// as a pawn. Attacks follow the same movement, so checks, mates and the pawn-drop-mate rule
// see them; the loader allows the rule only where every move is in the fast tables (steps,
// leaps, slides) and for two players.
#include "game/position.h"

namespace poppy::game {

int Position::borrowedFace(Square s, Color c, int ownFace) const {
  const Variant& v = *variant_;
  // Sente moves up the board (towards rank 0), so its "behind" is the next rank; gote's the rank before.
  const int behindRank = v.rankOf(s) + (c == 0 ? 1 : -1);
  if (behindRank < 0 || behindRank >= v.ranks) return ownFace;
  const Piece q = board_[v.square(v.colOf(s), behindRank)];
  return q && colorOf(q) == c ? faceOf(q) : ownFace;
}

bool Position::borrowedAttackedBy(Square s, Color by) const {
  const Variant& v = *variant_;
  for (Square from = 0; from < v.numSquares(); ++from) {
    const Piece p = board_[from];
    if (p && colorOf(p) == by && from != s && plainReaches(borrowedFace(from, by, faceOf(p)), by, from, s)) return true;
  }
  return false;
}

}  // namespace poppy::game
