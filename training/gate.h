// The gate of `poppy train`: the candidate network against the best model, promoted when it
// scores gate.threshold. Two players: a match of gate.games (colours alternated), scored as
// usual. More (yonin): the candidate in one seat against copies of the best in the others, the
// seat going round, scored by its share of the points (an equal player's is 1 / players).
// gate.games 0 promotes every candidate (KataGo and lc0 do so), with the same "gate" event.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "game/variant.h"
#include "nn/encoder.h"
#include "training/run_log.h"
#include "training/train_config.h"

namespace poppy::mcts {
class Evaluator;
}

namespace poppy::training {

struct GateVerdict {
  bool promoted = true;
  double eloDiff = 0;     // the candidate's Elo over the best (two players with games; else 0)
  nlohmann::json metric;  // the "gate" event of metrics.jsonl, without the run's common fields
};

struct GateInputs {
  const game::VariantPtr& variant;
  const nn::Encoder& encoder;
  const TrainRunConfig& config;  // gate.games, .playouts and the rest, ply_cap, seed
  mcts::Evaluator& candidate;
  mcts::Evaluator& best;
  std::string bestName;          // gen-NNNN, for the lines and the event
  int iteration = 0;             // seeds the gate's games
};

// Plays the gate (config.gateGames > 0), saying progress on `log`.
GateVerdict playGate(const GateInputs& in, RunLog& log);

// gate.games 0: the candidate is promoted unplayed.
GateVerdict promoteUngated(const game::Variant& variant, const std::string& bestName, double threshold);

}  // namespace poppy::training
