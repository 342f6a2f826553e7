// Whale shogi (configs/variants/whale.yaml). No engine plays whale shogi, so every expectation
// here is derived by hand from seed 002's entry (quoted at the top of the variant file) and
// docs/RULES.md "Whale shogi", never copied from Poppy's output.
//
// Squares are USI: files 6..1 from sente's left, rank a gote's back rank, f sente's; sente
// moves towards rank a. Letters: W white whale (royal), B blue, G grey, H humpback, K killer,
// N narwhal, P porpoise, D dolphin (+D: a dolphin on the far rank, moving once as a bishop).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "game/perft.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr whale() {
  static const VariantPtr v = loadVariant("whale");
  return v;
}

// One sente piece on 3d; gote's white whale on 1a, sente's on 6f. 3d's rank, file and
// diagonals (to 6a, 1b, 5f and 1f) miss both, so neither blocks anything.
Position onThreeD(const std::string& token) { return Position::fromSfen(whale(), "5w/6/6/3" + token + "2/6/W5 b - 1"); }

std::vector<std::string> dropsOf(const Position& pos, char letter) {
  std::vector<std::string> out;
  for (const auto& m : legalUsi(pos))
    if (m.size() == 4 && m[0] == letter && m[1] == '*') out.push_back(m);
  return out;
}

}  // namespace

// Each piece's moves as the seed describes them, from 3d.
TEST(WhaleMoves, EveryPieceFromThreeD) {
  // "one square forward straight or diagonally, or one square straight back"
  EXPECT_EQ(boardMovesFrom(onThreeD("B"), "3d"), movesFromTo("3d", {"3c", "4c", "2c", "3e"}));
  // "forward like a rook, backward like a bishop"
  EXPECT_EQ(boardMovesFrom(onThreeD("G"), "3d"), movesFromTo("3d", {"3c", "3b", "3a", "4e", "5f", "2e", "1f"}));
  // "one square diagonally or one square straight back"
  EXPECT_EQ(boardMovesFrom(onThreeD("H"), "3d"), movesFromTo("3d", {"4c", "2c", "4e", "2e", "3e"}));
  // "as rook, or one square diagonally"
  EXPECT_EQ(boardMovesFrom(onThreeD("K"), "3d"), movesFromTo("3d", {"3c", "3b", "3a", "3e", "3f", "4d", "5d", "6d", "2d", "1d",
                                                          "4c", "2c", "4e", "2e"}));
  // "one square sideways, or one straight back, or two squares straight ahead"
  EXPECT_EQ(boardMovesFrom(onThreeD("N"), "3d"), movesFromTo("3d", {"4d", "2d", "3e", "3b"}));
  // "one square sideways"
  EXPECT_EQ(boardMovesFrom(onThreeD("P"), "3d"), movesFromTo("3d", {"4d", "2d"}));
  // "one square straight ahead", not yet at the far rank
  EXPECT_EQ(boardMovesFrom(onThreeD("D"), "3d"), movesFromTo("3d", {"3c"}));
  // "moves as orthochess king"
  EXPECT_EQ(boardMovesFrom(Position::fromSfen(whale(), "5w/6/6/3W2/6/6 b - 1"), "3d"),
            movesFromTo("3d", {"3c", "4c", "2c", "4d", "2d", "3e", "4e", "2e"}));
}

// "leaping if necessary": the narwhal's two-square move jumps a piece on 3c, its own or not.
TEST(WhaleMoves, NarwhalLeaps) {
  EXPECT_EQ(boardMovesFrom(Position::fromSfen(whale(), "5w/6/3d2/3N2/6/W5 b - 1"), "3d"), movesFromTo("3d", {"4d", "2d", "3e", "3b"}));
  EXPECT_EQ(boardMovesFrom(Position::fromSfen(whale(), "5w/6/3B2/3N2/6/W5 b - 1"), "3d"), movesFromTo("3d", {"4d", "2d", "3e", "3b"}));
}

