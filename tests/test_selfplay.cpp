// Self-play games (selfplay/selfplay_runner.h) with the uniform evaluator: which positions
// become training samples, with playout cap randomisation on and off, and what the game
// records say about it. Also the per-tree visit targets of SearchDriver::round that it uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "nn/encoder.h"
#include "selfplay/selfplay_pool.h"
#include "selfplay/selfplay_runner.h"

using namespace poppy;

namespace {

struct Played {
  int games = 0;
  int64_t plies = 0, samples = 0;
  bool recordsAgree = true;  // every record's "samples" equals the samples handed over
  // Every sample's plies left and reply flag fit its game: plies left fall from at most the
  // game's length to at least 1, and the reply flag is set exactly where the next sample is one
  // ply on. With every ply a sample, the i-th has the game's plies - i left.
  bool placementAgrees = true;
  int64_t replies = 0, gaps = 0;  // reply flags set; a game's next sample more than a ply on
  std::set<std::string> firstMoves;
  std::set<std::string> thirteenthMoves;  // after the opening plies sampled by temperature
};

Played play(double fullSearchFraction, int games, int playouts = 16, int fastPlayouts = 4, int gumbelActions = 0) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  mcts::UniformEvaluator eval(encoder.policySize());
  selfplay::SelfPlaySettings s;
  s.search.playouts = playouts;
  s.search.plyCap = 60;
  s.parallelGames = 8;
  s.fullSearchFraction = fullSearchFraction;
  s.fastPlayouts = fastPlayouts;
  s.search.gumbelConsidered = gumbelActions;
  s.seed = 3;
  selfplay::SelfPlayRunner runner(variant, encoder, eval, s);
  Played p;
  runner.play(games, [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
    ++p.games;
    p.plies += record.plies;
    p.samples += int64_t(samples.size());
    p.recordsAgree = p.recordsAgree && record.samples == int(samples.size());
    for (size_t i = 0; i < samples.size(); ++i) {
      const selfplay::Sample& here = samples[i];
      const bool next = i + 1 < samples.size();
      const bool adjacent = next && samples[i + 1].pliesLeft + 1 == here.pliesLeft;
      bool fits = here.pliesLeft >= 1 && here.pliesLeft <= record.plies && here.replyFollows == adjacent &&
                  (!next || samples[i + 1].pliesLeft < here.pliesLeft);
      if (fullSearchFraction >= 1) fits = fits && here.pliesLeft == record.plies - int(i);
      p.placementAgrees = p.placementAgrees && fits;
      p.replies += here.replyFollows;
      p.gaps += next && !adjacent;
    }
    if (!record.moves.empty()) p.firstMoves.insert(record.moves[0]);
    if (record.moves.size() > 12) p.thirteenthMoves.insert(record.moves[12]);
  });
  return p;
}

// A network that likes one policy index and values each position by a hash of its planes, so
// that moves differ in value: the search then gives a poor move with a small prior few visits.
class FavouriteAndHashedValueEvaluator : public mcts::Evaluator {
 public:
  FavouriteAndHashedValueEvaluator(int inputSize, int policySize, int favourite)
      : inputSize_(inputSize), policySize_(policySize), favourite_(favourite) {}
  void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
    for (int i = 0; i < batch; ++i) {
      uint64_t h = 1469598103934665603ull;  // FNV-1a over the plane bytes
      const auto* bytes = reinterpret_cast<const unsigned char*>(planes + size_t(i) * inputSize_);
      for (size_t k = 0; k < size_t(inputSize_) * sizeof(float); ++k) h = (h ^ bytes[k]) * 1099511628211ull;
      const float v = float(h % 1601) / 1000.0f - 0.8f;  // in [-0.8, 0.8]
      for (int k = 0; k < policySize_; ++k) logits[size_t(i) * policySize_ + k] = k == favourite_ ? 4.0f : 0.0f;
      wdl[3 * i] = 0.5f * (1 + v);
      wdl[3 * i + 1] = 0.0f;
      wdl[3 * i + 2] = 0.5f * (1 - v);
    }
  }

 private:
  int inputSize_, policySize_, favourite_;
};

// Searches micro's start with root noise, forced playouts k (0: off), 400 playouts.
mcts::Tree searchedWithNoise(float k) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  const game::Position start(variant);
  game::MoveList moves;
  start.generateLegal(moves);
  FavouriteAndHashedValueEvaluator eval(encoder.inputSize(), encoder.policySize(), encoder.moveIndex(start, moves[0]));
  mcts::SearchDriver driver(eval, encoder, 16);
  mcts::SearchParams params;
  params.rootNoise = true;
  params.forcedPlayoutsK = k;
  params.leavesPerTree = 1;
  params.rootMatePlies = 0;
  mcts::Tree tree(start, params, 7);
  driver.search({&tree}, 400);
  return tree;
}

}  // namespace

