// Turning command-line player descriptions into match players: "model:PATH[:PLAYOUTS]",
// "rollout[:SIMULATIONS]" or "random". Shared by `poppy match` and `poppy gate`.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "nn/torch_evaluator.h"
#include "selfplay/match.h"

namespace poppy::apps {

struct LoadedPlayer {
  selfplay::PlayerSpec spec;
  std::unique_ptr<nn::TorchEvaluator> evaluator;  // for model players
};

// Throws std::runtime_error (or nn::ModelError) naming the bad description or file.
LoadedPlayer loadPlayer(const std::string& description, const std::string& variant, const std::string& device,
                        int defaultPlayouts);

}  // namespace poppy::apps
