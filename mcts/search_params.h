// Settings of the PUCT search. Defaults suit micro shogi self-play.
#pragma once

namespace poppy::mcts {

struct SearchParams {
  int playouts = 128;
  float cpuct = 1.5f;
  // First-play urgency: an unvisited child is valued at the parent's Q minus this reduction
  // (times sqrt of the prior mass already visited, see fpuScaledByVisitedPolicy).
  float fpuReduction = 0.25f;
  // Scale the reduction by sqrt(sum of the priors of visited children), as Lc0 and KataGo do.
  // Without it, a flat policy (an untrained network, the uniform evaluator) makes the search
  // dig into the first child or two and never look at their siblings: with 40 children of
  // prior 1/40, an unvisited child only beats a visited one once the parent has ~180 visits.
  bool fpuScaledByVisitedPolicy = true;
  bool rootNoise = false;
  float dirichletAlpha = 0.5f;
  float noiseFraction = 0.25f;
  int leavesPerTree = 4;  // virtual-loss leaves gathered per tree per batch
  int plyCap = 200;       // game plies (counted from the game's SFEN) after which it is drawn
};

}  // namespace poppy::mcts
