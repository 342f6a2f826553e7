// The eight neighbours of a square in one fixed order, used where a move names squares next to
// another (Move::kBurn's mask). Board columns and ranks as Variant's (column 0 is sente's left,
// rank 0 is rank a at the top): clockwise from the square above.
#pragma once
#include "game/types.h"
#include "game/variant.h"

namespace poppy::game {

constexpr int kNeighbourDc[8] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int kNeighbourDr[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

// The neighbour of s in direction d (0-7), or -1 off the board.
inline Square neighbourOf(const Variant& v, Square s, int d) {
  const int col = v.colOf(s) + kNeighbourDc[d], rank = v.rankOf(s) + kNeighbourDr[d];
  if (col < 0 || col >= v.files || rank < 0 || rank >= v.ranks) return -1;
  return v.square(col, rank);
}

// The direction (0-7) in which n lies next to s, or -1 when it is not a neighbour.
inline int neighbourDirection(const Variant& v, Square s, Square n) {
  for (int d = 0; d < 8; ++d)
    if (neighbourOf(v, s, d) == n) return d;
  return -1;
}

}  // namespace poppy::game
