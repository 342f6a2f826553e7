// The search (mcts/): tree mechanics, batching, exact game ends, the eval cache and the
// baseline players. Positions are micro shogi (docs/RULES.md: a non-king piece that captures flips;
// captured pieces may be dropped either face up). Every expected move is reasoned from the
// rules in the comments, never taken from the engine's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "mcts/random_player.h"
#include "mcts/rollout_player.h"
#include "mcts/search.h"
#include "nn/encoder.h"

using namespace poppy;
using game::Move;
using game::Position;

namespace {

struct Micro {
  game::VariantPtr variant = game::loadVariant("micro");
  nn::Encoder encoder{variant};
  Position at(const std::string& sfen) const { return Position::fromSfen(variant, sfen); }
};

// Uniform answers, counting calls and batch sizes.
class CountingEvaluator : public mcts::UniformEvaluator {
 public:
  explicit CountingEvaluator(int policySize) : UniformEvaluator(policySize) {}
  void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
    ++calls;
    positions += batch;
    largestBatch = std::max(largestBatch, batch);
    UniformEvaluator::evaluate(planes, batch, logits, wdl);
  }
  int calls = 0, positions = 0, largestBatch = 0;
};

// Searches one tree with the uniform evaluator and returns it.
mcts::Tree searched(const Micro& m, const Position& pos, int playouts, mcts::SearchParams params = {},
                    uint64_t seed = 1) {
  mcts::UniformEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 16);
  mcts::Tree tree(pos, params, seed);
  driver.search({&tree}, playouts);
  return tree;
}

Move best(const mcts::Tree& tree) {
  std::mt19937 rng(0);
  return tree.pickMove(0.0f, rng);
}

bool givesMate(Position pos, Move m) {
  const game::Color mover = pos.sideToMove();
  pos.makeMove(m);
  const game::Outcome o = pos.outcome();
  return o.reason == game::EndReason::kNoLegalMove && o.winner == mover;
}

}  // namespace

// Gote's lone king on 4a, sente's pawn on 4c (it guards 4b), sente holds a gold. A side with no
// legal move loses, stalemate included (docs/RULES.md), so sente wins at once with any drop that
// covers 3a and 3b while 4b stays guarded:
//   G*4b   mate: the gold checks from 4b, covers 3a (forward diagonal) and 3b (sideways), and
//          the pawn guards it;
//   G*2b   stalemate: the gold covers 3a (forward diagonal) and 3b (sideways);
//   +G*3c, +G*3d, +G*3e   stalemate: a rook on the 3-file covers 3b and 3a.
// Nothing else wins: a rook on 4b leaves 3a, a gold on 3b or a rook on 3a or 3b can be taken.
const std::vector<std::string> kMicroWinningDrops = {"G*4b", "G*2b", "+G*3c", "+G*3d", "+G*3e"};
const char* kMicroDropWin = "k3/4/P3/4/3K b G 1";

bool isOneOf(const std::string& usi, const std::vector<std::string>& set) {
  return std::find(set.begin(), set.end(), usi) != set.end();
}

TEST(MctsSearch, FindsWinInOneWithUniformEvaluator) {
  Micro m;
  const Position pos = m.at(kMicroDropWin);
  const mcts::Tree tree = searched(m, pos, 128);
  const Move chosen = best(tree);
  EXPECT_TRUE(isOneOf(pos.moveToUsi(chosen), kMicroWinningDrops)) << pos.moveToUsi(chosen);
  EXPECT_TRUE(givesMate(pos, chosen));
  EXPECT_GT(tree.rootValue(), 0.5f) << "the win dominates the root value";
}

