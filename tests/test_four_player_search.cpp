// The searches for more than two players (max-n, mcts/player_scores.h: the PUCT search and the
// rollout MCTS) on yonin shogi: each node chooses for the player to move there, by that player's
// own expected score. Positions are built by hand; the expected moves are reasoned from the
// rules in docs/RULES.md "Yonin shogi", never taken from the engine's output. Squares are USI
// (south moves towards rank a, west towards file 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/eval_cache.h"
#include "mcts/evaluator.h"
#include "mcts/player_scores.h"
#include "mcts/rollout_player.h"
#include "mcts/search.h"
#include "nn/encoder.h"
#include "support/position_helpers.h"

using namespace poppy;
using game::Move;
using game::Position;

namespace {

struct Yonin {
  game::VariantPtr variant = game::loadVariant("yonin");
  nn::Encoder encoder{variant};
  Position at(const std::map<std::string, std::string>& pieces, char side, const std::string& hands,
              const std::string& controllers) const {
    return Position::fromSfen(variant, poppy::testing::boardSfen(*variant, pieces) + " " + side + " " + hands + " 1 " +
                                           controllers);
  }
};

mcts::SearchParams params() {
  mcts::SearchParams p;
  p.plyCap = 0;
  return p;
}

// Searches with the uniform evaluator (every position a draw among the players still in).
mcts::Tree searched(const Yonin& y, const Position& pos, int playouts, mcts::EvalCache* cache = nullptr) {
  mcts::UniformEvaluator eval(y.encoder.policySize(), mcts::valueSize(4));
  mcts::SearchDriver driver(eval, y.encoder, 16, cache);
  mcts::Tree tree(pos, params(), 3);
  driver.search({&tree}, playouts);
  return tree;
}

const mcts::Tree::ChildStat& child(const std::vector<mcts::Tree::ChildStat>& children, const Position& pos,
                                   const std::string& usi) {
  const Move m = pos.parseUsi(usi);
  for (const auto& c : children)
    if (c.move == m) return c;
  throw std::runtime_error("no root child " + usi);
}

Move mostVisited(const mcts::Tree& tree) {
  std::mt19937 rng(0);
  return tree.pickMove(0.0f, rng);
}

// South has mated west already (west's king turned on 9a, its army south's). North's king on
// 1a: south's gold 2c2b checks it (forward diagonal), covers 2a and 1b, and the silver on 3c
// guards 2b. North has no other piece: mated, and south, with three armies, wins. Any other
// move leaves three players in, each worth a third to the uniform evaluator.
Position southWinsInOne(const Yonin& y) {
  return y.at({{"5i", "sK"}, {"9a", "wX"}, {"1a", "nK"}, {"1h", "eK"}, {"2c", "sG"}, {"3c", "sS"}}, 's', "-", "ssne");
}

// Below the root each node chooses for its own player: west, moving next, would mate south
// (its second mate, a win: it already controls north's army) with its gold 9g9h, guarded by
// the rook on 7h along rank h, if south's silver left 8h: the silver blocks the rook, and
// without the rook's guard the king takes the gold. South must see west's choice: keep the
// silver on 8h, or take the gold with it (8h9g).
Position silverGuardsTheKing(const Yonin& y) {
  return y.at({{"9i", "sK"}, {"8h", "sS"}, {"9g", "wG"}, {"9c", "wK"}, {"7h", "wR"}, {"5a", "nX"}, {"1e", "eK"}}, 's',
              "-", "swwe");
}

// Whatever south plays in silverGuardsTheKing, west must have no mate of south after it.
void expectNoReplyMatesSouth(const Position& pos, Move chosen) {
  Position after = pos;
  after.makeMove(chosen);
  game::MoveList replies;
  after.generateLegal(replies);
  for (const Move& r : replies) {
    after.makeMove(r);
    EXPECT_FALSE(after.isOut(0)) << "south played " << pos.moveToUsi(chosen) << ", then west " << after.moveToUsi(r);
    after.unmakeMove();
  }
}

}  // namespace

TEST(FourPlayerScores, EvaluatorAnswersBecomeScoresOfThePlayersStillIn) {
  // West (1) to move; south (0) is out. Answer: west .4, north .2, east .1, south .1, draw .2.
  const float values[5] = {0.4f, 0.2f, 0.1f, 0.1f, 0.2f};
  float scores[4], draw;
  mcts::scoresFromValues(4, 1, 0b0001, values, scores, draw);
  // South's .1 is spread over the rest in proportion: total .9 -> west .4/.9, draw .2/.9, and
  // the draw shared by the three still in.
  EXPECT_FLOAT_EQ(draw, 0.2f / 0.9f);
  EXPECT_FLOAT_EQ(scores[0], 0.0f);
  EXPECT_FLOAT_EQ(scores[1], 0.4f / 0.9f + draw / 3);
  EXPECT_FLOAT_EQ(scores[2], 0.2f / 0.9f + draw / 3);
  EXPECT_FLOAT_EQ(scores[3], 0.1f / 0.9f + draw / 3);
  EXPECT_FLOAT_EQ(scores[0] + scores[1] + scores[2] + scores[3], 1.0f);
}

