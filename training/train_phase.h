// The training phase of `poppy train`: steps of SGD on batches drawn from the replay window
// (half of them reflected with training.mirror; the value target mixed with the root value by
// training.root_value_weight), the next batch drawn on another thread while the network trains
// on this one. Also the "fresh" losses: the network scored on the games just played, before it
// trains on them.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>

#include "nn/board_mirror.h"
#include "nn/encoder.h"
#include "selfplay/replay_window.h"
#include "training/run_log.h"
#include "training/train_config.h"
#include "training/trainer.h"

namespace poppy::training {

struct TrainPhaseInputs {
  Trainer& trainer;
  selfplay::ReplayWindow& window;
  const nn::Encoder& encoder;
  const TrainRunConfig& config;       // batch_size, steps_per_iteration, seed, root_value_weight
  const nn::BoardMirror* mirror;      // training.mirror; nullptr: off
  int iteration = 0;
  // With a feed (`--distributed`): before each step, waits until the window holds enough and one
  // more step keeps within train_ratio; false when the run stopped meanwhile. windowChanged is
  // set when the window took in games while waiting (a batch drawn before is drawn again).
  // Empty: no waiting.
  std::function<bool(int step, bool& windowChanged)> waitForSamples;
  std::function<bool()> stop;
  // Every config.log_every_steps steps: a "steps" event (their mean losses) for metrics.jsonl.
  std::function<void(nlohmann::json)> stepsEvent;
};

struct TrainPhaseOutcome {
  bool finished = false;  // false: stopped part way (the previous checkpoint stays; the phase is redone)
  nlohmann::json event;   // the "train" event when finished
};

// Trains config.steps_per_iteration steps, saying progress on `log`.
TrainPhaseOutcome trainOnWindow(const TrainPhaseInputs& in, RunLog& log);

// The network's losses on the `added` newest samples of the window (at most 4,096 of them,
// evenly spaced), beside a constant guess's: the "fresh" event. What it knows of games it has
// not trained on; training losses alone cannot tell learning from learning by heart
// (docs/commands/train.md "Value overfitting").
nlohmann::json scoreFreshGames(Trainer& trainer, const selfplay::ReplayWindow& window, const nn::Encoder& encoder,
                               const TrainRunConfig& config, size_t added, int iteration, RunLog& log);

}  // namespace poppy::training
