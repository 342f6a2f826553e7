#include "training/run_state.h"

#include <stdexcept>

#include "common/json_integer.h"
#include "game/rules_fingerprint.h"

namespace poppy::training {

nlohmann::json RunState::toJson() const {
  nlohmann::json j = {{"format", 1},
                      {"iteration", iteration},
                      {"phase", phase},
                      {"games_at_iteration_start", gamesAtIterationStart},
                      {"total_games", totalGames},
                      {"total_samples", totalSamples},
                      {"generation", generation},
                      {"best_elo", bestElo},
                      {"seconds", secondsTrained},
                      {"trained_this_iteration", trainedThisIteration}};
  if (!variant.empty()) j["variant"] = variant;
  if (rules) j["rules"] = game::fingerprintHex(rules);
  return j;
}

RunState RunState::fromJson(const nlohmann::json& j) {
  RunState s;
  s.iteration = common::integerAt<int>(j, "iteration");
  s.phase = j.at("phase").get<std::string>();
  s.gamesAtIterationStart = common::integerAt<int64_t>(j, "games_at_iteration_start");
  s.totalGames = common::integerAt<int64_t>(j, "total_games");
  s.totalSamples = common::integerAt<int64_t>(j, "total_samples");
  s.generation = common::integerAt<int>(j, "generation");
  s.bestElo = j.at("best_elo").get<double>();
  s.secondsTrained = j.at("seconds").get<double>();
  s.trainedThisIteration = j.at("trained_this_iteration").get<bool>();
  if (j.contains("variant")) s.variant = j.at("variant").get<std::string>();
  if (j.contains("rules") && !game::parseFingerprintHex(j.at("rules").get<std::string>(), s.rules))
    throw std::runtime_error("\"rules\" is not 16 hex digits");
  return s;
}

}  // namespace poppy::training
