// Gumbel root selection with sequential halving (mcts/gumbel_root.h). Expected numbers are
// worked out by hand from the paper's definitions (Danihelka et al., ICLR 2022, sections 3-4
// and appendix D: sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q rescaled to [0, 1];
// v_mix; the improved policy softmax(logits + sigma(completed q))), written beside each test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/evaluator.h"
#include "mcts/gumbel_root.h"
#include "mcts/search.h"
#include "nn/encoder.h"

using namespace poppy;
using mcts::GumbelChild;
using mcts::GumbelParams;
using mcts::GumbelRoot;

namespace {

GumbelChild row(float prior, int visits, float q, bool excluded = false) {
  GumbelChild c;
  c.prior = prior;
  c.visits = visits;
  c.q = q;
  c.excluded = excluded;
  return c;
}

// Runs `simulations` playouts through GumbelRoot::select on a root whose move i is worth
// value[i] (root side's view) every time it is visited; returns the visits per move.
std::vector<int> halve(GumbelRoot& root, std::vector<GumbelChild> children, const std::vector<float>& value,
                       int simulations) {
  for (int k = 0; k < simulations; ++k) {
    const int i = root.select(children);
    EXPECT_GE(i, 0);
    if (i < 0) break;
    GumbelChild& c = children[size_t(i)];
    c.q = (c.q * float(c.visits) + value[size_t(i)]) / float(c.visits + 1);
    ++c.visits;
  }
  std::vector<int> visits;
  for (const GumbelChild& c : children) visits.push_back(c.visits);
  return visits;
}

}  // namespace

