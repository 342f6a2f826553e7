#include "selfplay/selfplay_pool.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>

#include "mcts/eval_cache.h"

namespace poppy::selfplay {

struct SelfPlayPool::Worker {
  std::unique_ptr<mcts::Evaluator> evaluator;
  std::unique_ptr<mcts::EvalCache> cache;
  std::unique_ptr<SelfPlayRunner> runner;
  // This worker's latest progress and search figures, copied on its own thread under the
  // pool's lock, so the sums never read a runner while it runs.
  SelfPlayProgress last;
  mcts::SearchDriver::Stats lastStats;
  int modelVersion = 0;  // the switchModel calls this worker has taken
};

SelfPlayPool::SelfPlayPool(game::VariantPtr variant, const nn::Encoder& encoder, const EvaluatorFactory& makeEvaluator,
                           const SelfPlaySettings& settings, int workers, int cacheBits) {
  if (workers < 1) throw std::invalid_argument("SelfPlayPool: workers must be at least 1");
  for (int k = 0; k < workers; ++k) {
    auto w = std::make_unique<Worker>();
    w->evaluator = makeEvaluator();
    if (cacheBits > 0) w->cache = std::make_unique<mcts::EvalCache>(cacheBits, 128, encoder.valueSize());
    SelfPlaySettings s = settings;
    s.parallelGames = std::max(1, settings.parallelGames / workers + (k < settings.parallelGames % workers ? 1 : 0));
    s.seed = settings.seed + uint64_t(k) * 1000003;
    w->runner = std::make_unique<SelfPlayRunner>(variant, encoder, *w->evaluator, s, w->cache.get());
    w->runner->setBeforeRound([this, &w = *w] { takeNewModel(w); });
    workers_.push_back(std::move(w));
  }
}

SelfPlayPool::~SelfPlayPool() = default;

void SelfPlayPool::play(int games, const GameCallback& onGame, const ProgressCallback& progress,
                        const std::function<bool()>& stop, const std::function<bool()>& startMore) {
  const int n = int(workers_.size());
  std::vector<std::thread> threads;
  std::exception_ptr failure;
  bool failed = false;
  // A worker that fails (a broken network, a full disk in onGame) stops the others too.
  auto stopAll = [&] {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed) return true;
    }
    return stop && stop();
  };
  mcts::SearchDriver::Stats summed;
  for (int k = 0; k < n; ++k) {
    const int share = games / n + (k < games % n ? 1 : 0);
    if (share == 0) continue;
    Worker& w = *workers_[size_t(k)];
    threads.emplace_back([&, share, &w = w] {
      try {
        w.runner->play(
            share,
            [&](std::vector<Sample>&& samples, GameRecord&& record) {
              std::lock_guard<std::mutex> lock(mutex_);
              onGame(std::move(samples), std::move(record));
            },
            [&](const SelfPlayProgress& p) {
              std::lock_guard<std::mutex> lock(mutex_);
              w.last = p;
              w.last.search = nullptr;
              if (p.search) w.lastStats = *p.search;
              if (!progress) return;
              SelfPlayProgress total;
              total.gamesWanted = games;
              summed = mcts::SearchDriver::Stats{};
              for (const auto& other : workers_) {
                total.gamesFinished += other->last.gamesFinished;
                total.positions += other->last.positions;
                total.seconds = std::max(total.seconds, other->last.seconds);
                summed += other->lastStats;
              }
              total.search = &summed;
              progress(total);
            },
            stopAll, startMore);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!failed) failure = std::current_exception();
        failed = true;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

void SelfPlayPool::switchModel(const EvaluatorFactory& makeEvaluator, const std::string& modelId) {
  std::lock_guard<std::mutex> lock(modelMutex_);
  newModel_ = makeEvaluator;
  newModelId_ = modelId;
  ++modelVersion_;
}

void SelfPlayPool::takeNewModel(Worker& w) {
  if (modelVersion_.load() == w.modelVersion) return;
  EvaluatorFactory make;
  std::string id;
  int version;
  {
    std::lock_guard<std::mutex> lock(modelMutex_);
    make = newModel_;
    id = newModelId_;
    version = modelVersion_.load();
  }
  std::unique_ptr<mcts::Evaluator> evaluator = make();
  w.runner->switchModel(*evaluator, id);
  w.evaluator = std::move(evaluator);  // the old one goes only once the runner has let it go
  w.modelVersion = version;
}

mcts::SearchDriver::Stats SelfPlayPool::searchStats() const {
  mcts::SearchDriver::Stats s;
  for (const auto& w : workers_) s += w->runner->searchStats();
  return s;
}

}  // namespace poppy::selfplay
