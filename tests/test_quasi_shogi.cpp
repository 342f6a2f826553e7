// Quasi-shogi (configs/variants/quasi.yaml). Expected move sets are derived by hand from seed
// 002's entry ("rooks and bishops have powers of their promoted equivalents (R+K and B+K)") and
// docs/RULES.md "Quasi-shogi"; perft is compared with Fairy-Stockfish (npm package ffish 0.7.10,
// with tests/reference/ffish/quasi.ini written from the seed), an engine written independently of
// Poppy.
//
// Squares are USI: file 1..9 from sente's right, rank a gote's back rank, i sente's; sente moves
// towards rank a, whose zone is ranks a-c.
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

VariantPtr quasi() { return loadVariant("quasi"); }

// One piece on 5e, gote's king on 8a and sente's on 2i: neither lies on 5e's rank, file or
// diagonals (which end at 1a, 9a, 1i, 9i), so they block nothing.
Position centre(const std::string& token, char side) {
  return Position::fromSfen(quasi(), "1k7/9/9/9/4" + token + "4/9/9/9/7K1 " + side + " - 1");
}

}  // namespace

// The rook moves as shogi's dragon: the rook's lines and one diagonal step. It has no promoted
// form, so entering the zone (5c, 5b, 5a) offers no promotion.
TEST(QuasiMoves, RookMovesAsADragonAndNeverPromotes) {
  EXPECT_EQ(boardMovesFrom(centre("R", 'b'), "5e"),
            movesFromTo("5e", {"5d", "5c", "5b", "5a", "5f", "5g", "5h", "5i", "4e", "3e", "2e", "1e", "6e", "7e", "8e",
                               "9e", "4d", "6d", "4f", "6f"}));
}

// The bishop moves as shogi's horse: the four diagonals and one orthogonal step; no promotion.
TEST(QuasiMoves, BishopMovesAsAHorseAndNeverPromotes) {
  EXPECT_EQ(boardMovesFrom(centre("B", 'b'), "5e"),
            movesFromTo("5e", {"4d", "3c", "2b", "1a", "6d", "7c", "8b", "9a", "4f", "3g", "2h", "1i", "6f", "7g", "8h",
                               "9i", "5d", "5f", "4e", "6e"}));
}

// A promoted rook or bishop does not exist: an SFEN with one is refused.
TEST(QuasiMoves, PromotedRookOrBishopIsRefused) {
  EXPECT_THROW(centre("+R", 'b'), std::exception);
  EXPECT_THROW(centre("+B", 'b'), std::exception);
}

// The rook's diagonal step gives check: gote's king on 4d, diagonally next to sente's rook on 5e.
TEST(QuasiMoves, RookChecksDiagonally) {
  const auto pos = Position::fromSfen(quasi(), "9/9/9/5k3/4R4/9/9/9/7K1 w - 1");
  EXPECT_TRUE(pos.inCheck());
}

// At the start only the bishop gains moves over shogi's 30: its orthogonal steps to 7h and 9h
// (its diagonals are blocked by its own pawn and knight, as in shogi; the rook's diagonal steps
// land on its own pawns and knight). Fairy-Stockfish (ffish, quasi.ini) counted 32, 1,024,
// 31,104, 944,150 on 2026-11-28 (node perft.cjs quasi, "perft 4 <start>"); asked again below.
TEST(QuasiPerft, StartPositionAsFairyStockfish) {
  Position start(quasi());
  EXPECT_EQ(boardMovesFrom(start, "8h"), movesFromTo("8h", {"7h", "9h"}));
  expectStartPerftAsFfish(quasi(), "quasi", {32, 1024, 31104, 944150});
}

// Random positions from random games (captures, hands, drops, promotions, checks), perft 2.
TEST(QuasiPerft, RandomPositionsAsFairyStockfish) { expectRandomPositionsAsFfish(quasi(), "quasi", 60, 160, 2028); }
