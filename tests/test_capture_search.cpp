// mcts::CaptureSearch (the material left once the captures are played out) and the search's
// material_weight, on hand-built minishogi and chu positions.
//
// Minishogi's material by hand (game/material.h: a face is worth the squares it reaches on the
// empty 5x5 board, averaged over the 25 squares; a one-square step (dx, dy) stays on the board
// from (5 - |dx|)(5 - |dy|) squares):
//   pawn (forward step)                         20 / 25 = 0.8
//   silver (forward, four diagonals)            (20 + 4 x 16) / 25 = 3.36
//   gold (forward, sideways, back, two forward diagonals)  (4 x 20 + 2 x 16) / 25 = 4.48
//   rook (a ride of 4 squares in every file and rank)      8
//   bishop (each diagonal: sum over d = 1..4 of (5 - d)^2 = 30)  4 x 30 / 25 = 4.8
// A side's start material (king worth nothing): 8 + 4.8 + 3.36 + 4.48 + 0.8 = 21.44. A piece in
// hand counts as on the board, so a capture moves its value from one side to the other.
#include <gtest/gtest.h>

#include <random>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/capture_search.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "nn/encoder.h"

namespace poppy {
namespace {

using game::Position;

constexpr double kStart = 21.44;
constexpr double kPawn = 0.8, kSilver = 3.36, kGold = 4.48, kRook = 8;

struct Minishogi {
  game::VariantPtr variant = game::loadVariant("minishogi");
  Position at(const std::string& sfen) const { return Position::fromSfen(variant, sfen); }
};

TEST(CaptureSearch, MinishogiMaterialAsDerivedByHand) {
  Minishogi m;
  mcts::CaptureSearch search(m.variant);
  // The start position: even. Sente alone with a rook against a lone king: +8 / 21.44.
  EXPECT_NEAR(search.staticBalance(Position(m.variant)), 0.0, 1e-6);
  EXPECT_NEAR(search.staticBalance(m.at("4k/5/5/5/R3K b - 1")), kRook / kStart, 1e-5);
  EXPECT_NEAR(search.staticBalance(m.at("4k/5/5/5/R3K w - 1")), -kRook / kStart, 1e-5);
}

// Gote's silver on 5c hangs to sente's rook on 5e: taking it leaves sente a rook on the board and
// a silver in hand against a lone king: (8 + 3.36) / 21.44.
TEST(CaptureSearch, TakesAHangingPiece) {
  Minishogi m;
  mcts::CaptureSearch search(m.variant);
  Position pos = m.at("4k/5/s4/5/R3K b - 1");
  EXPECT_NEAR(search.staticBalance(pos), (kRook - kSilver) / kStart, 1e-5);
  EXPECT_NEAR(search.balance(pos), (kRook + kSilver) / kStart, 1e-5);
  EXPECT_GT(search.nodes(), 1);
}

// Gote's pawn on 5c is guarded by its gold on 4b (a gote gold steps to 5c, its forward
// diagonal). Rook takes pawn (+0.8 twice), gold takes rook (-8 twice): sente stands pat on
// 8 - 4.48 - 0.8 = 2.72.
TEST(CaptureSearch, DoesNotTakeAGuardedPawnWithTheRook) {
  Minishogi m;
  mcts::CaptureSearch search(m.variant);
  Position pos = m.at("4k/1g3/p4/5/R3K b - 1");
  EXPECT_NEAR(search.balance(pos), (kRook - kGold - kPawn) / kStart, 1e-5);
}

// Sente's pawn on 4d takes gote's gold on 4c, guarded by gote's silver on 4b, which takes back:
// sente ends with a gold in hand (4.48), gote with a silver on the board and a pawn in hand
// (3.36 + 0.8): (4.48 - 4.16) / 21.44. Gote's retaking is its best reply (standing pat would
// leave it 3.36 - 5.28), and sente's capture beats standing pat (0.8 - 3.36 - 4.48).
TEST(CaptureSearch, PlaysOutAnExchange) {
  Minishogi m;
  mcts::CaptureSearch search(m.variant);
  Position pos = m.at("4k/1s3/1g3/1P3/4K b - 1");
  EXPECT_NEAR(search.staticBalance(pos), (kPawn - kSilver - kGold) / kStart, 1e-5);
  EXPECT_NEAR(search.balance(pos), (kGold - kSilver - kPawn) / kStart, 1e-5);
}

TEST(CaptureSearch, LeavesThePositionAsItWas) {
  Minishogi m;
  mcts::CaptureSearch search(m.variant);
  Position pos = m.at("4k/1s3/1g3/1P3/4K b - 1");
  const std::string before = pos.sfen();
  const uint64_t hash = pos.hash();
  search.balance(pos);
  EXPECT_EQ(pos.sfen(), before);
  EXPECT_EQ(pos.hash(), hash);
  EXPECT_EQ(pos.gamePly(), 0);
}

// Chu (royal capture): sente's rook on 1l takes gote's only royal piece, the king on 1a, up an
// empty file: a whole army, 1.
TEST(CaptureSearch, TakingTheLastRoyalIsAWholeArmy) {
  const game::VariantPtr chu = game::loadVariant("chu");
  mcts::CaptureSearch search(chu);
  Position pos = Position::fromSfen(chu, "11k/12/12/12/12/12/12/12/12/12/12/K10R b - 1");
  EXPECT_FLOAT_EQ(search.balance(pos), 1.0f);
}

// With material_weight 1 and a network that knows nothing (every position a sure draw), the
// search plays on material alone: it takes the hanging silver (5e5c, the one capture that gains).
TEST(CaptureSearch, MaterialWeightMakesTheSearchTakeTheHangingPiece) {
  Minishogi m;
  nn::Encoder encoder(m.variant);
  mcts::UniformEvaluator eval(encoder.policySize());
  mcts::SearchParams params;
  params.materialWeight = 1.0f;
  // Sente is a rook against a silver up already: at the default scale (0.1) every move would
  // look won (tanh of 2 and more). At 1, taking the silver is worth tanh(0.53) = 0.49 to sente,
  // any other move at most tanh(0.22) = 0.21.
  params.materialScale = 1.0f;
  params.rootMatePlies = 0;
  mcts::SearchDriver driver(eval, encoder, 16);
  mcts::Tree tree(m.at("4k/5/s4/5/R3K b - 1"), params, 1);
  driver.search({&tree}, 200);
  std::mt19937 rng(0);
  const game::Move move = tree.pickMove(0.0f, rng);
  EXPECT_EQ(tree.rootPosition().moveToUsi(move), "5e5c");
  // Not by chance: the capture takes most of the visits. Sente has 8 legal moves here (`poppy
  // perft --depth 1`): with weight 1 the capture had 131 of the 200 visits when this was written,
  // and 47 with weight 0 (every leaf a draw).
  int captureVisits = 0;
  for (const auto& c : tree.rootChildren())
    if (c.move == move) captureVisits = c.visits;
  EXPECT_GT(captureVisits, tree.rootVisits() / 2) << captureVisits << " of " << tree.rootVisits();
}

}  // namespace
}  // namespace poppy
