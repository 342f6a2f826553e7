// Small shogi (configs/variants/small.yaml). Expected move sets are derived by hand from seed
// 002's entry (shogi with a drunk elephant and two ferocious leopards that "move as in Chu
// Shogi") and docs/RULES.md "Small shogi"; perft is compared with Fairy-Stockfish (npm package
// ffish 0.7.10, with tests/reference/ffish/small.ini written from the seed), an engine written
// independently of Poppy.
//
// Squares are USI: file 1..9 from sente's right, rank a gote's back rank, i sente's; sente moves
// towards rank a, whose zone is ranks a-c. Letters: E drunk elephant (+E crown prince), F
// ferocious leopard (+F bishop), the rest as shogi.
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

VariantPtr small() { return loadVariant("small"); }

// Ranks c and e as given, gote's king on 8a and sente's on 2i, off the lines of 5e and 5c.
Position with(const std::string& rankE, const std::string& rankC, char side) {
  return Position::fromSfen(small(), "1k7/9/" + rankC + "/9/" + rankE + "/9/9/9/7K1 " + side + " - 1");
}
Position centre(const std::string& token, char side) { return with("4" + token + "4", "9", side); }

}  // namespace

// Chu's drunk elephant, FfsW: every king step but straight back.
TEST(SmallMoves, DrunkElephant) {
  EXPECT_EQ(boardMovesFrom(centre("E", 'b'), "5e"), movesFromTo("5e", {"4d", "5d", "6d", "4e", "6e", "4f", "6f"}));
}

// In the zone every move may promote (to the crown prince) or not: 7 steps, each both ways.
TEST(SmallMoves, DrunkElephantPromotesInTheZone) {
  const auto pos = with("9", "4E4", 'b');
  EXPECT_EQ(boardMovesFrom(pos, "5c"), movesFromTo("5c", {"4b", "5b", "6b", "4c", "6c", "4d", "6d", "4b+", "5b+", "6b+",
                                                           "4c+", "6c+", "4d+", "6d+"}));
}

// Chu's ferocious leopard, FvW: the four diagonal steps and one step straight forward or back.
TEST(SmallMoves, FerociousLeopard) {
  EXPECT_EQ(boardMovesFrom(centre("F", 'b'), "5e"), movesFromTo("5e", {"4d", "6d", "4f", "6f", "5d", "5f"}));
}

// Promoted, the leopard is a bishop (its four diagonals to the edges) and the elephant a crown
// prince (a king's eight steps).
TEST(SmallMoves, PromotedFormsAreBishopAndCrownPrince) {
  EXPECT_EQ(boardMovesFrom(centre("+F", 'b'), "5e"),
            movesFromTo("5e", {"4d", "3c", "2b", "1a", "6d", "7c", "8b", "9a", "4f", "3g", "2h", "1i", "6f", "7g", "8h",
                               "9i"}));
  EXPECT_EQ(boardMovesFrom(centre("+E", 'b'), "5e"),
            movesFromTo("5e", {"4d", "5d", "6d", "4e", "6e", "4f", "5f", "6f"}));
}

// The crown prince is not royal here (docs/RULES.md): attacked by gote's rook on 5a, sente is not
// in check, and may leave it there.
TEST(SmallMoves, CrownPrinceIsNotRoyal) {
  const auto pos = Position::fromSfen(small(), "1k2r4/9/9/9/4+E4/9/9/9/7K1 b - 1");
  EXPECT_FALSE(pos.inCheck());
  EXPECT_TRUE(hasLegal(pos, "2i1i"));
}

// Taken, a promoted piece goes to hand unpromoted, as every shogi piece: sente's rook on 5i takes
// gote's crown prince on 5e and holds an elephant.
TEST(SmallDrops, CapturedCrownPrinceReturnsAsAnElephant) {
  auto pos = Position::fromSfen(small(), "1k7/9/9/9/4+e4/9/9/9/4R2K1 b - 1");
  pos.makeMove(pos.parseUsi("5i5e"));
  EXPECT_EQ(field(pos.sfen(), 2), "E");
}

// The elephant and the leopard can move from every square (each has a step back), so they may be
// dropped on any empty square, the last rank included: 81 squares less the 3 occupied.
TEST(SmallDrops, ElephantAndLeopardDropAnywhere) {
  const auto pos = Position::fromSfen(small(), "1k7/9/9/9/9/9/9/9/4R2K1 b EF 1");
  int elephant = 0, leopard = 0, lastRank = 0;
  for (const auto& m : legalUsi(pos)) {
    elephant += m.rfind("E*", 0) == 0;
    leopard += m.rfind("F*", 0) == 0;
    lastRank += (m.rfind("E*", 0) == 0 || m.rfind("F*", 0) == 0) && m.back() == 'a';
  }
  EXPECT_EQ(elephant, 78);
  EXPECT_EQ(leopard, 78);
  EXPECT_EQ(lastRank, 16);  // 9 squares of rank a less gote's king, each piece
}

// Fairy-Stockfish (ffish, small.ini) counted 20, 400, 8,280, 170,959 on 2026-11-28 (node
// perft.cjs small, "perft 4 <start>"); asked again below. Depth 1 by hand: 9 pawn steps, the
// lances to 9h and 1h (2), the silvers to 6h and 4h only (7h and 3h hold leopards) (2), the golds
// to 6h and 4h only (5h holds the elephant) (2), the king to 6h and 4h (2), the rook to 1h only
// (3h holds a leopard) (1), the bishop nothing, the elephant sideways to 6h and 4h (2; its other
// steps land on its own pawns and golds), the leopards nothing (pawns ahead and on the forward
// diagonals, silver behind, gold and knight on the back diagonals): 20.
TEST(SmallPerft, StartPositionAsFairyStockfish) {
  Position start(small());
  EXPECT_EQ(boardMovesFrom(start, "5h"), movesFromTo("5h", {"6h", "4h"}));
  EXPECT_EQ(boardMovesFrom(start, "7h"), movesFromTo("7h", {}));
  expectStartPerftAsFfish(small(), "small", {20, 400, 8280, 170959});
}

// Random positions from random games (captures, hands, drops, promotions, checks), perft 2.
TEST(SmallPerft, RandomPositionsAsFairyStockfish) { expectRandomPositionsAsFfish(small(), "small", 60, 160, 2027); }
