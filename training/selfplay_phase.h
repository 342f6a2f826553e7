// The self-play phase of `poppy train` on this machine: the best model plays the iteration's
// remaining games on config.selfplay_workers threads, each finished game handed to the run (which
// saves it at once), with a progress line and, at the end, a "selfplay" event.
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "game/variant.h"
#include "nn/encoder.h"
#include "selfplay/game_record.h"
#include "selfplay/sample.h"
#include "training/run_log.h"
#include "training/train_config.h"

namespace poppy::mcts {
class Evaluator;
}

namespace poppy::training {

struct SelfplayPhaseInputs {
  const game::VariantPtr& variant;
  const nn::Encoder& encoder;
  const TrainRunConfig& config;
  int games = 0;                 // still to play this iteration
  bool wholePhase = false;       // the iteration's first game too: its rates describe a whole phase
  std::string modelId;           // the best model's generation, recorded in each game
  uint64_t seed = 0;
  int iteration = 0;
  // One network per worker (each caches its own answers: a new one per phase, so a newly
  // promoted model is never answered with old values).
  std::function<std::unique_ptr<mcts::Evaluator>()> makeEvaluator;
  std::function<bool()> stop;    // asked between moves: stop now (the unfinished games are lost)
};

// Called once per finished game, one at a time.
using FinishedGame = std::function<void(std::vector<selfplay::Sample>&&, selfplay::GameRecord&&)>;

struct SelfplayPhaseOutcome {
  int played = 0;
  nlohmann::json event;  // the "selfplay" event (null when no game was played)
};

SelfplayPhaseOutcome playSelfplayPhase(const SelfplayPhaseInputs& in, const FinishedGame& onGame, RunLog& log);

}  // namespace poppy::training
