// Cannon shogi (configs/variants/cannon.yaml). Expected move sets are derived by hand from seed
// 002's entry (quoted at the top of the variant file) and docs/RULES.md "Cannon shogi"; perft is
// compared with Fairy-Stockfish (npm package ffish 0.7.10, with tests/reference/ffish/cannon.ini
// written from the seed), an engine written independently of Poppy, which lets a pawn drop mate
// past a flying cannon's guard (its defect, checked position by position).
//
// Squares are USI: file 1..9 from sente's right, rank a gote's back rank, i sente's; sente moves
// towards rank a, whose zone is ranks a-c. Letters: U gold, A silver, C copper, I iron cannon;
// +U, +A, +C, +I their flying forms. In the boards below gote's king stands on 8a and sente's on
// 2i, off every line through 5e.
#include <gtest/gtest.h>

#include <string>

#include "game/perft.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/ffish_perft.h"
#include "support/position_helpers.h"
#include "support/sanitized.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr cannon() { return loadVariant("cannon"); }

// A cannon on 5e with sente's pawn on 5c (a screen straight ahead) and gote's pawn on 5b.
Position fileScreen(const std::string& token) {
  return Position::fromSfen(cannon(), "1k7/4p4/4P4/9/4" + token + "4/9/9/9/7K1 b - 1");
}
// A cannon on 5e with sente's pawn on 4d (a screen on the forward-right diagonal) and gote's
// pawn on 2b, behind an empty 3c.
Position diagonalScreen(const std::string& token) {
  return Position::fromSfen(cannon(), "1k7/7p1/9/5P3/4" + token + "4/9/9/9/7K1 b - 1");
}

const FfishDefects kFfishDefects{/*matingPawnDrops=*/true};

}  // namespace

// The gold cannon, the xiangqi cannon: moves as a rook to empty squares, captures only over one
// screen (gote's pawn on 5b, over sente's own pawn on 5c; promotion optional in the zone).
TEST(CannonMoves, GoldCannonMovesAsARookAndCapturesOverAScreen) {
  EXPECT_EQ(boardMovesFrom(fileScreen("U"), "5e"),
            movesFromTo("5e", {"5d", "5f", "5g", "5h", "5i", "4e", "3e", "2e", "1e", "6e", "7e", "8e", "9e", "5b", "5b+"}));
}

// The silver cannon, the Korean cannon's move: it needs the screen to move as well as to capture;
// with no screen on the other lines it has no other move.
TEST(CannonMoves, SilverCannonMovesOnlyOverAScreen) {
  EXPECT_EQ(boardMovesFrom(fileScreen("A"), "5e"), movesFromTo("5e", {"5b", "5b+"}));
}

// The copper cannon: the gold cannon's moves turned to the diagonals.
TEST(CannonMoves, CopperCannonIsTheDiagonalGoldCannon) {
  EXPECT_EQ(boardMovesFrom(diagonalScreen("C"), "5e"),
            movesFromTo("5e", {"6d", "7c", "7c+", "8b", "8b+", "9a", "9a+", "6f", "7g", "8h", "9i", "4f", "3g", "2h", "1i",
                               "2b", "2b+"}));
}

// The iron cannon: the silver cannon's, diagonally: over 4d to the empty 3c or onto gote's 2b.
TEST(CannonMoves, IronCannonIsTheDiagonalSilverCannon) {
  EXPECT_EQ(boardMovesFrom(diagonalScreen("I"), "5e"), movesFromTo("5e", {"3c", "3c+", "2b", "2b+"}));
}

// A flying gold cannon: the rook's moves to empty squares, moves and captures over one piece
// ("can leap one piece while moving": onto 5b over 5c), and the diagonal step.
TEST(CannonMoves, FlyingGoldCannon) {
  EXPECT_EQ(boardMovesFrom(fileScreen("+U"), "5e"),
            movesFromTo("5e", {"5d", "5f", "5g", "5h", "5i", "4e", "3e", "2e", "1e", "6e", "7e", "8e", "9e", "5b", "4d",
                               "6d", "4f", "6f"}));
}

// A flying copper cannon: the bishop's moves to empty squares, over one piece (3c, and gote's
// 2b), and the orthogonal step.
TEST(CannonMoves, FlyingCopperCannon) {
  EXPECT_EQ(boardMovesFrom(diagonalScreen("+C"), "5e"),
            movesFromTo("5e", {"6d", "7c", "8b", "9a", "6f", "7g", "8h", "9i", "4f", "3g", "2h", "1i", "3c", "2b", "5d",
                               "5f", "4e", "6e"}));
}