// Sente's knight (+P) on 3d jumps to 4b, capturing gote's pawn, and flips back to a pawn, which
// checks the king on 4a. The silver on 3c guards 4b (forward diagonal) and 3b (forward); the
// bishop on 1c covers 3a through 2b: mate. The flip is what mates: a knight on 4b would not
// attack 4a. It is the only mate: the silver taking on 4b flips to a lance and leaves 3b open,
// silver to 3b can be taken, and no other move checks.
TEST(MctsSearch, FindsCaptureMateThatNeedsTheFlip) {
  Micro m;
  const Position pos = m.at("k3/p3/1S1B/1+P2/3K b - 1");
  const mcts::Tree tree = searched(m, pos, 128);
  const Move chosen = best(tree);
  EXPECT_EQ(chosen, pos.parseUsi("3d4b"));
  EXPECT_TRUE(givesMate(pos, chosen)) << pos.moveToUsi(chosen);
}

// Sente's lone king on 2e has four legal moves (1d is covered by gote's pawn on 1c). Gote holds
// a gold. After K-1e, G*1d mates: the gold checks 1e (gote's forward is down), covers 2e
// (its forward diagonal) and 2d (sideways), and the pawn on 1c guards it. After 3e, 2d or 3d a
// single gold drop cannot mate. The search must see the reply and avoid 1e.
TEST(MctsSearch, AvoidsWalkingIntoMate) {
  Micro m;
  const Position pos = m.at("k3/4/3p/4/2K1 b g 1");
  const Move blunder = pos.parseUsi("2e1e");
  const mcts::Tree tree = searched(m, pos, 400);
  EXPECT_EQ(tree.rootChildren().size(), 4u);
  EXPECT_NE(best(tree), blunder);
  for (const auto& c : tree.rootChildren()) {
    if (c.move == blunder) {
      EXPECT_GT(c.visits, 0) << "the search looked at it";
      EXPECT_LT(c.q, -0.05f) << "and found the mate reply";
      continue;
    }
    for (const auto& b : tree.rootChildren())
      if (b.move == blunder) {
        EXPECT_GT(c.visits, b.visits);
        EXPECT_GT(c.q, b.q);
      }
  }
}

// Deferred leaf work (search threads: SearchDriver::setDeferLeafWork) runs the leaf mate search
// after gathering, outside the tree's lock. It must prove what the inline search proves, and a
// proven leaf must not go to the network.
TEST(MctsSearch, DeferredLeafWorkStillProvesMatesAndSkipsTheNetwork) {
  Micro m;
  {
    // kMicroDropWin with the root mate search off: the root is the first leaf, and its deferred
    // mate search proves it (a winning drop) before any network call.
    const Position pos = m.at(kMicroDropWin);
    CountingEvaluator eval(m.encoder.policySize());
    mcts::SearchDriver driver(eval, m.encoder, 16);
    driver.setDeferLeafWork(true);
    mcts::SearchParams params;
    params.rootMatePlies = 0;
    mcts::Tree tree(pos, params, 1);
    driver.search({&tree}, 64);
    EXPECT_TRUE(tree.rootIsProven());
    EXPECT_EQ(eval.calls, 0);
    EXPECT_TRUE(isOneOf(pos.moveToUsi(best(tree)), kMicroWinningDrops)) << pos.moveToUsi(best(tree));
  }
  // The position of AvoidsWalkingIntoMate: after 2e1e gote mates with G*1d. In 16 playouts,
  // one leaf at a time, only the leaf mate search proves that (the control without it does
  // not); deferred, it still does: the blunder is a proven loss in 2 plies.
  const Position pos = m.at("k3/4/3p/4/2K1 b g 1");
  const Move blunder = pos.parseUsi("2e1e");
  auto blunderMate = [&](bool defer, int leafMatePlies) {
    mcts::UniformEvaluator eval(m.encoder.policySize());
    mcts::SearchDriver driver(eval, m.encoder, 16);
    driver.setDeferLeafWork(defer);
    mcts::SearchParams params;
    params.rootMatePlies = 0;
    params.leavesPerTree = 1;
    params.leafMatePlies = leafMatePlies;
    mcts::Tree tree(pos, params, 1);
    driver.search({&tree}, 16);
    for (const auto& c : tree.rootChildren())
      if (c.move == blunder) return c.mate;
    return 999;
  };
  EXPECT_EQ(blunderMate(false, 0), 0) << "control: without the leaf mate search, 16 playouts prove nothing";
  EXPECT_EQ(blunderMate(false, 3), -2);
  EXPECT_EQ(blunderMate(true, 3), -2);
}

