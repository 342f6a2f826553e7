// play::Analyzer: the one-position search behind `poppy usi`, hints, the web page and the
// opening tree, with the rollout MCTS (no model) and the PUCT search (a scripted evaluator).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/eval_cache.h"
#include "nn/encoder.h"
#include "play/analyzer.h"

namespace poppy {
namespace {

game::VariantPtr micro() { return game::loadVariant("micro"); }

// A network that likes one move: its policy logit is high at one index, the value is fixed.
class FavouriteMoveEvaluator : public mcts::Evaluator {
 public:
  FavouriteMoveEvaluator(int policySize, int favourite) : policySize_(policySize), favourite_(favourite) {}
  void evaluate(const float*, int batch, float* logits, float* wdl) override {
    for (int i = 0; i < batch; ++i) {
      for (int k = 0; k < policySize_; ++k) logits[size_t(i) * policySize_ + k] = k == favourite_ ? 5.0f : 0.0f;
      wdl[3 * i] = 0.2f;
      wdl[3 * i + 1] = 0.5f;
      wdl[3 * i + 2] = 0.3f;
    }
  }

 private:
  int policySize_, favourite_;
};

TEST(Analyzer, RolloutSearchFindsMateInOne) {
  // Gote's king on 4a; sente drops the gold on 4b, guarded by the gold on 3c: mate.
  auto v = micro();
  const game::Position pos = game::Position::fromSfen(v, "k3/4/1G2/4/3K b G 1");
  game::MoveList legal;
  game::Position probe = pos;
  probe.generateLegal(legal);
  std::vector<std::string> mates;
  for (int i = 0; i < legal.size(); ++i) {
    probe.makeMove(legal[i]);
    const game::Outcome o = probe.outcome(200);
    if (o.over() && o.winner == 0) mates.push_back(pos.moveToUsi(legal[i]));
    probe.unmakeMove();
  }
  ASSERT_FALSE(mates.empty()) << "the test position should have a mate in one";
  mcts::SearchParams params;
  params.playouts = 3000;
  play::Analyzer analyzer(v, nullptr, params);
  const play::Analysis a = analyzer.analyze(pos, {});
  ASSERT_FALSE(a.moves.empty());
  EXPECT_FALSE(a.network);
  EXPECT_EQ(a.playouts, 3000);
  EXPECT_NE(std::find(mates.begin(), mates.end(), a.moves.front().usi), mates.end()) << a.moves.front().usi;
  EXPECT_GT(a.moves.front().winRate, 0.99f);
  double shares = 0;
  for (const auto& m : a.moves) {
    shares += m.share;
    ASSERT_FALSE(m.pv.empty());
    EXPECT_EQ(m.pv.front(), m.usi);
  }
  EXPECT_NEAR(shares, 1.0, 1e-6);
  for (size_t i = 1; i < a.moves.size(); ++i) EXPECT_GE(a.moves[i - 1].visits, a.moves[i].visits);
}

TEST(Analyzer, NetworkSearchFollowsThePrior) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  game::MoveList legal;
  game::Position(v).generateLegal(legal);
  ASSERT_GT(legal.size(), 2);
  const game::Move chosen = legal[legal.size() - 1];
  FavouriteMoveEvaluator eval(enc.policySize(), enc.moveIndex(pos, chosen));
  mcts::SearchParams params;
  params.playouts = 200;
  play::Analyzer analyzer(v, &eval, params);
  const play::Analysis a = analyzer.analyze(pos, {});
  EXPECT_TRUE(a.network);
  ASSERT_FALSE(a.moves.empty());
  EXPECT_EQ(a.moves.front().usi, pos.moveToUsi(chosen));
  EXPECT_GT(a.moves.front().prior, 0.5f);
  EXPECT_GE(a.playouts, 200);
  EXPECT_NEAR(a.wdl[0] + a.wdl[1] + a.wdl[2], 1.0f, 1e-4);
}

// Priors are softmax(logit / T): the favourite's logit is 5 and every other move's 0, so over n
// legal moves its prior is e^(5/T) / (e^(5/T) + n - 1) (hand derivation of the softmax).
TEST(Analyzer, PolicyTemperatureFlattensThePriors) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  game::MoveList legal;
  pos.generateLegal(legal);
  const int n = legal.size();
  FavouriteMoveEvaluator eval(enc.policySize(), enc.moveIndex(pos, legal[0]));
  for (float temperature : {1.0f, 2.0f}) {
    mcts::SearchParams params;
    params.policyTemperature = temperature;
    params.solver = false;
    play::Analyzer analyzer(v, &eval, params);
    play::SearchLimits limits;
    limits.playouts = 1;
    const play::Analysis a = analyzer.analyze(pos, limits);
    ASSERT_EQ(int(a.moves.size()), n);
    const double favourite = std::exp(5.0 / temperature) / (std::exp(5.0 / temperature) + n - 1);
    for (const play::MoveInfo& m : a.moves)
      EXPECT_NEAR(m.prior, m.move == legal[0] ? favourite : (1 - favourite) / (n - 1), 1e-5)
          << "T " << temperature << " " << m.usi;
  }
}

