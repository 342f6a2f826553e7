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

// Chu, sente's king alone in the corner 1l, gote's rook on 1a attacking it up the open file 1,
// gote's king on 12a. Sente's pawns on 2k and 2l fill the king's other two squares, so its only
// step, 1k, stays on the rook's file, and no sente piece can reach file 1 between the two: the
// king is lost whatever sente plays. Standing pat would say "a rook down" (about -0.05 of an
// army); the search must say -1.
TEST(CaptureSearch, AnAttackedLastRoyalThatCannotEscapeIsLost) {
  const game::VariantPtr chu = game::loadVariant("chu");
  mcts::CaptureSearch search(chu);
  Position pos = Position::fromSfen(chu, "k10r/12/12/12/12/12/12/12/12/12/10P1/10PK b - 1");
  ASSERT_TRUE(pos.inCheck());
  EXPECT_GT(search.staticBalance(pos), -0.5f);
  EXPECT_FLOAT_EQ(search.balance(pos), -1.0f);
}

// The same without the pawn on 2k: the king steps to 2k, off the rook's file, and then nothing
// is captured (the rook on 1a reaches neither 2k nor the pawn on 2l): the material as it stands.
TEST(CaptureSearch, AnAttackedRoyalThatCanEscapeKeepsTheMaterial) {
  const game::VariantPtr chu = game::loadVariant("chu");
  mcts::CaptureSearch search(chu);
  Position pos = Position::fromSfen(chu, "k10r/12/12/12/12/12/12/12/12/12/12/10PK b - 1");
  ASSERT_TRUE(pos.inCheck());
  EXPECT_FLOAT_EQ(search.balance(pos), search.staticBalance(pos));
}

// A quiet move that wins: gote's king on 1a is walled in by its own pawns on 2a and 2b, its one
// free square 1b on file 1. Sente's rook on 3l slides to 1l (3l-2l-1l, both empty) and attacks
// up the open file 1; gote's king can only step to 1b, still on the file, and no gote piece can
// reach file 1 between (gote's pawns step down their own file 2, onto 2b taken and 2c). No
// capture is there to be made, so a captures-only search stands pat on a rook against two
// pawns; with the quiet royal threat the balance is a won game, 1.
TEST(CaptureSearch, AQuietMoveThatTrapsTheLastRoyalWins) {
  const game::VariantPtr chu = game::loadVariant("chu");
  mcts::CaptureSearch search(chu);
  Position pos = Position::fromSfen(chu, "10pk/10p1/12/12/12/12/12/12/12/12/12/K8R2 b - 1");
  ASSERT_FALSE(pos.inCheck());
  EXPECT_LT(search.staticBalance(pos), 0.5f);
  EXPECT_FLOAT_EQ(search.balance(pos), 1.0f);
}

// Without gote's pawn on 2b the king escapes to 2b after the rook's move, so the threat wins
// nothing, and the rook takes nothing: sente keeps the material as it stands.
TEST(CaptureSearch, AThreatTheRoyalEscapesIsWorthNothing) {
  const game::VariantPtr chu = game::loadVariant("chu");
  mcts::CaptureSearch search(chu);
  Position pos = Position::fromSfen(chu, "10pk/12/12/12/12/12/12/12/12/12/12/K8R2 b - 1");
  EXPECT_FLOAT_EQ(search.balance(pos), search.staticBalance(pos));
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