TEST(FourPlayerScores, AFinishedGameScoresTheWinnerOne) {
  const Yonin y;
  Position pos = southWinsInOne(y);
  pos.makeMove(pos.parseUsi("2c2b"));
  const game::Outcome o = pos.outcome();
  ASSERT_EQ(o.reason, game::EndReason::kSecondMate);
  float scores[4], draw;
  mcts::terminalScores(pos, o, scores, draw);
  EXPECT_EQ(draw, 0.0f);
  EXPECT_EQ(scores[0], 1.0f);
  EXPECT_EQ(scores[1] + scores[2] + scores[3], 0.0f);
  // A draw (here: the ply cap) is shared by those still in: east, and south.
  Position capped = southWinsInOne(y);
  mcts::terminalScores(capped, game::Outcome{game::EndReason::kPlyCap, -1}, scores, draw);
  EXPECT_EQ(draw, 1.0f);
  EXPECT_FLOAT_EQ(scores[0], 1.0f / 3);  // south, north, east are in; west is out
  EXPECT_EQ(scores[1], 0.0f);
  EXPECT_FLOAT_EQ(scores[2], 1.0f / 3);
}

// The mover takes the win in one (max-n at the root: its own score). Three moves mate: the
// gold 2c2b, and the silver 3c2b (guarded by the gold; the king cannot go to 1b, which the gold
// covers) promoted or not.
TEST(FourPlayerSearch, TheMoverTakesItsWinningMate) {
  const Yonin y;
  const Position pos = southWinsInOne(y);
  const mcts::Tree tree = searched(y, pos, 600);
  Position after = pos;
  after.makeMove(mostVisited(tree));
  EXPECT_EQ(after.outcome().reason, game::EndReason::kSecondMate) << pos.moveToUsi(mostVisited(tree));
  EXPECT_EQ(after.outcome().winner, 0);
  const auto children = tree.rootChildren();
  for (const char* mate : {"2c2b", "3c2b", "3c2b+"}) EXPECT_FLOAT_EQ(child(children, pos, mate).q, 1.0f) << mate;
  // Other moves: three players in, a third each from the uniform evaluator (2/3 - 1).
  EXPECT_NEAR(child(children, pos, "5i5h").q, 2.0f / 3 - 1, 0.05f);
}

// Below the root each node chooses for its own player (silverGuardsTheKing).
TEST(FourPlayerSearch, EachPlayerChoosesForItself) {
  const Yonin y;
  const Position pos = silverGuardsTheKing(y);
  // The trap, checked by the rules: after 8h7g, 9g9h mates south and wins for west.
  Position trap = pos;
  trap.makeMove(trap.parseUsi("8h7g"));
  ASSERT_EQ(trap.sideToMove(), 1);
  trap.makeMove(trap.parseUsi("9g9h"));
  ASSERT_EQ(trap.outcome().reason, game::EndReason::kSecondMate);
  ASSERT_EQ(trap.outcome().winner, 1);

  const mcts::Tree tree = searched(y, pos, 3000);
  const Move chosen = mostVisited(tree);
  expectNoReplyMatesSouth(pos, chosen);
  // The silver's steps away from 8h that leave 9h unguarded (to 7g and 7i; from 8g it would
  // still guard 9h backwards) are valued as near losses: west's reply is its win, and only the
  // few visits before the search found it count for anything else.
  const auto children = tree.rootChildren();
  for (const char* away : {"8h7g", "8h7i"}) {
    EXPECT_NE(pos.moveToUsi(chosen), away);
    EXPECT_GT(child(children, pos, away).visits, 0) << away;
    EXPECT_LT(child(children, pos, away).q, -0.6f) << away;
  }
  EXPECT_GT(child(children, pos, pos.moveToUsi(chosen)).q, -0.5f);
}

// Values that differ from position to position (from the planes), so that scores kept in the
// wrong place would show.
class ScrambledEvaluator : public mcts::UniformEvaluator {
 public:
  ScrambledEvaluator(int policySize, int inputSize) : UniformEvaluator(policySize, 5), inputSize_(inputSize) {}
  void evaluate(const float* planes, int batch, float* logits, float* values) override {
    UniformEvaluator::evaluate(planes, batch, logits, values);
    for (int b = 0; b < batch; ++b) {
      uint64_t h = 1469598103934665603ull;
      for (int i = 0; i < inputSize_; ++i)
        if (planes[size_t(b) * size_t(inputSize_) + size_t(i)] != 0) h = (h ^ uint64_t(i)) * 1099511628211ull;
      float sum = 0;
      for (int k = 0; k < 5; ++k) sum += values[b * 5 + k] = float((h >> (8 * k)) & 255) + 1.0f;
      for (int k = 0; k < 5; ++k) values[b * 5 + k] /= sum;
    }
  }

