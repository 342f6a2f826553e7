// Where a training run stands: state.json in the run directory, written atomically after every
// game and phase (training/train_loop.h). The trainer reads it to resume; people and scripts
// read it to see how far a run is.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace poppy::training {

struct RunState {
  int iteration = 0;
  std::string phase = "selfplay";     // selfplay, train, gate
  int64_t gamesAtIterationStart = 0;  // total games when this iteration's self-play began
  int64_t totalGames = 0;             // = records in games.jsonl (reconciled on resume)
  int64_t totalSamples = 0;
  int generation = 0;                 // of the best model
  double bestElo = 0;
  double secondsTrained = 0;          // wall time spent in this run, over all restarts
  bool trainedThisIteration = false;
  std::string variant;                // what the run trains: the variant's name and rules fingerprint
  uint64_t rules = 0;                 // (both absent in runs started before fingerprints)

  nlohmann::json toJson() const;
  // Throws (nlohmann::json's errors, std::runtime_error) on a missing or mistyped field.
  static RunState fromJson(const nlohmann::json& j);
};

}  // namespace poppy::training
