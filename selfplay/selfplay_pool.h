// Self-play on every core: several SelfPlayRunners, one per worker thread, each with its own
// evaluator, eval cache and share of the games. One runner keeps one core busy (its search and
// its network calls take turns on one thread, and a single LibTorch thread is what small
// batches run best on), so two workers on two cores play about twice as many games per hour.
// Finished games reach the caller's callback one at a time (under a lock), so a caller that
// saves them needs no locking of its own.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "selfplay/selfplay_runner.h"

namespace poppy::selfplay {

class SelfPlayPool {
 public:
  // Called once per worker, on the caller's thread, before any game starts.
  using EvaluatorFactory = std::function<std::unique_ptr<mcts::Evaluator>()>;
  // Each worker's eval cache in self-play (`poppy train`, its asynchronous feed, MPI actors,
  // `bench selfplay`): 2^18 entries (about 262,000 positions), stated once so that they stay alike.
  static constexpr int kSelfPlayCacheBits = 18;

  // workers >= 1; settings.parallelGames is split between the workers (each gets at least
  // one game); worker k plays with seed settings.seed + k * 1000003. cacheBits: log2 of each
  // worker's eval cache entries (0: no cache).
  SelfPlayPool(game::VariantPtr variant, const nn::Encoder& encoder, const EvaluatorFactory& makeEvaluator,
               const SelfPlaySettings& settings, int workers, int cacheBits = kSelfPlayCacheBits);
  ~SelfPlayPool();

  // As SelfPlayRunner::play, with the games split between the workers. onGame and progress
  // run under one lock; progress carries the sums over all workers.
  void play(int games, const GameCallback& onGame, const ProgressCallback& progress = nullptr,
            const std::function<bool()>& stop = nullptr, const std::function<bool()>& startMore = nullptr);

  // A new network for every worker, taken before each worker's next round (also while play()
  // runs, from any thread): the games under way go on with it, none waits for the others to end
  // (KataGo's self-play swaps networks the same way). Each worker calls makeEvaluator on its
  // own thread; a factory that throws fails play() as a broken network would. Games started
  // after the switch are recorded as played by modelId.
  void switchModel(const EvaluatorFactory& makeEvaluator, const std::string& modelId);

  int workers() const { return int(workers_.size()); }
  // Summed over the workers (network time is summed too: it can exceed the wall time).
  mcts::SearchDriver::Stats searchStats() const;

 private:
  struct Worker;
  // Takes the newest switchModel's network into w, on w's thread, when w has not yet.
  void takeNewModel(Worker& w);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mutex_;
  std::mutex modelMutex_;  // guards the two below
  EvaluatorFactory newModel_;
  std::string newModelId_;
  std::atomic<int> modelVersion_{0};  // switchModel calls so far
};

}  // namespace poppy::selfplay
