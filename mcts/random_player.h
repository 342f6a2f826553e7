// The weakest baseline: a uniformly random legal move. Seeded, so games replay exactly.
#pragma once
#include <cstdint>
#include <random>

#include "game/position.h"

namespace poppy::mcts {

class RandomPlayer {
 public:
  explicit RandomPlayer(uint64_t seed) : rng_(seed) {}
  // Move::none() when there is no legal move.
  game::Move choose(const game::Position& pos) {
    pos.generateLegal(moves_);
    if (moves_.size() == 0) return game::Move::none();
    return moves_[int(rng_() % uint64_t(moves_.size()))];
  }

 private:
  std::mt19937_64 rng_;
  game::MoveList moves_;
};

}  // namespace poppy::mcts
