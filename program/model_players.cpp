#include "program/model_players.h"

#include <iostream>

#include "mcts/evaluator.h"
#include "nn/encoder.h"
#include "play/shipped_models.h"

namespace poppy::program {

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
  // The batched search with `evaluator` at `playouts` per move: the player of every kind below.
  auto networkPlayer = [&](int playouts, std::unique_ptr<mcts::Evaluator> evaluator) {
    p.spec.kind = selfplay::PlayerSpec::Kind::kNetwork;
    p.spec.search.playouts = playouts;
    p.evaluator = std::move(evaluator);
    p.spec.evaluator = p.evaluator.get();
    return std::move(p);
  };
  // NAME or NAME:PLAYOUTS (the first without its own playouts plays defaultPlayouts).
  auto named = [&](const std::string& name) {
    return description == name || description.rfind(name + ":", 0) == 0;
  };
  auto playoutsAfter = [&](const std::string& name) {
    return description == name ? defaultPlayouts : number(description.substr(name.size() + 1));
  };
  // The same search as a model player's, with a network that knows nothing (equal priors, every
  // position a draw): the baseline that shows what a trained network adds.
  if (named("uniform")) {
    const nn::Encoder encoder(std::make_shared<game::Variant>(variant));
    return networkPlayer(playoutsAfter("uniform"),
                         std::make_unique<mcts::UniformEvaluator>(encoder.policySize(), encoder.valueSize()));
  }
  // The variant's shipped model (models/shipped.yaml): what `poppy play` plays without --model.
  if (named("shipped")) {
    const std::string path = play::shippedModel(variant.name);
    if (path.empty()) throw bad(variant.name + " has no shipped model (" + play::shippedModelsFile() + ")");
    std::cerr << "poppy: player '" << description << "' is " << path << "\n";
    return networkPlayer(playoutsAfter("shipped"), nn::loadModelEvaluator(path, &variant, device, inference));
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
    return networkPlayer(playouts, nn::loadModelEvaluator(path, &variant, device, inference));
  }
  throw bad("unknown player");
}

}  // namespace poppy::program