// `go searchmoves`: the search keeps to the moves it is given, even when the policy (and a mate
// in one) point elsewhere. The position is RolloutSearchFindsMateInOne's: a gold drop on 4b
// mates; searched without it, no move mates in one and the best move is one of the two allowed.
TEST(Analyzer, SearchKeepsToTheRootMovesItIsGiven) {
  auto v = micro();
  nn::Encoder enc(v);
  const game::Position pos = game::Position::fromSfen(v, "k3/4/1G2/4/3K b G 1");
  const game::Move mate = pos.parseUsi("G*4b");
  FavouriteMoveEvaluator eval(enc.policySize(), enc.moveIndex(pos, mate));
  mcts::SearchParams params;
  params.playouts = 300;
  play::Analyzer analyzer(v, &eval, params);
  const play::Analysis all = analyzer.analyze(pos, {});
  ASSERT_FALSE(all.moves.empty());
  EXPECT_EQ(all.moves.front().usi, "G*4b") << "unrestricted, the mate is played";
  play::SearchLimits limits;
  limits.rootMoves = {pos.parseUsi("1e2e"), pos.parseUsi("1e1d")};
  for (mcts::Evaluator* evaluator : {static_cast<mcts::Evaluator*>(&eval), static_cast<mcts::Evaluator*>(nullptr)}) {
    play::Analyzer restricted(v, evaluator, params);
    const play::Analysis a = restricted.analyze(pos, limits);
    SCOPED_TRACE(evaluator ? "network" : "rollout");
    ASSERT_EQ(a.moves.size(), 2u);
    for (const play::MoveInfo& m : a.moves) EXPECT_TRUE(m.usi == "1e2e" || m.usi == "1e1d") << m.usi;
    EXPECT_NE(a.mate, 1) << "no allowed move mates in one (a king move may still mate in 3)";
  }
}

// Tree reuse: the search after the opponent's reply (or after a move of each side) starts from
// the subtree the last search grew there; a position of another game starts afresh, and so does
// every search with reuse off (the default).
TEST(Analyzer, TreeReuseKeepsTheSubtreeOfTheMovesPlayed) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  FavouriteMoveEvaluator eval(enc.policySize(), 0);
  mcts::SearchParams params;
  params.playouts = 2000;
  play::Analyzer analyzer(v, &eval, params);
  analyzer.setTreeReuse(true);
  const play::Analysis first = analyzer.analyze(pos, {});
  ASSERT_FALSE(first.moves.empty());
  ASSERT_GE(first.moves.front().pv.size(), 3u);
  // Play the expected line: our best move and the reply the search expected.
  game::Position next = pos;
  for (int i = 0; i < 2; ++i) next.makeMove(next.parseUsi(first.moves.front().pv[size_t(i)]));
  play::SearchLimits one;
  one.playouts = 1;
  const play::Analysis reused = analyzer.analyze(next, one);
  EXPECT_GT(reused.playouts, 10) << "the kept subtree's visits";
  EXPECT_LT(reused.playouts, first.playouts);

  // The same position reached by another game (another first move pair, transposed back) is
  // not this game: a fresh tree. Micro's start: 1e2e then 4a3a reach other squares, so use a
  // different opening altogether and compare the visit count with a fresh analyzer's.
  game::Position other(v);
  game::MoveList legal;
  other.generateLegal(legal);
  other.makeMove(legal[legal.size() - 1]);
  const play::Analysis fresh = analyzer.analyze(other, one);
  EXPECT_LE(fresh.playouts, 2) << "not a continuation of the last search";

  play::Analyzer noReuse(v, &eval, params);
  noReuse.analyze(pos, {});
  EXPECT_LE(noReuse.analyze(next, one).playouts, 2) << "reuse is off by default";
}

