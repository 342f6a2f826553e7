#include "apps/model_players.h"

#include <iostream>

#include "mcts/evaluator.h"
#include "nn/encoder.h"
#include "play/shipped_models.h"

namespace poppy::apps {

LoadedPlayer loadPlayer(const std::string& description, const game::Variant& variant, const std::string& device,
                        nn::Inference inference, int defaultPlayouts) {
  LoadedPlayer p;
  p.spec.name = description;
  auto bad = [&](const std::string& why) {
    return std::runtime_error("player '" + description + "': " + why +
                              " (use model:PATH[:PLAYOUTS], shipped[:PLAYOUTS], uniform[:PLAYOUTS], rollout[:SIMULATIONS] or random)");
  };
  if (description == "random") {
    p.spec.kind = selfplay::PlayerSpec::Kind::kRandom;
    return p;
  }
  auto number = [&](const std::string& text) {
    size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(text, &used);
    } catch (const std::exception&) {
      throw bad("'" + text + "' is not a number");
    }
    if (used != text.size() || n < 1 || n > 10000000) throw bad("'" + text + "' is not a positive number");
    return n;
  };
  if (description.rfind("rollout", 0) == 0) {
    p.spec.kind = selfplay::PlayerSpec::Kind::kRollout;
    if (description == "rollout") return p;
    if (description[7] != ':') throw bad("unknown player");
    p.spec.simulations = number(description.substr(8));
    return p;
  }
  // The same search as a model player's, with a network that knows nothing (equal priors, every
  // position a draw): the baseline that shows what a trained network adds.
  if (description == "uniform" || description.rfind("uniform:", 0) == 0) {
    p.spec.kind = selfplay::PlayerSpec::Kind::kNetwork;
    p.spec.search.playouts = description == "uniform" ? defaultPlayouts : number(description.substr(8));
    const nn::Encoder encoder(std::make_shared<game::Variant>(variant));
    p.evaluator = std::make_unique<mcts::UniformEvaluator>(encoder.policySize(), encoder.valueSize());
    p.spec.evaluator = p.evaluator.get();
    return p;
  }
  // The variant's shipped model (models/shipped.yaml): what `poppy play` plays without --model.
  if (description == "shipped" || description.rfind("shipped:", 0) == 0) {
    const std::string path = play::shippedModel(variant.name);
    if (path.empty()) throw bad(variant.name + " has no shipped model (" + play::shippedModelsFile() + ")");
    std::cerr << "poppy: player '" << description << "' is " << path << "\n";
    p.spec.kind = selfplay::PlayerSpec::Kind::kNetwork;
    p.spec.search.playouts = description == "shipped" ? defaultPlayouts : number(description.substr(8));
    p.evaluator = nn::loadModelEvaluator(path, &variant, device, inference);
    p.spec.evaluator = p.evaluator.get();
    return p;
  }
  if (description.rfind("model:", 0) == 0) {
    std::string path = description.substr(6);
    int playouts = defaultPlayouts;
    const size_t colon = path.rfind(':');
    if (colon != std::string::npos && colon + 1 < path.size() &&
        path.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      playouts = number(path.substr(colon + 1));
      path = path.substr(0, colon);
    }
    p.spec.kind = selfplay::PlayerSpec::Kind::kNetwork;
    p.spec.search.playouts = playouts;
    p.evaluator = nn::loadModelEvaluator(path, &variant, device, inference);
    p.spec.evaluator = p.evaluator.get();
    return p;
  }
  throw bad("unknown player");
}

}  // namespace poppy::apps
