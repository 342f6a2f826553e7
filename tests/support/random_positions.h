// Positions reached by random legal play from a variant's start, for tests that need many
// varied positions (mid-game hands, promoted pieces, checks). Deterministic for a seed.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "game/position.h"

namespace poppy::testing {

// `count` SFENs, each after a random number of random legal moves (0..maxPlies), stopping early
// at a position with no legal move (which is kept: perft must handle it too). Under royal
// capture (chu) a move that takes a side's last royal is not made: that position has no SFEN.
// Under check counting (miburi) a game stops at the check that wins it.
inline std::vector<std::string> randomPositions(const game::VariantPtr& variant, int count, int maxPlies,
                                                uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  game::MoveList moves;
  for (int i = 0; i < count; ++i) {
    game::Position pos(variant);
    const int plies = std::uniform_int_distribution<int>(0, maxPlies)(rng);
    for (int p = 0; p < plies; ++p) {
      pos.generateLegal(moves);
      if (moves.size() == 0) break;
      pos.makeMove(moves[std::uniform_int_distribution<int>(0, moves.size() - 1)(rng)]);
      if (variant->royalCapture && pos.royalCount(pos.sideToMove()) == 0) {
        pos.unmakeMove();
        break;
      }
      if (pos.wonByChecks()) break;  // miburi: the last check ended the game (kept: perft counts 0 there)
    }
    out.push_back(pos.sfen());
  }
  return out;
}

}  // namespace poppy::testing