// The cache's priors carry the policy temperature they were made with: after a change of
// temperature no search uses them, even with tree reuse on. The root's priors follow the new
// temperature's softmax (hand derivation in PolicyTemperatureFlattensThePriors).
TEST(Analyzer, CachedPriorsNeverOutliveTheirTemperature) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  game::MoveList legal;
  pos.generateLegal(legal);
  const int n = legal.size();
  FavouriteMoveEvaluator eval(enc.policySize(), enc.moveIndex(pos, legal[0]));
  mcts::SearchParams params;
  params.policyTemperature = 1.0f;
  params.solver = false;
  params.playouts = 200;
  play::Analyzer analyzer(v, &eval, params);
  analyzer.setTreeReuse(true);
  analyzer.analyze(pos, {});
  params.policyTemperature = 2.0f;
  analyzer.setParams(params);
  play::SearchLimits one;
  one.playouts = 1;
  const play::Analysis a = analyzer.analyze(pos, one);
  ASSERT_EQ(int(a.moves.size()), n);
  const double favourite = std::exp(5.0 / 2.0) / (std::exp(5.0 / 2.0) + n - 1);
  for (const play::MoveInfo& m : a.moves)
    EXPECT_NEAR(m.prior, m.move == legal[0] ? favourite : (1 - favourite) / (n - 1), 1e-5) << m.usi;
}

// The cache's values carry the material blend they were made with (material_weight,
// mcts/search_params.h): after a change no search uses them. At micro's start the material is
// even, so at weight 1 a leaf is a sure result of expected score 1/2, (0.5, 0, 0.5), where the
// network's own answer is (0.2, 0.5, 0.3): a draw share above 0 would be a cached answer of weight 0.
TEST(Analyzer, CachedValuesNeverOutliveTheirMaterialWeight) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  FavouriteMoveEvaluator eval(enc.policySize(), 0);
  mcts::SearchParams params;
  params.solver = false;
  params.playouts = 200;
  play::Analyzer analyzer(v, &eval, params);
  analyzer.setTreeReuse(true);
  const play::Analysis before = analyzer.analyze(pos, {});
  EXPECT_NEAR(before.wdl[1], 0.5f, 1e-4) << "weight 0: the network's draw share";
  params.materialWeight = 1.0f;
  analyzer.setParams(params);
  play::SearchLimits one;
  one.playouts = 1;
  const play::Analysis a = analyzer.analyze(pos, one);
  EXPECT_NEAR(a.wdl[0], 0.5f, 1e-4);
  EXPECT_NEAR(a.wdl[1], 0.0f, 1e-4);
  EXPECT_NEAR(a.wdl[2], 0.5f, 1e-4);
}

// The search answers soon after the stop flag is raised or its time is up. The slack is generous
// (the test machine may be busy; one search step takes milliseconds) but real: a search that
// looked at its limits only every half second would fail.
TEST(Analyzer, StopsOnTheFlagAndOnTime) {
  using Clock = std::chrono::steady_clock;
  const auto secondsBetween = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  constexpr double kSlack = 0.3;
  auto v = micro();
  game::Position pos(v);
  play::Analyzer analyzer(v, nullptr, mcts::SearchParams{});
  std::atomic<bool> stop{false};
  Clock::time_point raised;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    raised = Clock::now();
    stop = true;
  });
  play::SearchLimits infinite;
  infinite.infinite = true;
  const play::Analysis a = analyzer.analyze(pos, infinite, &stop);
  const Clock::time_point returned = Clock::now();
  stopper.join();
  EXPECT_GT(a.playouts, 0);
  EXPECT_LT(secondsBetween(raised, returned), kSlack) << "seconds from the flag to the answer";

  play::SearchLimits timed;
  timed.seconds = 0.05;
  const Clock::time_point start = Clock::now();
  const play::Analysis b = analyzer.analyze(pos, timed);
  const double took = secondsBetween(start, Clock::now());
  EXPECT_GT(b.playouts, 0);
  EXPECT_GE(took, timed.seconds) << "the search uses its time (micro's start is not decided early)";
  EXPECT_LT(took, timed.seconds + kSlack) << "seconds for a 0.05 s search";
  EXPECT_LE(b.seconds, took);
}

// An evaluator that counts how many of its calls run at once and takes a little time per call,
// so that calls from several threads overlap when they may. Its answers are those of
// FavouriteMoveEvaluator.
class CountingEvaluator : public mcts::Evaluator {
 public:
  CountingEvaluator(int policySize, int favourite, bool threadSafe)
      : inner_(policySize, favourite), threadSafe_(threadSafe) {}
  void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
    const int now = ++inside_;
    int seen = maxInside_.load();
    while (now > seen && !maxInside_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    inner_.evaluate(planes, batch, logits, wdl);
    calls_ += 1;
    positions_ += batch;
    --inside_;
  }
  bool threadSafe() const override { return threadSafe_; }
  int maxInside() const { return maxInside_; }
  int calls() const { return calls_; }
  int positions() const { return positions_; }

