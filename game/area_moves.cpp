// Area moves (docs/RULES.md "Mitsugumi shogi": the fire demon and vice general): up to N king
// steps in any directions, through empty squares, stopping at the first capture.
#include "game/neighbours.h"
#include "game/powers.h"

namespace poppy::game {

SquareSet areaDestinations(const Variant& v, const Piece* board, Color c, Square from, int steps, Square enemyAt) {
  const Piece enemy = makePiece((c + 1) % kMaxPlayers, 0);
  auto at = [&](Square s) -> Piece {
    if (s == from) return kEmpty;  // left behind by the mover
    if (s == enemyAt && !board[s]) return enemy;
    return board[s];
  };
  // Breadth first, one ring of steps at a time: a square first reached at step k has the most
  // steps left, so it is expanded once.
  SquareSet reached, frontier, seen;
  frontier.set(from);
  seen.set(from);
  for (int step = 0; step < steps && frontier.any(); ++step) {
    SquareSet next;
    for (Square s = 0; s < v.numSquares(); ++s) {
      if (!frontier.test(s)) continue;
      for (int d = 0; d < 8; ++d) {
        const Square n = neighbourOf(v, s, d);
        if (n < 0) continue;
        const Piece p = at(n);
        if (p && colorOf(p) == c) continue;
        if (n != from) reached.set(n);
        if (!p && !seen.test(n)) {
          seen.set(n);
          next.set(n);
        }
      }
    }
    frontier = next;
  }
  return reached;
}

}  // namespace poppy::game