// After G*4b (see kMicroDropWin) gote is mated: the root is terminal, nothing is searched or picked.
TEST(MctsSearch, TerminalRootIsReportedAndNotSearched) {
  Micro m;
  Position pos = m.at(kMicroDropWin);
  pos.makeMove(pos.parseUsi("G*4b"));
  CountingEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 8);
  mcts::Tree tree(pos, {}, 1);
  EXPECT_TRUE(tree.rootIsTerminal());
  driver.search({&tree}, 64);
  EXPECT_EQ(eval.calls, 0);
  EXPECT_EQ(tree.rootVisits(), 0);
  EXPECT_TRUE(best(tree).isNone());
  EXPECT_FLOAT_EQ(tree.rootValue(), -1.0f) << "gote, to move, has lost";
  const auto wdl = tree.rootWdl();
  EXPECT_FLOAT_EQ(wdl[2], 1.0f);
  const auto policy = tree.visitPolicy(m.encoder);
  EXPECT_EQ(std::accumulate(policy.begin(), policy.end(), 0.0f), 0.0f);
}

// With a ply cap of 1 every child of the start position is a drawn game end: the search values
// them exactly and asks the network only about the root.
TEST(MctsSearch, PlyCapEndsAreScoredWithoutTheNetwork) {
  Micro m;
  mcts::SearchParams params;
  params.plyCap = 1;
  CountingEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 8);
  mcts::Tree tree(Position(m.variant), params, 1);
  driver.search({&tree}, 50);
  EXPECT_EQ(tree.rootVisits(), 50);
  EXPECT_EQ(eval.positions, 1);
  EXPECT_EQ(driver.stats().terminals, 49);
  EXPECT_NEAR(tree.rootWdl()[1], 1.0f, 1e-5f);
  tree.advance(best(tree));
  EXPECT_TRUE(tree.rootIsTerminal());
}

TEST(MctsSearch, VisitCountsSumToPlayouts) {
  Micro m;
  const mcts::Tree tree = searched(m, Position(m.variant), 128);
  EXPECT_EQ(tree.rootVisits(), 128);
  int sum = 0;
  for (const auto& c : tree.rootChildren()) sum += c.visits;
  EXPECT_EQ(sum, 127) << "one visit is the root's own evaluation";
  EXPECT_EQ(tree.rootChildren().size(), 9u) << "docs/RULES.md perft: 9 moves from the start";
}

// cpuct + growth * ln((N + base) / base), by hand: 1.5 + 0.45 ln((1500 + 500) / 500) = 1.5 + 0.45 ln 4
// = 1.5 + 0.45 * 1.386294 = 2.123832; at growth 0 the constant whatever N.
TEST(MctsSearch, CpuctGrowsWithTheVisitsOfTheNode) {
  Micro m;
  mcts::SearchParams p;
  p.cpuct = 1.5f;
  EXPECT_FLOAT_EQ(mcts::Tree(Position(m.variant), p, 1).cpuctAt(1500), 1.5f);
  p.cpuctGrowth = 0.45f;
  p.cpuctBase = 500;
  const mcts::Tree tree(Position(m.variant), p, 1);
  EXPECT_NEAR(tree.cpuctAt(1500), 2.123832f, 1e-5);
  EXPECT_NEAR(tree.cpuctAt(0), 1.5f, 1e-6);
}

