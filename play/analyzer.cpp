#include "play/analyzer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "common/spin_mutex.h"
#include "mcts/rollout_player.h"
#include "mcts/search.h"
#include "mcts/tree.h"

namespace poppy::play {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A draw's share of the point for the side to move: a half between two, 1/N among the N players
// still in a four-player game (mcts/player_scores.h).
float drawShareOf(const game::Position& pos) {
  const game::Variant& v = pos.variant();
  if (v.numPlayers <= 2) return 0.5f;
  int in = 0;
  for (game::Color c = 0; c < v.numPlayers; ++c) in += !pos.isOut(c);
  return 1.0f / float(std::max(1, in));
}

// value = 2 * score - 1, where score = W + drawShare * D, and W + D + L = 1 (two players: value
// = W - L). L is the chance that somebody else wins.
std::array<float, 3> wdlFrom(float value, float draw, float drawShare = 0.5f) {
  const float w = std::max(0.0f, 0.5f * (1.0f + value) - drawShare * draw);
  const float l = std::max(0.0f, 1.0f - w - draw);
  return {w, std::max(0.0f, draw), l};
}

void rank(Analysis& a, float drawShare = 0.5f) {
  int64_t total = 0;
  for (const MoveInfo& m : a.moves) total += m.visits;
  for (MoveInfo& m : a.moves) {
    m.share = total ? double(m.visits) / double(total) : 0.0;
    m.winRate = m.wdl[0] + drawShare * m.wdl[1];
  }
  // Proofs first: proven wins (shortest first), then the unproven moves by visits, then proven
  // losses (longest resistance first).
  const auto group = [](const MoveInfo& m) { return m.mate > 0 ? 0 : m.mate == 0 ? 1 : 2; };
  std::stable_sort(a.moves.begin(), a.moves.end(), [&](const MoveInfo& x, const MoveInfo& y) {
    if (group(x) != group(y)) return group(x) < group(y);
    if (x.mate != y.mate) return x.mate < y.mate;  // +1 before +3; -7 before -3
    return x.visits != y.visits ? x.visits > y.visits : x.prior > y.prior;
  });
  a.winRate = a.wdl[0] + drawShare * a.wdl[1];
}

std::vector<std::string> toUsi(game::Position pos, const std::vector<game::Move>& line) {
  std::vector<std::string> out;
  for (game::Move m : line) {
    out.push_back(pos.moveToUsi(m));
    pos.makeMove(m);
  }
  return out;
}

// Is `later` the game of `earlier`, at most maxMoves moves on? Then `moves` gets those moves.
// The same game: the same start SFEN and the same position after every move since.
bool continuesGame(const game::Position& earlier, const game::Position& later, int maxMoves,
                   std::vector<game::Move>& moves) {
  const int extra = later.gamePly() - earlier.gamePly();
  if (extra < 0 || extra > maxMoves || earlier.variant().name != later.variant().name) return false;
  game::Position a = earlier, b = later;
  moves.assign(size_t(extra), game::Move::none());
  for (int i = extra - 1; i >= 0; --i) {
    moves[size_t(i)] = b.lastMove();
    b.unmakeMove();
  }
  for (;;) {
    if (a.hash() != b.hash()) return false;
    if (a.gamePly() == 0) break;
    a.unmakeMove();
    b.unmakeMove();
  }
  return a.sfen() == b.sfen();
}

}  // namespace

int Analysis::centipawns() const {
  const double q = std::clamp(2.0 * winRate - 1.0, -0.9999, 0.9999);
  return int(std::lround(std::clamp(290.680623072 * std::tan(1.548090806 * q), -10000.0, 10000.0)));
}

Analyzer::Analyzer(game::VariantPtr variant, mcts::Evaluator* evaluator, const mcts::SearchParams& params,
                   uint64_t seed)
    : variant_(std::move(variant)), evaluator_(evaluator), encoder_(variant_), params_(params), seed_(seed) {}

void Analyzer::setCacheBytes(size_t bytes) { cacheBytes_ = bytes; }

int Analyzer::cacheBitsPerThread() const {
  if (cacheBytes_ == 0) return kCacheBits;
  const size_t share = cacheBytes_ / size_t(threads_);
  const size_t slotBytes = mcts::EvalCache::bytesPerSlot(kCacheMaxMoves);
  int bits = 8;
  while (bits < 30 && (size_t(2) << bits) * slotBytes <= share) ++bits;
  return bits;
}

void Analyzer::prepareCaches(const mcts::SearchParams& params) {
  // A new size (USI_Hash or Threads changed) starts the caches afresh.
  const size_t slots = cacheSlotsPerThread();
  if (!caches_.empty() && caches_.front()->slots() != slots) caches_.clear();
  const bool carryOver = treeReuse_ && mcts::sameCacheAnswers(params, cacheParams_);
  if (!carryOver)
    for (auto& c : caches_) c->clear();
  cacheParams_ = params;
  while (int(caches_.size()) < threads_)
    caches_.push_back(std::make_unique<mcts::EvalCache>(cacheBitsPerThread(), kCacheMaxMoves, encoder_.valueSize()));
}

