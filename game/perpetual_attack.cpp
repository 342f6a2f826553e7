// Perpetual attack (Variant::perpetualAttackLoses; chu shogi as lishogi plays it, docs/RULES.md
// "Chu shogi"): in the repetition that ends a game, a side that checked or attacked with every
// move it made since the position first stood there loses, as it would for perpetual check. A
// move attacks when the piece it moved attacks an enemy piece from where it stands: its moves,
// plain or special, could take it there (pins are not looked at, as lishogi's test does not
// read them either). The other side's moves are not asked to be quiet: if both sides attacked
// with every move, nobody loses by this rule and the repetition draws.
#include "game/position.h"

namespace poppy::game {

bool Position::lastMoveAttacks() const {
  if (states_.size() < 2) return false;
  if (inCheck()) return true;
  const Color mover = lastMover();
  const Square at = lastMove().to;
  const Piece p = board_[at];
  if (!p || colorOf(p) != mover) return false;  // cannot happen after a board move or a drop
  if (variant_->freezerFaces && isFrozen(at)) return false;
  for (Square s = 0; s < variant_->numSquares(); ++s)
    if (board_[s] && colorOf(board_[s]) != mover && faceAttacks(faceOf(p), mover, at, s)) return true;
  return false;
}

void Position::attacksSince(int first, std::vector<bool>& out) const {
  const int last = int(states_.size()) - 1;
  out.assign(size_t(last + 1), false);
  // Walked back on a copy: each state's test needs the board as it stood then.
  Position back = *this;
  for (int j = last; j > first; --j) {
    out[size_t(j)] = back.lastMoveAttacks();
    back.unmakeMove();
  }
}

}  // namespace poppy::game
