// `poppy train`: the AlphaZero loop. Each iteration plays self-play games with the best model,
// trains the candidate on the newest samples, and gates the candidate against the best,
// promoting it when it scores enough. Everything lives in the run directory:
//   config.yaml        the configuration used (copied at every start)
//   state.json         where the run stands (written atomically after every game and phase)
//   candidate.ckpt     the trained network with its optimizer state
//   models/gen-NNNN.model, best   promoted models and the name of the current best
//   replay/chunk-*.rpl one chunk per finished self-play game
//   games.jsonl        one record per self-play game; metrics.jsonl one line per event
//   replay-unrecorded/ chunks found without a game record on resume, kept aside, not trained on
//   run.lock           held (flock) by the trainer using the directory: a second one is refused
// Killed at any moment and started again with the same directory, it resumes: no finished game
// and no checkpoint is lost (at most the unfinished games and the current training phase).
#pragma once
#include <string>

#include "training/game_feed.h"
#include "training/train_config.h"

namespace poppy::training {

struct TrainOptions {
  std::string runDir;
  bool quiet = false;  // no progress lines (tests)
  // When candidate.ckpt does not load: keep it as candidate.ckpt.damaged and start the
  // candidate again from the best model (weights and step; fresh optimizer state), instead of
  // stopping with an error. A checkpoint that loads is used as always.
  bool restartCandidate = false;
  // A new run starts from this model's weights (and its training step, so the learning-rate
  // schedule goes on where it was) instead of random ones: a run continued on another machine
  // from what it kept. The model must be of the configured variant, rules and network shape; a
  // run directory that already holds a run refuses it. Empty: random weights.
  std::string initModel;
  // With initModel: a model of a smaller network (fewer blocks, channels or value-head units) is
  // grown into the configured one (nn/network_growth.h) instead of refused.
  bool grow = false;
  // Games played elsewhere (`--distributed`'s learner, training/game_feed.h): the run then plays
  // none itself; it saves the feed's games, trains while train_ratio allows and publishes each
  // new best model to the feed. nullptr: self-play on this machine.
  GameFeed* feed = nullptr;
};

// Returns when the configured iterations or hours are done, or after SIGINT/SIGTERM (having
// saved its state). Throws on bad configuration or unreadable run files.
void runTraining(const TrainRunConfig& config, const TrainOptions& options);

}  // namespace poppy::training