 private:
  FavouriteMoveEvaluator inner_;
  bool threadSafe_;
  std::atomic<int> inside_{0}, maxInside_{0}, calls_{0}, positions_{0};
};

// Search threads (Analyzer::setThreads, the USI Threads option) share one tree: the network
// calls of two threads overlap, the visits add up (each root visit is one playout: the
// children's visits sum to the root's less the root's own expansion), the answer is the same
// as one thread's, and an evaluator that is not thread-safe is never entered twice at once.
TEST(Analyzer, SearchThreadsShareOneTree) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  game::MoveList legal;
  game::Position(v).generateLegal(legal);
  const game::Move chosen = legal[legal.size() - 1];
  for (bool threadSafe : {true, false}) {
    SCOPED_TRACE(threadSafe ? "thread-safe evaluator" : "serial evaluator");
    CountingEvaluator eval(enc.policySize(), enc.moveIndex(pos, chosen), threadSafe);
    mcts::SearchParams params;
    params.playouts = 600;
    play::Analyzer analyzer(v, &eval, params);
    analyzer.setThreads(2);
    const play::Analysis a = analyzer.analyze(pos, {});
    ASSERT_FALSE(a.moves.empty());
    EXPECT_EQ(a.moves.front().usi, pos.moveToUsi(chosen));
    // Each thread may finish the batch it had gathered when the target was reached.
    EXPECT_GE(a.playouts, 600);
    EXPECT_LE(a.playouts, 600 + 2 * params.leavesPerTree);
    int64_t childVisits = 0;
    for (const auto& m : a.moves) childVisits += m.visits;
    EXPECT_EQ(childVisits, a.playouts - 1);
    if (threadSafe) {
      EXPECT_EQ(eval.maxInside(), 2) << "the two threads' network calls never overlapped";
    } else {
      EXPECT_EQ(eval.maxInside(), 1) << "an evaluator that is not thread-safe was entered by two threads at once";
    }
  }
}

// A position reached again by another order of moves inside the tree (micro's kings and
// drops transpose often) is answered by the cache, not the network. Without tree reuse each
// search starts with an empty cache, so the same search twice asks the network the same.
TEST(Analyzer, TranspositionsInTheTreeSkipTheNetwork) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  CountingEvaluator eval(enc.policySize(), 0, false);
  mcts::SearchParams params;
  params.playouts = 2000;
  play::Analyzer analyzer(v, &eval, params);
  const play::Analysis first = analyzer.analyze(pos, {});
  EXPECT_GT(analyzer.cacheHits(), 0) << "2,000 playouts from micro's start meet no transposition?";
  EXPECT_EQ(eval.positions(), analyzer.cacheMisses()) << "every miss, and only a miss, reaches the network";
  const int64_t firstPositions = eval.positions(), firstHits = analyzer.cacheHits();
  const play::Analysis again = analyzer.analyze(pos, {});
  EXPECT_EQ(eval.positions() - firstPositions, firstPositions) << "the second search started with an empty cache";
  EXPECT_EQ(analyzer.cacheHits(), firstHits);
  ASSERT_EQ(again.moves.size(), first.moves.size());
  for (size_t i = 0; i < first.moves.size(); ++i) EXPECT_EQ(again.moves[i].visits, first.moves[i].visits);
}

