// The classic baseline before networks: UCT Monte Carlo tree search whose leaves are valued by
// playing uniformly random moves to the end of the game (the ply cap counts as a draw, or as the
// variant adjudicates it). No network; game ends are judged by Position::outcome exactly as in
// the PUCT search. New search per move (no tree reuse): it is a yardstick, not a contender.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "game/position.h"

namespace poppy::mcts {

class RolloutPlayer {
 public:
  RolloutPlayer(int simulations, uint64_t seed, int plyCap = 200, float c = 1.4f);
  // The most visited root move after `simulations` playouts; Move::none() when the game is over.
  game::Move choose(const game::Position& pos);

 private:
  struct Node {
    game::Move move;
    float score = 0.0f;  // sum of results (1 win, 0.5 draw, 0 loss) for the player who moved here
    int visits = 0;
    int parent = -1;
    int firstChild = -1;  // children are one block, created in random order when first visited
    int numChildren = 0;
    int8_t terminal = -1;  // -1 not known yet, 0 game goes on, 1 game over here
    float terminalResult = 0.0f;  // for the side to move here
  };

  // One selection-expansion-rollout-backup pass; pos is the root and is restored.
  void simulate(game::Position& pos);
  // Result (1, 0.5, 0) for the side to move in pos after random play to the end; pos restored.
  float rollout(game::Position& pos);
  // UCB1 over a node's children, all of which have been visited.
  int selectChild(const Node& parent) const;

  int simulations_;
  int plyCap_;
  float c_;
  std::mt19937_64 rng_;
  std::vector<Node> nodes_;
  game::MoveList moves_;
};

}  // namespace poppy::mcts