TEST(ForcedPlayouts, EveryRootChildGetsItsForcedVisits) {
  // KataGo's rule: a root child with prior P has at least sqrt(k * P * N) visits (one less at
  // most: N grew since the child was last forced).
  const mcts::Tree forced = searchedWithNoise(2.0f);
  const double n = forced.rootVisits();
  for (const auto& c : forced.rootChildren())
    EXPECT_GE(c.visits, std::sqrt(2.0 * c.prior * n) - 1.0) << "prior " << c.prior;
  // Without forcing, the same search leaves some child short of it: the rule did something.
  const mcts::Tree free = searchedWithNoise(0.0f);
  int shortChildren = 0;
  for (const auto& c : free.rootChildren()) shortChildren += c.visits < std::sqrt(2.0 * c.prior * 400) - 1.0;
  EXPECT_GT(shortChildren, 0);
}

TEST(ForcedPlayouts, PruningTakesBackOnlyForcedVisits) {
  const mcts::Tree tree = searchedWithNoise(2.0f);
  const auto children = tree.rootChildren();
  const std::vector<double> target = tree.targetVisits();
  ASSERT_EQ(target.size(), children.size());
  size_t best = 0;
  for (size_t i = 0; i < children.size(); ++i)
    if (children[i].visits > children[best].visits) best = i;
  EXPECT_EQ(target[best], children[best].visits);  // the most visited move keeps everything
  double pruned = 0;
  const double n = tree.rootVisits();
  for (size_t i = 0; i < children.size(); ++i) {
    const double forcedVisits = std::sqrt(2.0 * children[i].prior * n);
    EXPECT_LE(target[i], children[i].visits);
    // At most the forced visits go, and a child left with a single visit goes altogether.
    EXPECT_TRUE(target[i] >= children[i].visits - forcedVisits || target[i] == 0) << i;
    EXPECT_TRUE(target[i] == 0 || target[i] > 1 || target[i] == children[i].visits) << i;
    pruned += children[i].visits - target[i];
  }
  EXPECT_GT(pruned, 0);  // the forced visits of poor moves were taken back
  // With k = 0 (the default) the target is the visits as they are.
  const mcts::Tree free = searchedWithNoise(0.0f);
  const auto freeChildren = free.rootChildren();
  const std::vector<double> freeTarget = free.targetVisits();
  for (size_t i = 0; i < freeChildren.size(); ++i) EXPECT_EQ(freeTarget[i], freeChildren[i].visits);
}

TEST(SelfPlay, EveryPlyIsASampleWithoutPlayoutCapRandomisation) {
  const Played p = play(1.0, 12);
  EXPECT_EQ(p.games, 12);
  EXPECT_GT(p.plies, 0);
  EXPECT_EQ(p.samples, p.plies);
  EXPECT_TRUE(p.recordsAgree);
  EXPECT_TRUE(p.placementAgrees);
  EXPECT_EQ(p.replies, p.samples - p.games);  // every sample but each game's last
}

TEST(SelfPlay, OnlyFullSearchesAreSamplesWithPlayoutCapRandomisation) {
  // Each move is a full search with probability 1/4, independently: over some hundreds of plies
  // the share of samples lies well inside [0.1, 0.45] (a binomial's sd is under 0.03 here).
  const Played p = play(0.25, 24);
  EXPECT_EQ(p.games, 24);
  ASSERT_GT(p.plies, 200);
  const double share = double(p.samples) / double(p.plies);
  EXPECT_GT(share, 0.10);
  EXPECT_LT(share, 0.45);
  EXPECT_TRUE(p.recordsAgree);
  EXPECT_TRUE(p.placementAgrees);
  EXPECT_GT(p.replies, 0);  // two full searches in a row: a quarter of the time
  EXPECT_GT(p.gaps, p.replies);
}

TEST(SelfPlay, GumbelRootsPlayWholeGamesAndExploreAtEveryPly) {
  // Gumbel root selection (4 moves sampled, 16 playouts): every ply is a sample; the Gumbel
  // draw varies the moves even past the plies that PUCT samples by temperature (8), so with a
  // uniform network the 13th moves of 24 games are not all one move.
  const Played p = play(1.0, 24, 16, 4, 4);
  EXPECT_EQ(p.games, 24);
  EXPECT_EQ(p.samples, p.plies);
  EXPECT_TRUE(p.recordsAgree);
  EXPECT_GE(p.firstMoves.size(), 3u);
  EXPECT_GE(p.thirteenthMoves.size(), 3u);
}