// Growth widens a long search. With the uniform network every value is a draw (Q near 0), so an
// unvisited move, valued at the parent's Q less the FPU reduction (1 x sqrt(k / 9) once k of the
// 9 first moves of prior 1/9 are visited), is tried only when c sqrt(N) / 9 - sqrt(k / 9) beats a
// visited move's c sqrt(N) / (9 (1 + n)). By hand: with c = 0.05 a second move needs
// 0.05 sqrt(N) / 9 > 1/3 at least, N > 3,600, so 64 playouts stay on the first move; with growth 5
// and base 1, c = 0.05 + 5 ln(N + 1) is 11.6 at N = 9, where c sqrt(N) / 18 = 1.9 > sqrt(k / 9)
// for every k < 9: all 9 moves are tried.
TEST(MctsSearch, CpuctGrowthVisitsMoreMovesInALongSearch) {
  Micro m;
  mcts::SearchParams p;
  p.cpuct = 0.05f;
  p.fpuReduction = 1.0f;
  p.rootMatePlies = 0;
  p.leafMatePlies = 0;
  p.leavesPerTree = 1;
  auto visitedMoves = [&](const mcts::SearchParams& params) {
    const mcts::Tree tree = searched(m, Position(m.variant), 64, params);
    int visited = 0;
    for (const auto& c : tree.rootChildren()) visited += c.visits > 0;
    return visited;
  };
  const int fixed = visitedMoves(p);
  p.cpuctGrowth = 5.0f;
  p.cpuctBase = 1.0f;
  const int grown = visitedMoves(p);
  EXPECT_EQ(fixed, 1);
  EXPECT_EQ(grown, 9);
}

TEST(MctsSearch, TreeReuseKeepsTheChosenSubtree) {
  Micro m;
  CountingEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 16);
  mcts::Tree tree(Position(m.variant), {}, 1);
  driver.search({&tree}, 200);
  const Move move = best(tree);
  int kept = 0;
  for (const auto& c : tree.rootChildren())
    if (c.move == move) kept = c.visits;
  ASSERT_GT(kept, 1);
  tree.advance(move);
  EXPECT_EQ(tree.rootVisits(), kept);
  EXPECT_EQ(tree.rootPosition().gamePly(), 1);
  int below = 0;
  for (const auto& c : tree.rootChildren()) below += c.visits;
  EXPECT_EQ(below, kept - 1);
  const int before = eval.positions;
  driver.search({&tree}, 200);
  EXPECT_EQ(tree.rootVisits(), 200);
  EXPECT_LE(eval.positions - before, 200 - kept) << "kept visits are not searched again";

  // A move that was never searched starts a fresh tree.
  mcts::Tree fresh(Position(m.variant), {}, 1);
  driver.search({&fresh}, 2);  // the root and one child
  for (const auto& c : fresh.rootChildren())
    if (c.visits == 0) {
      fresh.advance(c.move);
      EXPECT_EQ(fresh.rootVisits(), 0);
      EXPECT_TRUE(fresh.rootChildren().empty());
      break;
    }
  EXPECT_THROW(fresh.advance(Move::board(0, 0, false)), std::invalid_argument);
}