 private:
  int inputSize_;
};

// Tree reuse: after advance(move) the move's subtree is the new root, with its visits and each
// player's scores; searching on adds to it. The root's value is the mean of its visits: its
// first one and its children's, each child valued by the scores kept for it, so a score or a
// mover kept in the wrong place would break the sum.
TEST(FourPlayerSearch, TheSearchedSubtreeIsKeptAfterAMove) {
  const Yonin y;
  const Position start(y.variant);
  ScrambledEvaluator eval(y.encoder.policySize(), y.encoder.inputSize());
  mcts::SearchDriver driver(eval, y.encoder, 16);
  mcts::Tree tree(start, params(), 5);
  driver.search({&tree}, 400);
  const Move m = mostVisited(tree);
  const mcts::Tree::ChildStat before = child(tree.rootChildren(), start, start.moveToUsi(m));
  ASSERT_GT(before.visits, 20);
  tree.advance(m);
  EXPECT_EQ(tree.rootVisits(), before.visits);
  EXPECT_EQ(tree.rootPosition().sideToMove(), 1);  // west to move: its own view of the kept values
  int childVisits = 0;
  for (const auto& c : tree.rootChildren()) childVisits += c.visits;
  EXPECT_EQ(childVisits, before.visits - 1);  // the root's own first visit
  auto childSum = [&] {
    double sum = 0;
    for (const auto& c : tree.rootChildren()) sum += double(c.visits) * c.q;
    return sum;
  };
  // root value x visits = the first visit's value (in [-1, 1]) + the children's visits x values.
  EXPECT_LE(std::fabs(double(tree.rootValue()) * tree.rootVisits() - childSum()), 1.0 + 1e-3);
  EXPECT_GT(std::fabs(childSum()), 2.0);  // the check has something to weigh
  driver.search({&tree}, before.visits + 100);
  EXPECT_EQ(tree.rootVisits(), before.visits + 100);
  EXPECT_LE(std::fabs(double(tree.rootValue()) * tree.rootVisits() - childSum()), 1.0 + 1e-3);
}

// Batches with virtual loss and the eval cache: the same tree search, answers from the cache.
TEST(FourPlayerSearch, TheEvalCacheServesFourPlayerAnswers) {
  const Yonin y;
  const Position start(y.variant);
  mcts::EvalCache cache(12, 128, mcts::valueSize(4));
  const mcts::Tree first = searched(y, start, 300, &cache);
  EXPECT_GT(cache.misses(), 0);
  const mcts::Tree second = searched(y, start, 300, &cache);
  EXPECT_GT(cache.hits(), 100);
  EXPECT_EQ(mostVisited(first), mostVisited(second));
  EXPECT_FLOAT_EQ(second.rootValue(), 2.0f / 4 - 1);  // four players in, a quarter each
  const auto wdl = second.rootWdl();
  EXPECT_FLOAT_EQ(wdl[1], 1.0f);
  EXPECT_NEAR(wdl[0], 0.0f, 1e-6f);
  // A two-player cache is refused for a four-player search.
  mcts::EvalCache twoPlayer(12, 128);
  mcts::UniformEvaluator eval(y.encoder.policySize(), mcts::valueSize(4));
  EXPECT_THROW(mcts::SearchDriver(eval, y.encoder, 16, &twoPlayer), std::invalid_argument);
}

// Gumbel's root (mcts/gumbel_root.h) for four players: the moves sampled and the playouts
// shared among them by sequential halving as for two, each move valued by the root mover's own
// expected score.
mcts::SearchParams gumbelParams(int considered, int playouts) {
  mcts::SearchParams p = params();
  p.rootNoise = true;
  p.gumbelConsidered = considered;
  p.playouts = playouts;
  return p;
}

TEST(FourPlayerGumbel, RootVisitsFollowTheSchedule) {
  // Yonin's start has 9 moves (docs/RULES.md's perft). 9 playouts: the root's own, then 8
  // below it shared (0, 0, 0, 0, 1, 1, 2, 2) among 4 sampled moves (tests/test_gumbel.cpp's
  // schedule by hand): visits 3, 3, 1, 1 and none elsewhere. PUCT would visit every move once
  // before any twice (uniform priors, unvisited moves first).
  const Yonin y;
  const Position start(y.variant);
  mcts::UniformEvaluator eval(y.encoder.policySize(), mcts::valueSize(4));
  mcts::SearchDriver driver(eval, y.encoder, 16);
  mcts::Tree tree(start, gumbelParams(4, 9), 3);
  driver.search({&tree}, 9);
  std::vector<int> visits;
  for (const auto& c : tree.rootChildren()) visits.push_back(c.visits);
  ASSERT_EQ(visits.size(), 9u);
  std::sort(visits.rbegin(), visits.rend());
  EXPECT_EQ(std::vector<int>(visits.begin(), visits.begin() + 5), (std::vector<int>{3, 3, 1, 1, 0}));
  // The move played is one of the two searched most.
  const Move played = mostVisited(tree);
  EXPECT_EQ(child(tree.rootChildren(), start, start.moveToUsi(played)).visits, 3);
}