int64_t Analyzer::cacheHits() const {
  int64_t n = 0;
  for (const auto& c : caches_) n += c->hits();
  return n;
}

int64_t Analyzer::cacheMisses() const {
  int64_t n = 0;
  for (const auto& c : caches_) n += c->misses();
  return n;
}

mcts::Tree& Analyzer::treeFor(const game::Position& pos, const mcts::SearchParams& params, uint64_t seed,
                              const std::vector<game::Move>& rootMoves) {
  std::vector<game::Move> played;
  const bool reuse = treeReuse_ && kept_ && keptRoot_ && !keptRestricted_ && rootMoves.empty() &&
                     mcts::sameTreeSettings(keptParams_, params) && continuesGame(*keptRoot_, pos, kMaxReusedMoves, played);
  if (reuse) {
    for (game::Move m : played) kept_->advance(m);
  } else {
    kept_.reset();  // before the new one: one tree's memory at a time
    kept_ = std::make_unique<mcts::Tree>(pos, params, seed);
    keptParams_ = params;
    if (!rootMoves.empty()) kept_->restrictRootMoves(rootMoves);
  }
  keptRoot_ = pos;
  keptRestricted_ = !rootMoves.empty();
  return *kept_;
}

Analysis Analyzer::analyze(const game::Position& pos, const SearchLimits& limits, const std::atomic<bool>* stop,
                           const Progress& progress, double progressSeconds) {
  const Clock::time_point start = Clock::now();
  Analysis a;
  a.network = evaluator_ != nullptr;
  if (pos.outcome(params_.plyCap).over()) {
    a.terminal = true;
    return a;
  }
  int64_t target = limits.playouts > 0 ? limits.playouts : (limits.seconds > 0 ? kMaxPlayouts : params_.playouts);
  if (limits.infinite) target = kMaxPlayouts;
  target = std::clamp<int64_t>(target, 1, kMaxPlayouts);
  const uint64_t seed = seed_++;

  auto stopped = [&] { return stop && stop->load(std::memory_order_relaxed); };
  auto outOfTime = [&] { return !limits.infinite && limits.seconds > 0 && secondsSince(start) >= limits.seconds; };
  // One loop for both searches: `step` adds playouts (false: nothing left to search) until a
  // limit is reached, reporting progress; then `finish` (search threads stop) and the final
  // snapshot.
  auto run = [&](const auto& step, const auto& visits, const auto& snapshot, const auto& finish) {
    Clock::time_point lastProgress = start;
    while (!stopped() && !outOfTime() && visits() < target) {
      if (!step()) break;
      if (progress && secondsSince(lastProgress) >= progressSeconds) {
        lastProgress = Clock::now();
        progress(snapshot());
      }
    }
    // After the budget is spent an infinite search idles until it is told to stop.
    while (limits.infinite && !stopped()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    finish();
    return snapshot();
  };
  const auto nothing = [] {};

  if (evaluator_) {
    mcts::SearchParams params = params_;
    params.rootNoise = false;
    mcts::Tree& tree = treeFor(pos, params, seed, limits.rootMoves);
    prepareCaches(params);
    mcts::SearchDriver driver(*evaluator_, encoder_, std::max(1, params.leavesPerTree), caches_[0].get());
    const std::vector<mcts::Tree*> trees{&tree};
    auto snapshot = [&] {
      Analysis s;
      s.network = true;
      s.playouts = tree.rootVisits();
      s.seconds = secondsSince(start);
      s.wdl = tree.rootWdl();
      s.mate = tree.rootMate();
      const auto children = tree.rootChildren();
      for (size_t i = 0; i < children.size(); ++i) {
        const auto& c = children[i];
        MoveInfo m;
        m.move = c.move;
        m.usi = pos.moveToUsi(c.move);
        m.visits = c.visits;
        m.prior = c.prior;
        m.mate = c.mate;
        m.wdl = c.mate > 0 ? std::array<float, 3>{1, 0, 0}
                : c.mate < 0 ? std::array<float, 3>{0, 0, 1}
                : c.visits  ? wdlFrom(c.q, c.draw, drawShareOf(pos))
                            : s.wdl;
        const auto line = tree.principalVariation(int(i));
        m.pv = line.size() > 1 || c.visits ? toUsi(pos, line) : std::vector<std::string>{m.usi};
        s.moves.push_back(std::move(m));
      }
      rank(s, drawShareOf(pos));
      return s;
    };
    if (threads_ <= 1)
      return run([&] { return driver.round(trees, int(target)); }, [&] { return int64_t(tree.rootVisits()); },
                 snapshot, nothing);

    // Several threads on the one tree: each gathers leaves under treeMutex, evaluates them
    // outside it and backs them up under it again. This thread is one of them, and also keeps
    // the limits and the progress reports.
    common::SpinThenBlockMutex treeMutex;  // held for microseconds at a time, taken very often
    std::mutex evaluatorMutex;
    const bool serialEvaluator = !evaluator_->threadSafe();
    std::atomic<bool> finished{false};
    std::vector<std::unique_ptr<mcts::SearchDriver>> drivers;
    for (int i = 0; i < threads_; ++i) {
      drivers.push_back(std::make_unique<mcts::SearchDriver>(*evaluator_, encoder_, std::max(1, params.leavesPerTree),
                                                             caches_[size_t(i)].get()));
      drivers.back()->setDeferLeafWork(true);  // leaf mate searches and encoding outside treeMutex
    }
    auto cycle = [&](mcts::SearchDriver& d) {
      {
        std::lock_guard lock(treeMutex);
        if (!d.gatherRound(trees, int(target))) return false;
      }
      if (serialEvaluator) {
        std::lock_guard lock(evaluatorMutex);
        d.evaluateGathered();
      } else {
        d.evaluateGathered();
      }
      const bool onlyCollisions = d.gatheredLeaves() == 0;
      {
        std::lock_guard lock(treeMutex);
        d.finishGathered();
      }
      // Every leaf this thread reached is another thread's pending one: let that thread finish.
      if (onlyCollisions) std::this_thread::yield();
      return true;
    };
    // A helper's error (an evaluator that throws) ends the search and is rethrown here, instead
    // of escaping its thread (which would end the process).
    std::mutex errorMutex;
    std::exception_ptr helperError;
    std::vector<std::thread> helpers;
    for (int i = 1; i < threads_; ++i)
      helpers.emplace_back([&, i] {
        try {
          while (!finished.load(std::memory_order_relaxed) && cycle(*drivers[size_t(i)])) {
          }
        } catch (...) {
          std::lock_guard lock(errorMutex);
          if (!helperError) helperError = std::current_exception();
          finished = true;
        }
      });
    const auto stopHelpers = [&] {
      finished = true;
      for (auto& h : helpers) h.join();
      helpers.clear();
      if (helperError) std::rethrow_exception(helperError);
    };
    try {
      return run([&] { return !finished.load(std::memory_order_relaxed) && cycle(*drivers[0]); },
                 [&] {
                   std::lock_guard lock(treeMutex);
                   return int64_t(tree.rootVisits());
                 },
                 [&] {
                   std::lock_guard lock(treeMutex);
                   return snapshot();
                 },
                 stopHelpers);
    } catch (...) {
      // The helpers use this frame: they end before it unwinds (their own error, if any, is
      // dropped for the one being thrown).
      finished = true;
      for (auto& h : helpers) h.join();
      throw;
    }
  }

  mcts::RolloutPlayer rollout(1, seed, params_.plyCap);
  rollout.startSearch(pos);
  auto snapshot = [&] {
    Analysis s;
    s.network = false;
    s.playouts = rollout.rootVisits();
    s.seconds = secondsSince(start);
    const auto children = rollout.rootChildren();
    double score = 0, draws = 0;
    int64_t visits = 0;
    for (size_t i = 0; i < children.size(); ++i) {
      const auto& c = children[i];
      // The rollout search has no root restriction: it searches every move and reports only
      // the ones allowed (the root's value still counts them all).
      if (!limits.rootMoves.empty() &&
          std::find(limits.rootMoves.begin(), limits.rootMoves.end(), c.move) == limits.rootMoves.end())
        continue;
      MoveInfo m;
      m.move = c.move;
      m.usi = pos.moveToUsi(c.move);
      m.visits = c.visits;
      m.prior = 1.0f / float(children.size());
      // score = W + D/2 with D = draw share.
      m.wdl = wdlFrom(2.0f * c.score - 1.0f, c.draw);
      m.pv = c.visits ? toUsi(pos, rollout.principalVariation(int(i))) : std::vector<std::string>{m.usi};
      score += double(c.score) * c.visits;
      draws += double(c.draw) * c.visits;
      visits += c.visits;
      s.moves.push_back(std::move(m));
    }
    if (visits > 0) s.wdl = wdlFrom(float(2.0 * score / double(visits) - 1.0), float(draws / double(visits)));
    rank(s);
    return s;
  };
  return run(
      [&] {
        rollout.searchMore(int(std::min<int64_t>(16, target - rollout.rootVisits())));
        return true;
      },
      [&] { return int64_t(rollout.rootVisits()); }, snapshot, nothing);
}

}  // namespace poppy::play