// The USI_Hash budget (Analyzer::setCacheBytes) sizes each search thread's cache. By hand: a slot
// is a 32-byte entry (8-byte key, 4-byte move count, 5 floats) and 128 priors of 4 bytes, 544
// bytes; 1 MiB holds 1,927 of them, so one thread gets 2^10 = 1,024 slots, two threads 512 each.
TEST(Analyzer, CacheBudgetSetsTheSlotsOfEachThread) {
  auto v = micro();
  nn::Encoder enc(v);
  CountingEvaluator eval(enc.policySize(), 0, false);
  mcts::SearchParams params;
  params.playouts = 300;
  play::Analyzer analyzer(v, &eval, params);
  EXPECT_EQ(mcts::EvalCache::bytesPerSlot(play::Analyzer::kCacheMaxMoves), 544u);
  EXPECT_EQ(analyzer.cacheSlotsPerThread(), size_t(1) << play::Analyzer::kCacheBits);
  analyzer.setCacheBytes(size_t(1) << 20);
  EXPECT_EQ(analyzer.cacheSlotsPerThread(), 1024u);
  analyzer.setThreads(2);
  EXPECT_EQ(analyzer.cacheSlotsPerThread(), 512u);
  analyzer.setCacheBytes(1);  // never below 2^8 slots
  EXPECT_EQ(analyzer.cacheSlotsPerThread(), 256u);
  // Searches before and after a change of size both run, every miss reaching the network.
  game::Position pos(v);
  analyzer.setThreads(1);
  analyzer.setCacheBytes(0);
  EXPECT_FALSE(analyzer.analyze(pos, {}).moves.empty());
  analyzer.setCacheBytes(size_t(1) << 20);
  const int64_t before = eval.positions();
  EXPECT_FALSE(analyzer.analyze(pos, {}).moves.empty());
  EXPECT_EQ(eval.positions() - before, analyzer.cacheMisses()) << "the resized cache starts empty";
}

// Search threads run their leaves' mate searches outside the tree's lock, so the cache cannot
// answer those leaves while gathering; it does after the mate search, before the network call.
TEST(Analyzer, SearchThreadsAskTheCacheAfterTheMateSearch) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  CountingEvaluator eval(enc.policySize(), 0, true);
  mcts::SearchParams params;
  params.playouts = 2000;
  ASSERT_GT(params.leafMatePlies, 0) << "the default searches mates at new leaves";
  play::Analyzer analyzer(v, &eval, params);
  analyzer.setThreads(2);
  analyzer.analyze(pos, {});
  EXPECT_GT(analyzer.cacheHits(), 0);
  EXPECT_EQ(eval.positions(), analyzer.cacheMisses()) << "every miss, and only a miss, reaches the network";
}

// With two threads a search still stops on its flag, soon.
TEST(Analyzer, SearchThreadsStopOnTheFlag) {
  auto v = micro();
  nn::Encoder enc(v);
  game::Position pos(v);
  CountingEvaluator eval(enc.policySize(), 0, true);
  play::Analyzer analyzer(v, &eval, mcts::SearchParams{});
  analyzer.setThreads(2);
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  play::SearchLimits infinite;
  infinite.infinite = true;
  const auto start = std::chrono::steady_clock::now();
  const play::Analysis a = analyzer.analyze(pos, infinite, &stop);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stopper.join();
  EXPECT_GT(a.playouts, 0);
  EXPECT_LT(took, 0.1 + 0.3);
}

// An evaluator that fails in a search thread is an error of analyze(), as with one thread,
// not the end of the process.
TEST(Analyzer, SearchThreadsPassOnAnEvaluatorError) {
  class FailingEvaluator : public mcts::Evaluator {
   public:
    explicit FailingEvaluator(int policySize) : inner_(policySize, 0) {}
    void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
      if (++calls_ > 20) throw std::runtime_error("the network went away");
      inner_.evaluate(planes, batch, logits, wdl);
    }
    bool threadSafe() const override { return true; }

   private:
    FavouriteMoveEvaluator inner_;
    std::atomic<int> calls_{0};
  };
  auto v = micro();
  nn::Encoder enc(v);
  FailingEvaluator eval(enc.policySize());
  mcts::SearchParams params;
  params.playouts = 5000;
  play::Analyzer analyzer(v, &eval, params);
  analyzer.setThreads(2);
  try {
    analyzer.analyze(game::Position(v), {});
    ADD_FAILURE() << "the evaluator's error was lost";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the network went away");
  }
}

TEST(Analyzer, GameOverHasNoMoves) {
  auto v = micro();
  // Gote is mated (the position after the mate of the first test).
  const game::Position pos = game::Position::fromSfen(v, "k3/G3/1G2/4/3K w - 1");
  play::Analyzer analyzer(v, nullptr, mcts::SearchParams{});
  const play::Analysis a = analyzer.analyze(pos, {});
  EXPECT_TRUE(a.terminal);
  EXPECT_TRUE(a.moves.empty());
}

TEST(Analyzer, CentipawnsFollowTheWinRate) {
  play::Analysis a;
  a.winRate = 0.5f;
  EXPECT_EQ(a.centipawns(), 0);
  a.winRate = 0.75f;
  EXPECT_GT(a.centipawns(), 50);
  a.winRate = 0.25f;
  EXPECT_LT(a.centipawns(), -50);
  a.winRate = 1.0f;
  EXPECT_LE(a.centipawns(), 10000);
}

}  // namespace
}  // namespace poppy
