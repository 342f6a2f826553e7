// The search settings of play: `poppy usi`, `play`, `serve`, and the model players of `match`
// and `ladder`. Self-play and gates take theirs from the training config (selfplay.*, gate.*).
// Tuned by matches against a fixed engine (scripts/tune_search.py; docs/experiments/
// play-time-search.md): micro-v4 at 800 playouts against current Fairy-Stockfish at 10,000
// nodes, 400 games a point. cpuct 0.7-4 was within the noise of 1.5; the policy's softmax
// temperature was not: 1.0 scored 0.297, 1.6 0.372, 2.5 0.449, 3.2 0.504 and 4 0.505 (+150 Elo
// from 1.0 to the plateau). Tuned on micro only: other variants' models were not measured.
#pragma once
#include "mcts/search_params.h"

namespace poppy::mcts {

constexpr float kPlayTimePolicyTemperature = 3.2f;

inline SearchParams playTimeSearchParams() {
  SearchParams p;
  p.policyTemperature = kPlayTimePolicyTemperature;
  return p;
}

}  // namespace poppy::mcts