TEST(SelfPlay, BadPlayoutCapSettingsAreRefused) {
  EXPECT_THROW(play(0.0, 1), std::invalid_argument);
  EXPECT_THROW(play(1.5, 1), std::invalid_argument);
  EXPECT_THROW(play(0.5, 1, 16, 17), std::invalid_argument);  // fast above full
  EXPECT_THROW(play(0.5, 1, 16, 0), std::invalid_argument);
}

// The pool tests' games: 8 playouts a move (4 fast), capped at 40 plies, `parallelGames` at once.
static selfplay::SelfPlaySettings tinyPoolSettings(int parallelGames) {
  selfplay::SelfPlaySettings s;
  s.search.playouts = 8;
  s.fastPlayouts = 4;
  s.search.plyCap = 40;
  s.parallelGames = parallelGames;
  return s;
}

// SelfPlayPool runs its workers on threads (ThreadSanitizer runs this test: scripts/sanitize.sh):
// every game arrives once, through one lock, and the progress sums cover all workers.
TEST(SelfPlayPool, WorkersShareTheGamesAndReportThroughOneLock) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  selfplay::SelfPlaySettings s = tinyPoolSettings(6);
  s.seed = 5;
  int evaluators = 0;
  selfplay::SelfPlayPool pool(
      variant, encoder,
      [&] {
        ++evaluators;
        return std::make_unique<mcts::UniformEvaluator>(encoder.policySize());
      },
      s, 3, 10);
  EXPECT_EQ(evaluators, 3);
  EXPECT_EQ(pool.workers(), 3);

  int games = 0, inCallback = 0, overlaps = 0;
  int64_t samples = 0;
  std::set<std::string> ids;
  selfplay::SelfPlayProgress last;
  pool.play(
      10,
      [&](std::vector<selfplay::Sample>&& got, selfplay::GameRecord&& record) {
        overlaps += inCallback++;  // unsynchronised on purpose: the pool's lock must cover it
        ++games;
        samples += int64_t(got.size());
        ids.insert(record.id);
        EXPECT_EQ(record.samples, int(got.size()));
        --inCallback;
      },
      [&](const selfplay::SelfPlayProgress& p) {
        overlaps += inCallback++;
        EXPECT_EQ(p.gamesWanted, 10);
        EXPECT_LE(p.gamesFinished, 10);
        last = p;
        --inCallback;
      });
  EXPECT_EQ(games, 10);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(last.gamesFinished, 10);
  EXPECT_EQ(last.positions, samples);  // every ply is a sample (fullSearchFraction 1)
  EXPECT_GT(pool.searchStats().evaluations, 0);
  EXPECT_EQ(int(ids.size()), 10) << "every game has its own id";

  // A worker that fails stops the pool and its exception reaches the caller.
  EXPECT_THROW(pool.play(6, [](std::vector<selfplay::Sample>&&, selfplay::GameRecord&&) {
    throw std::runtime_error("disk full");
  }), std::runtime_error);
}

// startMore() false: no game starts in a finished one's place, and play returns once the
// games under way are done, each finished and handed over (a distributed actor's drain before
// it takes a new model). 6 games at once over 3 workers: once the 8th game has finished, the
// games still under way are at most the 6 slots, so 8 to 13 games in all of the 1,000 asked.
TEST(SelfPlayPool, StartMoreFalseFinishesTheGamesUnderWayAndStartsNoMore) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  const selfplay::SelfPlaySettings s = tinyPoolSettings(6);
  selfplay::SelfPlayPool pool(
      variant, encoder, [&] { return std::make_unique<mcts::UniformEvaluator>(encoder.policySize()); }, s, 3, 10);
  std::atomic<int> games{0};
  pool.play(
      1000, [&](std::vector<selfplay::Sample>&&, selfplay::GameRecord&&) { ++games; }, nullptr, nullptr,
      [&] { return games < 8; });
  EXPECT_GE(games.load(), 8);
  EXPECT_LE(games.load(), 13);
}

// A uniform evaluator that counts its calls.
class CountingEvaluator : public mcts::UniformEvaluator {
 public:
  CountingEvaluator(int policySize, std::atomic<int>& calls) : UniformEvaluator(policySize), calls_(calls) {}
  void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
    ++calls_;
    UniformEvaluator::evaluate(planes, batch, logits, wdl);
  }

 private:
  std::atomic<int>& calls_;
};