TEST(MctsSearch, BatchingGivesEveryTreeItsPlayouts) {
  Micro m;
  CountingEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 64);
  std::vector<mcts::Tree> trees;
  trees.reserve(24);
  std::mt19937 rng(5);
  mcts::RandomPlayer random(3);
  for (int i = 0; i < 24; ++i) {
    Position pos(m.variant);
    for (int ply = 0; ply < i % 7; ++ply) pos.makeMove(random.choose(pos));
    trees.emplace_back(pos, mcts::SearchParams{}, uint64_t(i));
  }
  std::vector<mcts::Tree*> ptrs;
  for (auto& t : trees) ptrs.push_back(&t);
  driver.search(ptrs, 100);
  for (const auto& t : trees) EXPECT_EQ(t.rootVisits(), 100);
  EXPECT_EQ(driver.stats().batches, eval.calls);
  EXPECT_EQ(driver.stats().evaluations, eval.positions);
  std::printf("24 trees: %d evaluator calls, %d positions, largest batch %d, %lld collisions\n", eval.calls,
              eval.positions, eval.largestBatch, static_cast<long long>(driver.stats().collisions));
  // 24 trees x 4 leaves per tree (SearchParams::leavesPerTree) are more than the batch of 64
  // holds, so with virtual loss steering each tree's descents apart the batch is full.
  EXPECT_EQ(eval.largestBatch, 64) << "leaves of several trees and several per tree per call";
  EXPECT_GT(eval.positions, eval.calls * 50) << "batches average more than 50 positions";
  // A descent that meets a leaf already in the batch is wasted. Virtual loss keeps them rare
  // (about 3% of the evaluations here); without it most descents of a tree collide.
  EXPECT_LE(driver.stats().collisions, eval.positions / 20) << "collisions at most 5% of the evaluations";
}

TEST(MctsSearch, VisitPolicySumsToOneOverLegalMovesOnly) {
  Micro m;
  Position pos(m.variant);
  mcts::RandomPlayer random(9);
  for (int i = 0; i < 12; ++i) pos.makeMove(random.choose(pos));
  ASSERT_FALSE(pos.outcome().over());
  const mcts::Tree tree = searched(m, pos, 150);
  const auto policy = tree.visitPolicy(m.encoder);
  ASSERT_EQ(int(policy.size()), m.encoder.policySize());
  game::MoveList legal;
  pos.generateLegal(legal);
  std::vector<bool> isLegal(policy.size(), false);
  for (const Move& mv : legal) isLegal[size_t(m.encoder.moveIndex(pos, mv))] = true;
  double sum = 0;
  for (size_t i = 0; i < policy.size(); ++i) {
    if (!isLegal[i]) {
      EXPECT_EQ(policy[i], 0.0f) << "index " << i;
    }
    EXPECT_GE(policy[i], 0.0f);
    sum += policy[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-5);
  for (const auto& c : tree.rootChildren())
    EXPECT_NEAR(policy[size_t(m.encoder.moveIndex(pos, c.move))], c.visits / 149.0, 1e-5);
}

TEST(MctsSearch, RootNoiseChangesPriorsButKeepsADistribution) {
  Micro m;
  mcts::SearchParams params;
  params.rootNoise = true;
  const mcts::Tree tree = searched(m, Position(m.variant), 32, params, 77);
  float sum = 0, spread = 0;
  for (const auto& c : tree.rootChildren()) {
    sum += c.prior;
    spread = std::max(spread, std::fabs(c.prior - 1.0f / 9.0f));
  }
  EXPECT_NEAR(sum, 1.0f, 1e-4f);
  EXPECT_GT(spread, 1e-3f);
}

TEST(MctsSearch, RootNoiseIsReappliedToAReusedRoot) {
  Micro m;
  mcts::SearchParams params;
  params.rootNoise = true;
  mcts::UniformEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 16);
  mcts::Tree tree(Position(m.variant), params, 5);
  driver.search({&tree}, 300);
  tree.advance(best(tree));
  ASSERT_GT(tree.rootVisits(), 1) << "the subtree was kept";
  // Below the old root the priors were the uniform network's; the new root gets fresh noise.
  const auto children = tree.rootChildren();
  float sum = 0, spread = 0;
  for (const auto& c : children) {
    sum += c.prior;
    spread = std::max(spread, std::fabs(c.prior - 1.0f / float(children.size())));
  }
  EXPECT_NEAR(sum, 1.0f, 1e-4f);
  EXPECT_GT(spread, 1e-3f);
}

