// Asynchronous self-play on one machine (`selfplay.asynchronous: true`; issue 47 part 3a): a
// thread of the training process plays self-play games without pause while the run trains, as
// KataGo's and lc0's self-play never waits for their trainers. The run takes its games as it
// takes the actors' games under `--distributed` (training/game_feed.h, training/fed_games.h):
// saved as they finish, trained on while samples trained stay within training.train_ratio x
// samples played. Each new best model reaches the workers between two rounds of search
// (selfplay::SelfPlayPool::switchModel): no game is abandoned and none waits for the others.
//
// The split of the cores is the config's: `selfplay.workers` threads play while
// `training.threads` train. Games are not reproducible from the seed (the model a move is
// searched with depends on timing); everything else about the run (resume, limits) is as before.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "game/variant.h"
#include "nn/encoder.h"
#include "selfplay/chunk_info.h"
#include "selfplay/selfplay_pool.h"
#include "training/game_feed.h"
#include "training/train_config.h"

namespace poppy::training {

class LocalGameFeed : public GameFeed {
 public:
  // A model file as a network for one self-play worker (the run's own loader: its device,
  // inference and precision).
  using ModelLoader = std::function<std::unique_ptr<mcts::Evaluator>(const std::string& modelPath)>;

  // The variant and encoder must outlive the feed.
  LocalGameFeed(const TrainRunConfig& config, game::VariantPtr variant, const nn::Encoder& encoder, ModelLoader load);
  ~LocalGameFeed() override;  // stops the games under way (dropped) and joins the thread

  // configText is not needed: this process has the configuration.
  void start(const std::string& configText, const std::string& modelPath, int generation,
             const GameSink& sink) override;
  void publish(const std::string& modelPath, int generation) override;
  FeedStatus status() const override;
  // Stops self-play at once (games under way are dropped, as an interrupted run drops them).
  void finish(double timeoutSeconds, const std::string& failure = "") override;
  std::string failure() const override;
  bool distributed() const override { return false; }

 private:
  void play(const GameSink& sink);

  TrainRunConfig config_;
  game::VariantPtr variant_;
  const nn::Encoder& encoder_;
  ModelLoader load_;
  selfplay::ChunkInfo chunkInfo_;
  std::thread thread_;
  std::atomic<bool> stop_{false}, playing_{false};
  mutable std::mutex mutex_;  // guards the four below
  std::string modelPath_;     // the newest published model
  int generation_ = 0;
  selfplay::SelfPlayPool* pool_ = nullptr;  // while the thread plays
  std::string failure_;
};

}  // namespace poppy::training
