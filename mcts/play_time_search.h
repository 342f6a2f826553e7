// The search settings of play: `poppy usi`, `play`, `serve`, and the model players of `match`
// and `ladder`. Self-play and gates take theirs from the training config (selfplay.*, gate.*).
// Tuned by matches against a fixed engine (scripts/tune_search.py; docs/experiments/
// play-time-search.md): micro-v4 at 800 playouts against current Fairy-Stockfish at 10,000
// nodes, 400 games a point. cpuct 0.7-4 was within the noise of 1.5; the policy's softmax
// temperature was not: 1.0 scored 0.297, 1.6 0.372, 2.5 0.449, 3.2 0.504 and 4 0.505 (+150 Elo
// from 1.0 to the plateau). Tuned on micro only: other variants' models were not measured.
// The mate search at every new leaf, at equal time (micro-v5, 200 ms a move through `poppy usi`,
// int8, 200 games each): 1 ply against 3, +49 Elo (+0 to +97); none against 1 ply, -51 (-99 to
// -2). Three plies halve the playouts a second (28,000 against 54,000 from the start) and find
// little that the tree and the root's 5-ply mate search do not.
#pragma once
#include "mcts/search_params.h"

namespace poppy::mcts {

constexpr float kPlayTimePolicyTemperature = 3.2f;
constexpr int kPlayTimeLeafMatePlies = 1;

inline SearchParams playTimeSearchParams() {
  SearchParams p;
  p.policyTemperature = kPlayTimePolicyTemperature;
  p.leafMatePlies = kPlayTimeLeafMatePlies;
  return p;
}

}  // namespace poppy::mcts