// "... and move or capture two squares [orthogonally] by leaping an adjacent piece": the flying
// copper cannon over its own pawn on 5d to 5c, and not beyond.
TEST(CannonMoves, FlyingCannonLeapsAnAdjacentPiece) {
  const auto pos = Position::fromSfen(cannon(), "1k7/9/9/4P4/4+C4/9/9/9/7K1 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "5e"),
            movesFromTo("5e", {"6d", "7c", "8b", "9a", "4d", "3c", "2b", "1a", "6f", "7g", "8h", "9i", "4f", "3g", "2h",
                               "1i", "5f", "4e", "6e", "5c"}));
}

// Sente's king on 6h; gote's flying silver cannon on 3g guards 6g (leaping sente's pawn on 5g
// along rank g) and 5i (leaping sente's iron cannon on 4h, the adjacent diagonal piece). A pawn
// dropped on 6g checks, the king can take it only onto a guarded square, and 5i, its one empty
// neighbour, is guarded: the drop would mate, so it is not legal (shogi's rule; Fairy-Stockfish
// allows it).
TEST(CannonDrops, NoPawnDropMatePastAFlyingCannon) {
  auto pos = Position::fromSfen(cannon(), "lnsgkgsnl/1rci1u1b1/p1p1p1p1p/9/9/9/P1P1P1+a1P/1BAKUICR1/LNSG1GSNL w p 4");
  EXPECT_FALSE(hasLegal(pos, "P*6g"));
  EXPECT_TRUE(hasLegal(pos, "P*6f"));
  pos.makeMove(Move::drop(pos.variant().faceIndex('P', false), sq(pos.variant(), "6g")));
  EXPECT_TRUE(pos.inCheck());
  EXPECT_FALSE(pos.hasLegalMove());
}

// A drop can expose the dropper's own king: a piece dropped between a cannon and the king is the
// screen it hops over. Gote's gold cannon on 5a, sente's king on 5i: any drop on the 5-file
// between them would let it capture the king.
TEST(CannonDrops, ADropThatScreensACannonIsIllegal) {
  const auto pos = Position::fromSfen(cannon(), "k3u4/9/9/9/9/9/9/9/4K4 b G 1");
  for (const char* square : {"5b", "5c", "5d", "5e", "5f", "5g", "5h"}) EXPECT_FALSE(hasLegal(pos, std::string("G*") + square)) << square;
  EXPECT_TRUE(hasLegal(pos, "G*4e"));
}

// The start, depth 1 by hand: 5 pawn steps; the lances to 9h and 1h (2); each gold to 5h (2); the
// king to 5h (1); the rook to 1h and up the pawnless 2-file to 2g-2d, 2c (+) and onto gote's
// bishop on 2b (+) (9); the silver cannon on 7h over its pawn to 7f-7d and onto 7c (+), over the
// bishop to 9h, over the gold cannon to 5h (7); the gold cannon on 6h up the pawnless 6-file to
// 6g-6c (+ on 6c), over gote's iron cannon on 6b onto the gold on 6a (+), and to 5h (9); the iron
// cannon on 4h over the pawn on 5g to 6f, 7e, 8d and onto 9c (+), over the pawn on 3g to 2f and
// 1e (7); the copper cannon on 3h to 4g-7d, 8c (+), 9b (+) and to 2g, 1f (10): 52.
// Fairy-Stockfish (ffish, cannon.ini) counted 52, 2,583, 144,245, 7,937,999 on 2026-11-28; depth
// 4 differs by one (Poppy 7,937,998): the mating pawn drop above, which Fairy-Stockfish allows.
TEST(CannonPerft, StartPositionAsFairyStockfish) {
  const auto v = cannon();
  Position start(v);
  EXPECT_EQ(perft(start, 1), 52u);
  EXPECT_EQ(perft(start, 2), 2583u);
  EXPECT_EQ(perft(start, 3), 144245u);
  const auto lines = ffishLines("cannon", "perft 3 " + start.sfen() + "\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "52 2583 144245");
  // Depth 4, child by child at depth 2 below each of the start's children: every difference is
  // the known mating pawn drop.
  // Under a sanitizer every fourth child's subtree (the others are checked in the optimised build).
  std::vector<std::string> grandchildren;
  const auto children = childPositions(v, v->startSfen);
  for (size_t i = 0; i < children.size(); i += size_t(kSanitizedShare))
    for (const auto& g : childPositions(v, children[i])) grandchildren.push_back(g);
  expectPositionsAsFfish(v, "cannon", grandchildren, kFfishDefects);
}

// Random positions from random games (cannons in hand and dropped, flying cannons), perft 2.
TEST(CannonPerft, RandomPositionsAsFairyStockfish) {
  expectRandomPositionsAsFfish(cannon(), "cannon", 60, 160, 2031, kFfishDefects);
}