// switchModel while the pool plays (asynchronous self-play, training/local_game_feed.h): the
// old network is never called again after the round in which the switch came, the games under
// way finish (none is dropped, none waits), and games begun from then on carry the new name.
// One worker, 4 games at once, 12 games, the switch asked when the 2nd game ends: games named
// "A" are the 2 finished plus those under way then (between 1 and 4 of them; at least the first
// game's replacement, begun in an earlier round), the rest "B".
TEST(SelfPlayPool, SwitchModelTakesEffectBetweenRoundsWithoutEndingTheGamesUnderWay) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  selfplay::SelfPlaySettings s = tinyPoolSettings(4);
  s.modelId = "A";
  std::atomic<int> callsA{0}, callsB{0};
  selfplay::SelfPlayPool pool(
      variant, encoder, [&] { return std::make_unique<CountingEvaluator>(encoder.policySize(), callsA); }, s, 1, 10);
  int games = 0, callsAAtSwitch = -1;
  std::vector<std::string> models;
  pool.play(12, [&](std::vector<selfplay::Sample>&&, selfplay::GameRecord&& record) {
    models.push_back(record.model);
    if (++games == 2) {
      callsAAtSwitch = callsA;
      pool.switchModel([&] { return std::make_unique<CountingEvaluator>(encoder.policySize(), callsB); }, "B");
    }
  });
  ASSERT_EQ(games, 12);
  EXPECT_EQ(callsA.load(), callsAAtSwitch) << "the old network was called after the switch";
  EXPECT_GT(callsB.load(), 0);
  const int namedA = int(std::count(models.begin(), models.end(), "A"));
  const int namedB = int(std::count(models.begin(), models.end(), "B"));
  EXPECT_EQ(namedA + namedB, 12);
  EXPECT_GE(namedA, 3) << "a game under way at the switch was dropped or renamed";
  EXPECT_LE(namedA, 6);
  EXPECT_EQ(models[0], "A");
  EXPECT_EQ(models[1], "A");

  // A factory that throws fails play() as a broken network does.
  pool.switchModel([]() -> std::unique_ptr<mcts::Evaluator> { throw std::runtime_error("gen-0002.model: truncated"); },
                   "C");
  EXPECT_THROW(pool.play(4, [](std::vector<selfplay::Sample>&&, selfplay::GameRecord&&) {}), std::runtime_error);
}

// SearchDriver::setEvaluator empties the eval cache: the new network answers a position the old
// one had answered (a one-playout search of the start evaluates only the root).
TEST(SearchDriver, SetEvaluatorEmptiesTheCache) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  std::atomic<int> callsA{0}, callsB{0};
  CountingEvaluator a(encoder.policySize(), callsA), b(encoder.policySize(), callsB);
  mcts::EvalCache cache(10, 128, 3);
  mcts::SearchDriver driver(a, encoder, 8, &cache);
  mcts::SearchParams params;
  params.playouts = 1;
  const game::Position start(variant);
  mcts::Tree first(start, params, 1);
  driver.search({&first}, 1);
  EXPECT_EQ(callsA.load(), 1);
  mcts::Tree again(start, params, 1);
  driver.search({&again}, 1);
  EXPECT_EQ(callsA.load(), 1) << "the cache answers the same position";
  driver.setEvaluator(b);
  mcts::Tree third(start, params, 1);
  driver.search({&third}, 1);
  EXPECT_EQ(callsB.load(), 1) << "the old network's cached answer was used";
  EXPECT_EQ(callsA.load(), 1);
}

TEST(SearchDriver, EachTreeSearchesToItsOwnVisitTarget) {
  const auto variant = game::loadVariant("micro");
  const nn::Encoder encoder(variant);
  mcts::UniformEvaluator eval(encoder.policySize());
  mcts::SearchDriver driver(eval, encoder, 16);
  const game::Position start(variant);
  mcts::Tree a(start, {}, 1), b(start, {}, 2);
  const std::vector<mcts::Tree*> trees{&a, &b};
  while (driver.round(trees, std::vector<int>{10, 40})) {
  }
  // A round stops adding leaves to a tree once its visits and pending leaves reach the target.
  EXPECT_EQ(a.rootVisits(), 10);
  EXPECT_EQ(b.rootVisits(), 40);
  EXPECT_THROW(driver.round(trees, std::vector<int>{10}), std::invalid_argument);
}
