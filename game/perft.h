// Perft: the number of leaf nodes of the legal move tree, the standard move generator check.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "game/position.h"

namespace poppy::game {

// Counts leaves at `depth` plies; the last ply is counted in bulk (moves generated, not made).
uint64_t perft(Position& pos, int depth);

// One (USI move, leaf count) pair per legal move, in generation order.
std::vector<std::pair<std::string, uint64_t>> perftDivide(Position& pos, int depth);

}  // namespace poppy::game