TEST(GumbelSchedule, SequentialHalvingByHand) {
  // 16 moves, 32 playouts: ceil(log2 16) = 4 phases. Phase 1: 16 moves get max(1, 32 / (4 * 16))
  // = 1 visit each (16 playouts at visit count 0); phase 2: 8 moves get 32 / (4 * 8) = 1 each
  // (8 playouts at count 1); phase 3: 4 moves get 32 / (4 * 4) = 2 each (counts 2 then 3):
  // 16 + 8 + 8 = 32.
  std::vector<int> expected(16, 0);
  expected.insert(expected.end(), 8, 1);
  expected.insert(expected.end(), {2, 2, 2, 2, 3, 3, 3, 3});
  EXPECT_EQ(mcts::sequentialHalvingSchedule(16, 32), expected);
  // 4 moves, 8 playouts: 2 phases; 4 moves x 1 visit (8 / 8), then 2 moves x 2 visits (8 / 4).
  EXPECT_EQ(mcts::sequentialHalvingSchedule(4, 8), (std::vector<int>{0, 0, 0, 0, 1, 1, 2, 2}));
  // 3 moves, 10 playouts: 2 phases; 3 x max(1, 10 / 6) = 3 x 1, then 2 x (10 / 4) = 2 x 2, then
  // the last phase repeats (2 moves at the least): 3 + 4 = 7, 3 more at counts 3, 3, 4.
  EXPECT_EQ(mcts::sequentialHalvingSchedule(3, 10), (std::vector<int>{0, 0, 0, 1, 1, 2, 2, 3, 3, 4}));
  // One move takes every playout.
  EXPECT_EQ(mcts::sequentialHalvingSchedule(1, 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_THROW(mcts::sequentialHalvingSchedule(0, 4), std::invalid_argument);
}

TEST(GumbelRoot, CompletedQSigmaAndImprovedPolicyByHand) {
  // Priors 0.5, 0.25, 0.25; visits 2, 1, 0; q 0.2, -0.4; the network values the root 0.1.
  // v_mix = (0.1 + 3 / 0.75 * (0.5 * 0.2 + 0.25 * -0.4)) / (1 + 3) = 0.1 / 4 = 0.025.
  // Completed q = (0.2, -0.4, 0.025), rescaled by (q + 0.4) / 0.6 = (1, 0, 0.708333);
  // sigma = (50 + 2) * 0.1 * that = (5.2, 0, 3.683333).
  // Improved policy ~ prior * exp(sigma) = (90.636, 0.25, 9.9430) / 100.829
  //                 = (0.898893, 0.002479, 0.098628).
  GumbelRoot root;
  root.start({0.0f, 0.0f, 0.0f}, 8, 0.1f, GumbelParams{});
  const std::vector<GumbelChild> children = {row(0.5f, 2, 0.2f), row(0.25f, 1, -0.4f), row(0.25f, 0, 0.0f)};
  const std::vector<float> q = root.completedQ(children);
  EXPECT_NEAR(q[0], 0.2f, 1e-6);
  EXPECT_NEAR(q[1], -0.4f, 1e-6);
  EXPECT_NEAR(q[2], 0.025f, 1e-6);
  const std::vector<float> sigma = root.sigma(children);
  EXPECT_NEAR(sigma[0], 5.2f, 1e-5);
  EXPECT_NEAR(sigma[1], 0.0f, 1e-6);
  EXPECT_NEAR(sigma[2], 3.683333f, 1e-5);
  std::vector<double> policy;
  root.improvedPolicy(children, policy);
  ASSERT_EQ(policy.size(), 3u);
  EXPECT_NEAR(policy[0], 0.898893, 1e-5);
  EXPECT_NEAR(policy[1], 0.002479, 1e-5);
  EXPECT_NEAR(policy[2], 0.098628, 1e-5);
}

TEST(GumbelRoot, NoVisitsMeansTheNetworkValueAndNoSigma) {
  // Before any visit every completed q is the network's value: the rescaling has no range, so
  // sigma is 0 and the improved policy is the prior.
  GumbelRoot root;
  root.start({0.0f, 0.0f}, 4, -0.3f, GumbelParams{});
  const std::vector<GumbelChild> children = {row(0.7f, 0, 0.0f), row(0.3f, 0, 0.0f)};
  EXPECT_EQ(root.completedQ(children), (std::vector<float>{-0.3f, -0.3f}));
  std::vector<double> policy;
  root.improvedPolicy(children, policy);
  EXPECT_NEAR(policy[0], 0.7, 1e-6);
  EXPECT_NEAR(policy[1], 0.3, 1e-6);
}

TEST(GumbelRoot, SequentialHalvingKeepsTheBetterHalf) {
  // Four moves of equal prior, Gumbel draws (0.3, 1.0, -0.5, 0), each move worth a fixed value
  // (0.5, -0.2, 0.1, 0): 8 playouts, schedule (0, 0, 0, 0, 1, 1, 2, 2).
  // Phase 1 (no visits: sigma 0) takes the moves in order of g: 1, 0, 3, 2.
  // Then q = (0.5, -0.2, 0.1, 0), rescaled (1, 0, 0.4286, 0.2857), sigma = 5.1 x that =
  // (5.1, 0, 2.186, 1.457); g + sigma = (5.4, 1.0, 1.686, 1.457): moves 0 and 2 survive and get
  // two more visits each. Visits (3, 1, 3, 1); the move played is 0 (most visits, best score).
  GumbelParams params;
  params.considered = 4;
  GumbelRoot root;
  root.start({0.3f, 1.0f, -0.5f, 0.0f}, 8, 0.0f, params);
  const std::vector<GumbelChild> fresh(4, row(0.25f, 0, 0.0f));
  std::vector<GumbelChild> children = fresh;
  // The first four playouts, one at a time, in order of g.
  std::vector<int> order;
  for (int k = 0; k < 4; ++k) {
    const int i = root.select(children);
    order.push_back(i);
    children[size_t(i)].inFlight = 1;  // on its way down: counts as a visit to come
  }
  EXPECT_EQ(order, (std::vector<int>{1, 0, 3, 2}));
  const std::vector<float> value = {0.5f, -0.2f, 0.1f, 0.0f};
  children = fresh;
  const std::vector<int> visits = halve(root, children, value, 8);
  EXPECT_EQ(visits, (std::vector<int>{3, 1, 3, 1}));
  for (size_t i = 0; i < 4; ++i) {
    children[i].visits = visits[i];
    children[i].q = visits[i] > 0 ? value[i] : 0.0f;
  }
  EXPECT_EQ(root.choice(children), 0);
}

TEST(GumbelRoot, OnlyTheConsideredMovesAreSearched) {
  // m = 2 of 5 moves: the two best by g + logit. Logits log(0.1), log(0.4), log(0.2), log(0.2),
  // log(0.1); g (2.0, 0, 0, 0.2, 0): g + logit = (-0.30, -0.92, -1.61, -1.41, -2.30) so moves 0
  // and 1, though move 1 alone has the highest prior; 6 playouts, all to them (3 each).
  GumbelParams params;
  params.considered = 2;
  GumbelRoot root;
  root.start({2.0f, 0.0f, 0.0f, 0.2f, 0.0f}, 6, 0.0f, params);
  const std::vector<GumbelChild> children = {row(0.1f, 0, 0), row(0.4f, 0, 0), row(0.2f, 0, 0), row(0.2f, 0, 0),
                                             row(0.1f, 0, 0)};
  EXPECT_EQ(halve(root, children, {0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, 6), (std::vector<int>{3, 3, 0, 0, 0}));
}

TEST(GumbelRoot, ExcludedMovesAreNeverSearchedPlayedOrTrained) {
  // Move 0 is proven lost: its huge g does not matter. The others share the playouts; past the
  // schedule the two most visited take turns.
  GumbelParams params;
  params.considered = 3;
  GumbelRoot root;
  root.start({9.0f, 0.0f, 0.5f}, 4, 0.0f, params);
  std::vector<GumbelChild> children = {row(0.4f, 0, 0, true), row(0.3f, 0, 0), row(0.3f, 0, 0)};
  const std::vector<int> visits = halve(root, children, {0.0f, 0.2f, -0.2f}, 12);
  EXPECT_EQ(visits[0], 0);
  EXPECT_EQ(visits[1] + visits[2], 12);
  EXPECT_LE(std::abs(visits[1] - visits[2]), 1);
  for (size_t i = 0; i < 3; ++i) children[i].visits = visits[i];
  children[1].q = 0.2f;
  children[2].q = -0.2f;
  EXPECT_NE(root.choice(children), 0);
  std::vector<double> policy;
  root.improvedPolicy(children, policy);
  EXPECT_EQ(policy[0], 0.0);
  EXPECT_NEAR(policy[1] + policy[2], 1.0, 1e-9);
  EXPECT_GT(policy[1], policy[2]);  // equal priors: the better value gets more
}

TEST(GumbelRoot, TheFirstChoiceSamplesThePrior) {
  // The Gumbel-max trick: with no visits (sigma 0), argmax of g + log(prior) over Gumbel(0, 1)
  // draws is a sample from the prior. 20,000 fresh roots with priors (0.6, 0.3, 0.1): each
  // frequency is within 0.015 of its prior (about 4 standard deviations of 0.0035).
  std::mt19937_64 rng(5);
  const std::vector<GumbelChild> children = {row(0.6f, 0, 0), row(0.3f, 0, 0), row(0.1f, 0, 0)};
  std::vector<int> chosen(3, 0);
  const int n = 20000;
  GumbelRoot root;
  for (int k = 0; k < n; ++k) {
    root.start(3, 8, 0.0f, GumbelParams{}, rng);
    ++chosen[size_t(root.choice(children))];
  }
  EXPECT_NEAR(chosen[0] / double(n), 0.6, 0.015);
  EXPECT_NEAR(chosen[1] / double(n), 0.3, 0.015);
  EXPECT_NEAR(chosen[2] / double(n), 0.1, 0.015);
}

// ---- The search with a Gumbel root (mcts::Tree) ----

namespace {

struct Micro {
  game::VariantPtr variant = game::loadVariant("micro");
  nn::Encoder encoder{variant};
};

mcts::SearchParams gumbelParams(int considered, int playouts) {
  mcts::SearchParams p;
  p.rootNoise = true;
  p.gumbelConsidered = considered;
  p.playouts = playouts;
  p.rootMatePlies = 0;
  return p;
}

}  // namespace

TEST(GumbelSearch, RootVisitsFollowTheSchedule) {
  // Micro's start has more than 4 moves. 9 playouts: the root's own, then 8 below it shared
  // (0, 0, 0, 0, 1, 1, 2, 2) among 4 sampled moves: visits 3, 3, 1, 1 and none elsewhere,
  // whether leaves are gathered one or four at a time.
  Micro m;
  const game::Position start(m.variant);
  for (int leaves : {1, 4}) {
    mcts::UniformEvaluator eval(m.encoder.policySize());
    mcts::SearchDriver driver(eval, m.encoder, 16);
    mcts::SearchParams params = gumbelParams(4, 9);
    params.leavesPerTree = leaves;
    mcts::Tree tree(start, params, 3);
    driver.search({&tree}, 9);
    std::vector<int> visits;
    for (const auto& c : tree.rootChildren()) visits.push_back(c.visits);
    ASSERT_GT(visits.size(), 4u);
    std::sort(visits.rbegin(), visits.rend());
    EXPECT_EQ(std::vector<int>(visits.begin(), visits.begin() + 5), (std::vector<int>{3, 3, 1, 1, 0})) << leaves;
    // The move played is one of the two searched most; the target is a distribution over legal moves.
    std::mt19937 rng(0);
    const game::Move played = tree.pickMove(0.0f, rng);
    int playedVisits = -1;
    for (const auto& c : tree.rootChildren())
      if (c.move == played) playedVisits = c.visits;
    EXPECT_EQ(playedVisits, 3);
    const std::vector<float> target = tree.visitPolicy(m.encoder);
    EXPECT_NEAR(std::accumulate(target.begin(), target.end(), 0.0), 1.0, 1e-5);
    game::MoveList legal;
    start.generateLegal(legal);
    int nonZero = 0;
    for (float p : target) nonZero += p > 0;
    EXPECT_EQ(nonZero, int(legal.size()));  // unvisited moves keep their prior's share
  }
}

TEST(GumbelSearch, DifferentSeedsSampleDifferentMoves) {
  // The Gumbel draw is self-play's exploration: with a uniform prior, the move played varies
  // with the tree's seed.
  Micro m;
  const game::Position start(m.variant);
  mcts::UniformEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 16);
  std::vector<game::Move> played;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    mcts::Tree tree(start, gumbelParams(4, 9), seed);
    driver.search({&tree}, 9);
    std::mt19937 rng(0);
    played.push_back(tree.pickMove(0.0f, rng));
  }
  std::vector<game::Move> distinct;
  for (const game::Move& mv : played)
    if (std::find(distinct.begin(), distinct.end(), mv) == distinct.end()) distinct.push_back(mv);
  EXPECT_GE(distinct.size(), 3u);
}

TEST(GumbelSearch, AGumbelRootIsSearchedAfreshAfterEachMove) {
  // Sequential halving counts one search's visits from none: advance() drops the subtree that
  // PUCT would keep.
  Micro m;
  const game::Position start(m.variant);
  mcts::UniformEvaluator eval(m.encoder.policySize());
  mcts::SearchDriver driver(eval, m.encoder, 16);
  mcts::Tree tree(start, gumbelParams(4, 33), 1);
  driver.search({&tree}, 33);
  std::mt19937 rng(0);
  const game::Move move = tree.pickMove(0.0f, rng);
  int searchedVisits = 0;
  for (const auto& c : tree.rootChildren())
    if (c.move == move) searchedVisits = c.visits;
  ASSERT_GT(searchedVisits, 1);
  tree.advance(move);
  EXPECT_EQ(tree.rootVisits(), 0);
  // Without root noise the same tree is PUCT and keeps the subtree.
  mcts::Tree plain(start, gumbelParams(4, 33), 1);
  plain.setRootNoise(false);
  driver.search({&plain}, 33);
  const game::Move best = plain.pickMove(0.0f, rng);
  plain.advance(best);
  EXPECT_GT(plain.rootVisits(), 0);
}

TEST(GumbelSearch, AProvenWinIsPlayedAndTrainedOn) {
  // Gote's lone king on 4a, sente's pawn on 4c, sente holds a gold (test_mcts.cpp derives the
  // five winning drops: G*4b mates, G*2b, +G*3c, +G*3d and +G*3e stalemate). The leaf mate
  // search is off, so the proofs come from the playouts that reach those game ends; the solver
  // then plays a win whatever the Gumbel draws say, and the training target is that move alone.
  Micro m;
  const game::Position pos = game::Position::fromSfen(m.variant, "k3/4/P3/4/3K b G 1");
  const std::vector<std::string> wins = {"G*4b", "G*2b", "+G*3c", "+G*3d", "+G*3e"};
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    mcts::UniformEvaluator eval(m.encoder.policySize());
    mcts::SearchDriver driver(eval, m.encoder, 16);
    mcts::SearchParams params = gumbelParams(16, 32);
    params.leafMatePlies = 0;
    mcts::Tree tree(pos, params, seed);
    driver.search({&tree}, 32);
    EXPECT_GT(tree.rootVisits(), 1);  // searched, not proven before the first playout
    std::mt19937 rng(0);
    const game::Move move = tree.pickMove(0.0f, rng);
    EXPECT_NE(std::find(wins.begin(), wins.end(), pos.moveToUsi(move)), wins.end()) << pos.moveToUsi(move);
    const std::vector<float> target = tree.visitPolicy(m.encoder);
    EXPECT_FLOAT_EQ(target[size_t(m.encoder.moveIndex(pos, move))], 1.0f);
  }
}