TEST(FourPlayerGumbel, TheWinningMateIsPlayedAndTrainedOn) {
  // Every move considered. The three mates are worth 1 to south (a win); any other move leaves
  // three players in, about a third each to the uniform evaluator (q = 2/3 - 1), and at worst a
  // loss (q = -1). Rescaled over the root's moves a mate's q is 1 and another move's at most
  // (2/3 - 1 + 1) / 2 = 1/3 (if some move scores -1; 0 if none does), so sigma sets each mate
  // at least (50 + its visits) * 0.1 * 2/3 >= 3.3 above any other move in the target's logits:
  // with equal priors and n moves, the mates' share is at least 3 e^3.3 / (3 e^3.3 + n - 3).
  const Yonin y;
  const Position pos = southWinsInOne(y);
  game::MoveList legal;
  pos.generateLegal(legal);
  const int n = int(legal.size());
  ASSERT_LT(n, 64);
  mcts::UniformEvaluator eval(y.encoder.policySize(), mcts::valueSize(4));
  mcts::SearchDriver driver(eval, y.encoder, 16);
  mcts::Tree tree(pos, gumbelParams(64, 400), 3);
  driver.search({&tree}, 400);
  Position after = pos;
  after.makeMove(mostVisited(tree));
  EXPECT_EQ(after.outcome().reason, game::EndReason::kSecondMate) << pos.moveToUsi(mostVisited(tree));
  const std::vector<float> target = tree.visitPolicy(y.encoder);
  double mates = 0;
  for (const char* mate : {"2c2b", "3c2b", "3c2b+"}) mates += target[size_t(y.encoder.moveIndex(pos, pos.parseUsi(mate)))];
  const double least = 3 * std::exp(3.3) / (3 * std::exp(3.3) + n - 3);
  EXPECT_GE(mates, least) << n << " moves";
  EXPECT_NEAR(std::accumulate(target.begin(), target.end(), 0.0), 1.0, 1e-5);
}

// Rollout MCTS (mcts/rollout_player.h), the yardstick without a network, for four players: each
// node keeps the score of the player who moved into it, so the root's mates score 1 for south,
// and below the root west takes its own win.
TEST(FourPlayerRollout, TheMoverTakesItsWinningMate) {
  const Yonin y;
  const Position pos = southWinsInOne(y);
  mcts::RolloutPlayer rollout(2000, 1, 200);
  const Move chosen = rollout.choose(pos);
  Position after = pos;
  after.makeMove(chosen);
  EXPECT_EQ(after.outcome().reason, game::EndReason::kSecondMate) << pos.moveToUsi(chosen);
  EXPECT_EQ(after.outcome().winner, 0);
  for (const auto& c : rollout.rootChildren()) {
    const std::string usi = pos.moveToUsi(c.move);
    EXPECT_GE(c.visits, 1) << usi;  // UCB1 tries every move first
    if (usi == "2c2b" || usi == "3c2b" || usi == "3c2b+") EXPECT_FLOAT_EQ(c.score, 1.0f) << usi;
    else EXPECT_LT(c.score, 1.0f) << usi;
    EXPECT_GE(c.score, 0.0f) << usi;
  }
}

TEST(FourPlayerRollout, EachPlayerChoosesForItself) {
  const Yonin y;
  const Position pos = silverGuardsTheKing(y);
  mcts::RolloutPlayer rollout(6000, 1, 200);
  const Move chosen = rollout.choose(pos);
  expectNoReplyMatesSouth(pos, chosen);
  // The steps that leave 9h unguarded score below the move chosen: west's reply 9g9h, its win
  // (south's 0), takes more and more of their visits once UCB1 at west's node has found it.
  float chosenScore = -1;
  for (const auto& c : rollout.rootChildren())
    if (c.move == chosen) chosenScore = c.score;
  for (const auto& c : rollout.rootChildren()) {
    const std::string usi = pos.moveToUsi(c.move);
    if (usi == "8h7g" || usi == "8h7i") {
      EXPECT_NE(c.move, chosen) << usi;
      EXPECT_LT(c.score, chosenScore) << usi << " " << c.visits << " visits";
    }
  }
}