TEST(MctsSearch, SameSeedSameSearch) {
  Micro m;
  mcts::SearchParams params;
  params.rootNoise = true;
  const mcts::Tree a = searched(m, Position(m.variant), 200, params, 42);
  const mcts::Tree b = searched(m, Position(m.variant), 200, params, 42);
  const auto ca = a.rootChildren(), cb = b.rootChildren();
  ASSERT_EQ(ca.size(), cb.size());
  for (size_t i = 0; i < ca.size(); ++i) {
    EXPECT_EQ(ca[i].visits, cb[i].visits);
    EXPECT_EQ(ca[i].prior, cb[i].prior);
  }
}

// Kings step out and back (1e-2d, 4a-3b, 2d-1e, 3b-4a) three times: the start position occurs
// for the fourth time, a draw (docs/RULES.md; no move gave check). The tree must see the game's
// history: from the same board without history the game goes on.
TEST(MctsSearch, RepetitionCountsTheGameSoFar) {
  Micro m;
  Position pos(m.variant);
  for (int lap = 0; lap < 3; ++lap)
    for (const char* mv : {"1e2d", "4a3b", "2d1e", "3b4a"}) pos.makeMove(pos.parseUsi(mv));
  const mcts::Tree repeated(pos, {}, 1);
  EXPECT_TRUE(repeated.rootIsTerminal());
  EXPECT_FLOAT_EQ(repeated.rootWdl()[1], 1.0f);
  const mcts::Tree fresh(m.at(pos.sfen()), {}, 1);
  EXPECT_FALSE(fresh.rootIsTerminal());
}

// After 1e2d 4a3b 2d1e (sente's king out and back is 1e2d 2d1e, gote's 4a3b), gote's 3b4a
// brings back the start position with sente to move: a repetition (second occurrence), not yet
// the rules' fourth. With repetitionContempt the search scores that move as a draw worth -c to
// gote without asking the network; without it, the move is an ordinary leaf.
TEST(MctsSearch, RepetitionContemptScoresAMoveBackAsADrawTheMoverDislikes) {
  Micro m;
  Position pos(m.variant);
  for (const char* mv : {"1e2d", "4a3b", "2d1e"}) pos.makeMove(pos.parseUsi(mv));
  const Move back = pos.parseUsi("3b4a");
  const auto statOf = [&](const mcts::Tree& tree) {
    for (const auto& c : tree.rootChildren())
      if (c.move == back) return c;
    ADD_FAILURE() << "3b4a is not a root move";
    return mcts::Tree::ChildStat{};
  };
  mcts::SearchParams params;
  params.repetitionContempt = 0.4f;
  CountingEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 8);
  mcts::Tree tree(pos, params, 1);
  driver.search({&tree}, 200);
  const auto scored = statOf(tree);
  ASSERT_GT(scored.visits, 0);
  EXPECT_NEAR(scored.q, -0.4f, 1e-5f);
  EXPECT_NEAR(scored.draw, 1.0f, 1e-5f);
  // Played anyway, the move leaves a root that is not a game end and is searched afresh.
  tree.advance(back);
  EXPECT_FALSE(tree.rootIsTerminal());
  EXPECT_EQ(tree.rootVisits(), 0);
  driver.search({&tree}, 20);
  EXPECT_EQ(tree.rootVisits(), 20);

  const mcts::Tree plain = searched(m, pos, 200);
  const auto ordinary = statOf(plain);
  ASSERT_GT(ordinary.visits, 1);
  EXPECT_GT(ordinary.q, -0.2f) << "without contempt the move is valued by the (uniform, drawish) network";
}

TEST(MctsSearch, TemperatureSamplesOnlyVisitedMoves) {
  Micro m;
  const Position pos = m.at(kMicroDropWin);
  // Without the solver: with it, the root mate search proves this position before any playout
  // and the proven move is played unvisited (tests/test_mate_search.cpp).
  mcts::SearchParams plain;
  plain.solver = false;
  const mcts::Tree tree = searched(m, pos, 64, plain);
  std::mt19937 rng(4);
  for (int i = 0; i < 50; ++i) {
    const Move mv = tree.pickMove(1.0f, rng);
    bool visited = false;
    for (const auto& c : tree.rootChildren())
      if (c.move == mv) visited = c.visits > 0;
    EXPECT_TRUE(visited);
  }
}

