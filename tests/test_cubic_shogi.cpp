// Cubic shogi (configs/variants/cubic.yaml, and cubic8.yaml, the 8x8 version). Expected move sets
// are derived by hand from seed 002's entry (quoted at the top of the variant file) and
// docs/RULES.md "Cubic shogi"; perft is compared with Fairy-Stockfish (npm package ffish 0.7.10,
// with tests/reference/ffish/cubic.ini and cubic8.ini written from the seed), an engine written
// independently of Poppy.
//
// Squares are USI: on the 7x8 board file 1..7 from sente's right (the seed's a-file is 7, g is
// 1), rank a gote's back rank (the seed's 8th), h sente's (the 1st); sente moves towards rank a,
// and its zone is ranks a-b.
#include <gtest/gtest.h>

#include <string>

#include "game/perft.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/ffish_perft.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr cubic() { return loadVariant("cubic"); }

// Rank d as given, gote's king on 7a and sente's on 1h: off the lines of 4d and 4e.
Position withRankD(const std::string& rankD, const std::string& hand = "-") {
  return Position::fromSfen(cubic(), "k6/7/7/" + rankD + "/7/7/7/6K b " + hand + " 1");
}

}  // namespace

// "Q as in orthochess but one or two squares only": one or two squares along each of the eight
// lines (W2F2).
TEST(CubicMoves, QueenGoesOneOrTwoSquares) {
  EXPECT_EQ(boardMovesFrom(withRankD("3Q3"), "4d"),
            movesFromTo("4d", {"4c", "4b", "4e", "4f", "3d", "2d", "5d", "6d", "3c", "2b", "5c", "6b", "3e", "2f", "5e",
                               "6f"}));
}

// "N as in orthochess": the eight leaps. From 4d, 3b and 5b lie in the zone (ranks a-b), where it
// must promote ("a unit that reaches the last two ranks promotes"), to a rook.
TEST(CubicMoves, KnightLeapsAsInChessAndPromotesToARookInTheZone) {
  EXPECT_EQ(boardMovesFrom(withRankD("3N3"), "4d"),
            movesFromTo("4d", {"3b+", "5b+", "2c", "6c", "2e", "6e", "3f", "5f"}));
}

// A knight standing in the zone unpromoted (dropped there) promotes on any move, leaving the
// zone included: the zone's moves are those that start or end in it (shogi's), and promotion
// there is compulsory. Fairy-Stockfish reads it the same way (the random positions below).
TEST(CubicMoves, KnightMovingFromTheZonePromotes) {
  const auto pos = Position::fromSfen(cubic(), "k6/3N3/7/7/7/7/7/6K b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4b"), movesFromTo("4b", {"2a+", "6a+", "2c+", "6c+", "3d+", "5d+"}));
}

// The pawn steps forward; reaching rank b it must promote, to a bishop.
TEST(CubicMoves, PawnPromotesToABishopOnReachingTheZone) {
  const auto pos = Position::fromSfen(cubic(), "k6/7/3P3/7/7/7/7/6K b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4c"), movesFromTo("4c", {"4b+"}));
}

// "Pieces retain their rank on capture": a promoted pawn taken is a bishop in the captor's hand,
// a promoted knight a rook. Gote's +P on 4d and +N on 4b; sente's rook on 4h takes the first,
// then (after a gote king move) the second.
TEST(CubicCaptures, PromotedPiecesKeepTheirRankInHand) {
  auto pos = Position::fromSfen(cubic(), "k6/3+n3/7/3+p3/7/7/7/3R2K b - 1");
  play(pos, {"4h4d"});
  EXPECT_EQ(field(pos.sfen(), 2), "B");
  play(pos, {"7a7b", "4d4b"});
  EXPECT_EQ(field(pos.sfen(), 2), "RB");
  // An unpromoted piece goes to hand as itself.
  auto plain = Position::fromSfen(cubic(), "k6/7/7/3n3/7/7/7/3R2K b - 1");
  play(plain, {"4h4d"});
  EXPECT_EQ(field(plain.sfen(), 2), "N");
}

// Drops "as in shogi": a pawn never on rank a (it could never move) nor on a file holding an
// unpromoted pawn of its side; on rank b it may go (its step to rank a promotes). A knight may
// drop on rank a: it leaps back from there.
TEST(CubicDrops, PawnsAsShogiKnightsAnywhere) {
  const auto pos = Position::fromSfen(cubic(), "k6/7/7/7/7/3P3/7/6K b PN 1");
  EXPECT_FALSE(hasLegal(pos, "P*3a"));
  EXPECT_TRUE(hasLegal(pos, "P*3b"));
  EXPECT_FALSE(hasLegal(pos, "P*4d"));  // sente's pawn on 4f
  EXPECT_TRUE(hasLegal(pos, "P*3d"));
  EXPECT_TRUE(hasLegal(pos, "N*3a"));
}

// The start, depth 1 by hand: pawns 7; the knights 6h->4g and 2h->4g (their other leaps land on
// their own pawns or off the board) 2; the bishop on 3h to 4g and 2g 2, the one on 7g none; the
// rook on 1g to 1h and along rank g to 2g-6g 6; the queen on 5h to 5g, 6g, 4g 3; the king to 5g,
// 4g, 3g 3: 23. Fairy-Stockfish (ffish, cubic.ini) counted 23, 529, 11,317, 242,090 on 2026-11-28
// (node perft.cjs cubic, "perft 4 <start>"); asked again below.
TEST(CubicPerft, StartPositionAsFairyStockfish) {
  expectStartPerftAsFfish(cubic(), "cubic", {23, 529, 11317, 242090});
}

// The 8x8 version: Fairy-Stockfish (ffish, cubic8.ini) counted 28, 784, 20,046, 512,442.
TEST(CubicPerft, EightByEightStartAsFairyStockfish) {
  Position start(loadVariant("cubic8"));
  EXPECT_EQ(start.sfen(), "1nbqkbn1/1r4r1/pppppppp/8/8/PPPPPPPP/1R4R1/1NBQKBN1 b - 1");
  expectStartPerftAsFfish(loadVariant("cubic8"), "cubic8", {28, 784, 20046, 512442});
}

// Random positions from random games (promotions, captures of promoted pieces, drops), perft 2.
TEST(CubicPerft, RandomPositionsAsFairyStockfish) { expectRandomPositionsAsFfish(cubic(), "cubic", 60, 160, 2029); }
TEST(CubicPerft, EightByEightRandomPositionsAsFairyStockfish) {
  expectRandomPositionsAsFfish(loadVariant("cubic8"), "cubic8", 40, 160, 2030);
}
