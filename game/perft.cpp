#include "game/perft.h"

namespace poppy::game {
namespace {

// Under royal capture (chu) a side that has lost its last royal has lost: the game is over and
// has no moves, though its other pieces could still move (generateLegal would list them).
// Likewise after a side's last check under check counting (miburi).
bool overWithMovesLeft(const Position& pos) {
  return (pos.variant().royalCapture && pos.royalCount(pos.sideToMove()) == 0) || pos.wonByChecks();
}

}  // namespace

uint64_t perft(Position& pos, int depth) {
  if (depth <= 0) return 1;
  if (overWithMovesLeft(pos)) return 0;
  MoveList moves;
  pos.generateLegal(moves);
  if (depth == 1) return uint64_t(moves.size());
  uint64_t nodes = 0;
  for (const Move& m : moves) {
    pos.makeMove(m);
    nodes += perft(pos, depth - 1);
    pos.unmakeMove();
  }
  return nodes;
}

std::vector<std::pair<std::string, uint64_t>> perftDivide(Position& pos, int depth) {
  std::vector<std::pair<std::string, uint64_t>> out;
  if (depth <= 0 || overWithMovesLeft(pos)) return out;
  MoveList moves;
  pos.generateLegal(moves);
  for (const Move& m : moves) {
    const std::string text = pos.moveToUsi(m);
    pos.makeMove(m);
    out.emplace_back(text, perft(pos, depth - 1));
    pos.unmakeMove();
  }
  return out;
}

}  // namespace poppy::game
