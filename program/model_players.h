// Turning command-line player descriptions into match players: "model:PATH[:PLAYOUTS]",
// "uniform[:PLAYOUTS]" (the same search with a uniform network), "rollout[:SIMULATIONS]" or
// "random". Shared by `poppy match` and `poppy gate`.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "nn/network_backend.h"
#include "selfplay/match.h"

namespace poppy::program {

struct LoadedPlayer {
  selfplay::PlayerSpec spec;
  std::unique_ptr<mcts::Evaluator> evaluator;  // for model players
};

// Throws std::runtime_error (or nn::ModelError) naming the bad description or file.
LoadedPlayer loadPlayer(const std::string& description, const game::Variant& variant, const std::string& device,
                        nn::Inference inference, int defaultPlayouts);

}  // namespace poppy::program
