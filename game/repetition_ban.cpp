// Yari shogi's repetition rule (seed 002: "three-fold repetition of position is illegal"): a
// move that would bring back a position for the third time is not a legal move. The check
// needs the hash the move would give, computed here without making the move, so that move
// generation stays const and cheap; the loader allows the rule only where every move is a plain
// board move or a drop (no two-leg moves, burns or lion rules, whose hashes this does not
// follow). tests/test_yari.cpp checks hashAfter against makeMove on random games.
#include <algorithm>

#include "game/position.h"

namespace poppy::game {

uint64_t Position::hashAfter(Move m) const {
  const Variant& v = *variant_;
  const Color us = side_;
  uint64_t h = hash();
  if (m.isDrop()) {
    const int face = m.dropFace();
    const int kind = v.faces[face].handKind;
    h ^= v.handKey(us, kind, hand_[us][kind]) ^ v.handKey(us, kind, hand_[us][kind] - 1);
    h ^= v.boardKey(makePiece(us, face), m.to);
  } else {
    const Piece p = board_[m.from];
    if (const Piece cap = board_[m.to]) {
      h ^= v.boardKey(cap, m.to);
      const int kind = v.faces[faceOf(cap)].handKind;
      if (v.dropsEnabled && kind >= 0)
        h ^= v.handKey(us, kind, hand_[us][kind]) ^ v.handKey(us, kind, hand_[us][kind] + 1);
    }
    const Piece np = m.isFlip() ? makePiece(us, v.faces[faceOf(p)].flipTo) : p;
    h ^= v.boardKey(p, m.from) ^ v.boardKey(np, m.to);
  }
  return h ^ v.sideKey(us) ^ v.sideKey(opponent(us));
}

uint8_t Position::occurrences(uint64_t h) const {
  int seen = 1;  // the position with this hash about to be added
  for (const State& s : states_) seen += s.hash == h;
  return uint8_t(std::min(seen, 255));
}

bool Position::repeatsTooOften(Move m) const { return occurrences(hashAfter(m)) >= variant_->repetitionCount; }

}  // namespace poppy::game