TEST(EvalCache, StoresLooksUpAndReplaces) {
  mcts::EvalCache cache(4, 8);
  const float priors[3] = {0.2f, 0.3f, 0.5f}, wdl[3] = {0.1f, 0.6f, 0.3f};
  float p[8], w[3];
  EXPECT_FALSE(cache.lookup(42, 3, p, w));
  cache.store(42, 3, priors, wdl);
  ASSERT_TRUE(cache.lookup(42, 3, p, w));
  EXPECT_EQ(p[2], 0.5f);
  EXPECT_EQ(w[1], 0.6f);
  EXPECT_FALSE(cache.lookup(42, 4, p, w)) << "a different move count is a different position";
  cache.store(42 + 16, 3, priors, wdl);  // same slot of 16
  EXPECT_FALSE(cache.lookup(42, 3, p, w));
  EXPECT_TRUE(cache.lookup(42 + 16, 3, p, w));
  const float many[9] = {};
  cache.store(7, 9, many, wdl);  // more moves than a slot holds: not cached
  EXPECT_EQ(cache.skipped(), 1);
  EXPECT_EQ(cache.hits(), 2);
  EXPECT_EQ(cache.misses(), 3);
}

TEST(EvalCache, RepeatedPositionSkipsTheNetwork) {
  Micro m;
  mcts::EvalCache cache(12);
  CountingEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 16, &cache);
  mcts::Tree first(Position(m.variant), {}, 1);
  driver.search({&first}, 100);
  const int firstCalls = eval.positions;
  mcts::Tree second(Position(m.variant), {}, 1);
  driver.search({&second}, 100);
  EXPECT_GT(cache.hits(), 0);
  EXPECT_EQ(driver.stats().cacheHits, cache.hits());
  EXPECT_LT(eval.positions - firstCalls, firstCalls / 2) << "the same search again is mostly cached";
  EXPECT_EQ(second.rootVisits(), 100);
}

TEST(RolloutPlayer, FindsWinInOne) {
  Micro m;
  const Position pos = m.at(kMicroDropWin);
  mcts::RolloutPlayer player(400, 1);
  const Move chosen = player.choose(pos);
  EXPECT_TRUE(isOneOf(pos.moveToUsi(chosen), kMicroWinningDrops)) << pos.moveToUsi(chosen);
}

// The classic baseline must be clearly stronger than random moves: 20 micro games, colours
// alternating, the game ends judged by Position::outcome with the 200-ply cap.
TEST(RolloutPlayer, BeatsRandomPlayer) {
  Micro m;
  int wins = 0, draws = 0;
  for (int game = 0; game < 20; ++game) {
    mcts::RolloutPlayer rollout(100, uint64_t(game) + 1);
    mcts::RandomPlayer random(uint64_t(game) + 1000);
    const game::Color rolloutColor = game % 2;
    Position pos(m.variant);
    game::Outcome o;
    while (!(o = pos.outcome(200)).over())
      pos.makeMove(pos.sideToMove() == rolloutColor ? rollout.choose(pos) : random.choose(pos));
    if (o.winner == rolloutColor) ++wins;
    if (o.draw()) ++draws;
  }
  EXPECT_GE(wins, 14) << "draws " << draws;
  std::printf("rollout player vs random: %d wins, %d draws of 20\n", wins, draws);
}

TEST(RandomPlayer, PlaysLegalMovesAndNoneAtTheEnd) {
  Micro m;
  mcts::RandomPlayer random(1);
  Position pos = m.at(kMicroDropWin);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(pos.isLegal(random.choose(pos)));
  pos.makeMove(pos.parseUsi("G*4b"));
  EXPECT_TRUE(random.choose(pos).isNone());
}