// "on reaching end rank it moves once like a bishop then reverts to D": the step onto rank a
// turns the dolphin (forced, so the '+' may be left out), it then has the bishop's moves from
// 3a (4b 5c 6d, 2b 1c), and the move turns it back into a dolphin that steps forward again.
TEST(WhaleDolphin, ReachesTheFarRankMovesOnceAsABishopThenReverts) {
  auto pos = Position::fromSfen(whale(), "5w/3D2/6/6/6/W5 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "3b"), movesFromTo("3b", {"3a+"}));
  pos.makeMove(pos.parseUsi("3b3a"));
  EXPECT_EQ(tokenAt(pos, "3a"), "+D");
  pos.makeMove(pos.parseUsi("1a1b"));  // gote's whale steps aside
  EXPECT_EQ(boardMovesFrom(pos, "3a"), movesFromTo("3a", {"4b-", "5c-", "6d-", "2b-", "1c-"}));
  pos.makeMove(pos.parseUsi("3a5c"));  // the turn back is forced: '-' may be left out too
  EXPECT_EQ(tokenAt(pos, "5c"), "D");
  pos.makeMove(pos.parseUsi("1b1a"));
  EXPECT_EQ(boardMovesFrom(pos, "5c"), movesFromTo("5c", {"5b"}));
  // Gote's dolphin does the same towards rank f.
  const auto gote = Position::fromSfen(whale(), "5w/6/6/6/3d2/W5 w - 1");
  EXPECT_EQ(boardMovesFrom(gote, "3e"), movesFromTo("3e", {"3f+"}));
}

// "Captured pieces other than P change sides ... A captured P is removed permanently from play,
// and the capturing player can drop a K in its place." A dolphin taken on the far rank goes to
// hand as a dolphin. Unmaking gives everything back.
TEST(WhaleCaptures, PorpoiseGivesAKillerWhaleOthersChangeSides) {
  auto pos = Position::fromSfen(whale(), "5w/6/3p2/3K2/6/W5 b - 1");
  const std::string before = pos.sfen();
  pos.makeMove(pos.parseUsi("3d3c"));
  EXPECT_EQ(pos.sfen(), "5w/6/3K2/6/6/W5 w K 2");
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), before);

  auto gold = Position::fromSfen(whale(), "5w/6/3g2/3K2/6/W5 b - 1");
  gold.makeMove(gold.parseUsi("3d3c"));
  EXPECT_EQ(gold.sfen(), "5w/6/3K2/6/6/W5 w G 2");

  auto dolphin = Position::fromSfen(whale(), "2+d2w/3K2/6/6/6/W5 b - 1");
  dolphin.makeMove(dolphin.parseUsi("3b4a"));
  EXPECT_EQ(dolphin.sfen(), "2K2w/6/6/6/6/W5 w D 2");

  // The killer whale so won drops on any empty square (34 of 36).
  auto killer = Position::fromSfen(whale(), "5w/6/6/6/6/W5 b K 1");
  EXPECT_EQ(dropsOf(killer, 'K').size(), 34u);
  // A porpoise is never in hand.
  EXPECT_THROW(Position::fromSfen(whale(), "5w/6/6/6/6/W5 b P 1"), SfenError);
}

// "A D may not be dropped on the last rank, ... nor on a file on which the player has two or
// more Ds." Sente's dolphins: 4e and 4c (file 4 has two), 2e and a far-rank dolphin on 2a (it
// is a dolphin too, so file 2 has two). 30 empty squares; not rank a (6a 5a 4a 3a), not file 4
// (4b 4d 4f), not file 2 (2b 2c 2d 2f): 19 drops.
TEST(WhaleDrops, DolphinsNotOnTheLastRankNorBesideTwoOthers) {
  const auto pos = Position::fromSfen(whale(), "4+Dw/6/2D3/6/2D1D1/W5 b D 1");
  const auto drops = dropsOf(pos, 'D');
  EXPECT_EQ(drops.size(), 19u);
  for (const auto& d : drops) {
    EXPECT_NE(d[3], 'a') << d;
    EXPECT_NE(d[2], '4') << d;
    EXPECT_NE(d[2], '2') << d;
  }
}

// "... nor to checkmate." Gote's whale on 1a; sente's grey whale on 2f rakes file 2 (2b, 2a)
// and its blue whale on 1c guards 1b. D*1b would check with nowhere to go: refused, though the
// same drop is legal (and mates) with the rule lifted, and other dolphin drops stay legal.
TEST(WhaleDrops, NoDolphinDropMate) {
  const std::string sfen = "5w/6/5B/6/6/W3G1 b D 1";
  const auto pos = Position::fromSfen(whale(), sfen);
  EXPECT_FALSE(hasLegal(pos, "D*1b"));
  EXPECT_TRUE(hasLegal(pos, "D*1d"));
  auto lax = std::make_shared<Variant>(*whale());
  lax->noDropMateFaces = 0;
  auto laxPos = Position::fromSfen(lax, sfen);
  ASSERT_TRUE(hasLegal(laxPos, "D*1b"));
  laxPos.makeMove(laxPos.parseUsi("D*1b"));
  EXPECT_TRUE(laxPos.inCheck());
  EXPECT_FALSE(laxPos.hasLegalMove());
  // Killer whales may mate by drop: only the dolphin is named.
  auto killer = Position::fromSfen(whale(), "5w/6/5B/6/6/W3G1 b K 1");
  EXPECT_TRUE(hasLegal(killer, "K*1b"));
}

// The start, by hand. Sente: each dolphin steps forward (6), the narwhal on 2f leaps to 2d (1);
// nothing else can move (every other square next to the back rank holds a sente piece, and the
// grey whale's and humpback's backward moves leave the board). Gote likewise has 7, and none of
// sente's first moves touches them (they reach rank d; gote's reach rank c): 49.
TEST(WhalePerft, StartPositionByHand) {
  Position start(whale());
  EXPECT_EQ(start.sfen(), "bnpwgh/dddddd/6/6/DDDDDD/HGWPNB b - 1");
  EXPECT_EQ(perft(start, 1), 7u);
  EXPECT_EQ(perft(start, 2), 49u);
}
