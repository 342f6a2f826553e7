// Burning and double igui (docs/RULES.md "Mitsugumi shogi"): the fire demon captures up to two
// enemies next to the square it moved to (never a fire demon: Variant::burnImmuneFaces), or up
// to two next to it without moving (a fire demon included); the heavenly tetrarch's double igui
// is the same. Each choice of captured neighbours is a move of its own (Move::kBurn).
#include <utility>

#include "game/neighbours.h"
#include "game/position.h"
#include "game/powers.h"

namespace poppy::game {

int powerTargets(const Variant& v, const Piece* board, int face, Color c, Square from, const SquareSet& reached,
                 SpecialTarget* out, int room) {
  const Face& f = v.faces[face];
  int n = 0;
  auto push = [&](Square to, int mid, int mask) {
    if (n < room) out[n++] = SpecialTarget{int16_t(to), int16_t(mid), uint8_t(mask)};
  };
  auto isEnemy = [&](Square s) { return s >= 0 && board[s] && colorOf(board[s]) != c; };

  SquareSet destinations = reached;
  if (f.areaSteps > 0) {
    const SquareSet area = areaDestinations(v, board, c, from, f.areaSteps);
    for (Square s = 0; s < v.numSquares(); ++s)
      if (area.test(s) && !reached.test(s)) push(s, -1, 0);
    destinations |= area;
    // Out to an empty neighbour and back: the turn skip, one move however it is made.
    for (int d = 0; d < 8; ++d) {
      const Square e = neighbourOf(v, from, d);
      if (e >= 0 && !board[e]) {
        push(from, e, 0);
        break;
      }
    }
  }

  // Each subset of up to `most` of the directions in dirs[0..k), one target per non-empty one.
  auto pushSubsets = [&](Square to, const int* dirs, int k, int most) {
    for (int i = 0; i < k; ++i) {
      push(to, -1, 1 << dirs[i]);
      if (most >= 2)
        for (int j = i + 1; j < k; ++j) push(to, -1, (1 << dirs[i]) | (1 << dirs[j]));
    }
  };

  if (f.burnCount > 0) {
    for (Square s = 0; s < v.numSquares(); ++s) {
      if (!destinations.test(s)) continue;
      int dirs[8], k = 0;
      for (int d = 0; d < 8; ++d) {
        const Square b = neighbourOf(v, s, d);
        if (b != from && isEnemy(b) && !((v.burnImmuneFaces >> faceOf(board[b])) & 1)) dirs[k++] = d;
      }
      pushSubsets(s, dirs, k, f.burnCount);
    }
  }

  if (f.iguiCount > 0) {
    int dirs[8], k = 0;
    for (int d = 0; d < 8; ++d)
      if (isEnemy(neighbourOf(v, from, d))) dirs[k++] = d;
    // One capture is the igui a lion makes (a two-leg move home through the piece), so the
    // same position keeps one encoding; two are a burn without moving.
    for (int i = 0; i < k; ++i) push(from, neighbourOf(v, from, dirs[i]), 0);
    if (f.iguiCount >= 2)
      for (int i = 0; i < k; ++i)
        for (int j = i + 1; j < k; ++j) push(from, -1, (1 << dirs[i]) | (1 << dirs[j]));
  }
  return n;
}

bool powerAttacks(const Variant& v, const Piece* board, int face, Color c, Square from, Square target,
                  const SquareSet& reached) {
  const Face& f = v.faces[face];
  const bool besideUs = neighbourDirection(v, from, target) >= 0;
  if (f.iguiCount > 0 && besideUs) return true;
  SquareSet destinations = reached;
  if (f.areaSteps > 0) {
    const SquareSet area = areaDestinations(v, board, c, from, f.areaSteps, target);
    if (area.test(target)) return true;
    destinations |= area;
  }
  if (f.burnCount == 0) return false;
  if (board[target] && ((v.burnImmuneFaces >> faceOf(board[target])) & 1)) return false;
  for (int d = 0; d < 8; ++d) {
    const Square s = neighbourOf(v, target, d);
    if (s >= 0 && destinations.test(s)) return true;
  }
  return false;
}

int Position::homePairKey(Square from, int burnMask) const {
  Square pair[2] = {-1, -1};
  int k = 0;
  for (int d = 0; d < 8 && k < 2; ++d)
    if ((burnMask >> d) & 1) pair[k++] = neighbourOf(*variant_, from, d);
  if (pair[0] > pair[1]) std::swap(pair[0], pair[1]);
  return kMaxSquares + 1 + (pair[0] + 1) * (kMaxSquares + 1) + pair[1];
}

}  // namespace poppy::game
