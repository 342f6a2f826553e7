#include "training/local_game_feed.h"

#include <climits>
#include <exception>

#include "common/generation_name.h"
#include "selfplay/replay_file.h"

namespace poppy::training {

LocalGameFeed::LocalGameFeed(const TrainRunConfig& config, game::VariantPtr variant, const nn::Encoder& encoder,
                             ModelLoader load)
    : config_(config),
      variant_(std::move(variant)),
      encoder_(encoder),
      load_(std::move(load)),
      chunkInfo_(selfplay::chunkInfoFor(encoder)) {}

LocalGameFeed::~LocalGameFeed() { finish(0); }

void LocalGameFeed::start(const std::string&, const std::string& modelPath, int generation, const GameSink& sink) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    modelPath_ = modelPath;
    generation_ = generation;
  }
  stop_ = false;
  playing_ = true;
  thread_ = std::thread([this, sink] { play(sink); });
}

void LocalGameFeed::play(const GameSink& sink) {
  try {
    std::string path;
    int generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      path = modelPath_;
      generation = generation_;
    }
    selfplay::SelfPlaySettings settings = selfplaySettingsFor(config_);
    settings.modelId = common::generationName(generation);
    // A different seed at each start, so a resumed run does not replay its first games.
    settings.seed = config_.seed * 1000003 + uint64_t(generation) * 7919;
    selfplay::SelfPlayPool pool(
        variant_, encoder_, [&] { return load_(path); }, settings, config_.selfplayWorkers);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pool_ = &pool;
      // A model published while the pool was being built.
      if (generation_ != generation) pool.switchModel([this, p = modelPath_] { return load_(p); },
                                                      common::generationName(generation_));
    }
    pool.play(
        INT_MAX,
        [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
          FedGame game;
          game.chunk = selfplay::encodeReplayChunk("game " + record.id, chunkInfo_, samples);
          game.record = std::move(record);
          game.source = "self-play";
          sink(std::move(game));
        },
        nullptr, [this] { return stop_.load(); });
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    failure_ = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  pool_ = nullptr;
  playing_ = false;
}

void LocalGameFeed::publish(const std::string& modelPath, int generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  modelPath_ = modelPath;
  generation_ = generation;
  if (pool_) pool_->switchModel([this, modelPath] { return load_(modelPath); }, common::generationName(generation));
}

FeedStatus LocalGameFeed::status() const {
  FeedStatus s;
  s.actors = 1;
  s.actorsActive = playing_ ? 1 : 0;
  return s;
}

void LocalGameFeed::finish(double, const std::string&) {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string LocalGameFeed::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

}  // namespace poppy::training
