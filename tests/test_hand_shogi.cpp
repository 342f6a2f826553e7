// Hand shogi (configs/variants/hand.yaml): seed 002's text (John W. Brown, 1997, from Meta-Chess)
// and docs/RULES.md "Hand shogi". No engine plays it: every count here is derived by hand from
// the text, with the readings RULES.md gives (jumping hasty, onager and pard; the half knight's
// four forward knight leaps; soldier nifu for drops).
//
// Squares are USI: file 1..9 from sente's right, rank a gote's back rank, i sente's.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "game/perft.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr hand() { return loadVariant("hand"); }

// The kings on 5a and 5i, one sente piece on 5e (another position where given).
std::set<std::string> movesOfLonePiece(const std::string& sfen) {
  return boardMovesFrom(Position::fromSfen(hand(), sfen), "5e");
}

}  // namespace

// The seed's array: king e1, pard e2, golds c1 and g1, soldiers c2, g2, d3, e3, f3 (5i, 5h, 7i,
// 3i, 7h, 3h, 6g, 5g, 4g), gote's the same turned round; in hand the hasty, onager, shogun,
// tycoon and two each of half knight, lance and silver.
// Sente's first moves: king 4i 6i 4h 6h (4); pard 3f 7f 5f (its other leaps land on its own
// soldiers or off the board: 3); each gold 6h 8h 6i 8i and 4h 2h 4i 2i (8); soldiers 7h: 7g 6h 8h,
// 3h: 3g 2h 4h, 6g: 6f 7g, 5g: 5f, 4g: 4f 3g (11): 26 board moves. Drops on the 63 empty
// squares: hasty only where it checks gote's king on 5a, 3c and 7c (2); onager's checking squares
// 5c, 3a, 7a are all taken (0); shogun, tycoon and silver anywhere (3 x 63); half knight on ranks
// d-i only, where sente's own 9 men stand (54 - 9 = 45); lance not on rank a (63 - 6 = 57).
// 26 + 2 + 189 + 45 + 57 = 319.
TEST(HandShogiPerft, StartPositionByHand) {
  Position start(hand());
  EXPECT_EQ(start.sfen(), "2g1k1g2/2p1d1p2/3ppp3/9/9/9/3PPP3/2P1D1P2/2G1K1G2 b HOUY2N2L2Shouy2n2l2s 1");
  EXPECT_EQ(perft(start, 1), 319u);
}

// Each new piece alone on 5e (kings on 5a and 5i), by the seed's words.
TEST(HandShogiMoves, TheNewPiecesMoveAsTheSeedSays) {
  // Hasty: to the second square diagonally, leaping.
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/9/4H4/9/9/9/4K4 b - 1"), movesFromTo("5e", {"7c", "3c", "7g", "3g"}));
  // Onager: to the second square orthogonally, leaping (over the soldier on 5d too).
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/4P4/4O4/9/9/9/4K4 b - 1"), movesFromTo("5e", {"5c", "5g", "3e", "7e"}));
  // Pard: both.
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/9/4D4/9/9/9/4K4 b - 1"),
            movesFromTo("5e", {"7c", "3c", "7g", "3g", "5c", "5g", "3e", "7e"}));
  // Shogun: up to three squares as a rook; gote's pawn on 5d stops it there (a capture).
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/4p4/4U4/9/9/9/4K4 b - 1"),
            movesFromTo("5e", {"5d", "5f", "5g", "5h", "6e", "7e", "8e", "4e", "3e", "2e"}));
  // Tycoon: up to three squares as a bishop.
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/9/4Y4/9/9/9/4K4 b - 1"),
            movesFromTo("5e", {"6d", "7c", "8b", "4d", "3c", "2b", "6f", "7g", "8h", "4f", "3g", "2h"}));
  // Half knight: the chess knight's four forward leaps.
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/9/4N4/9/9/9/4K4 b - 1"), movesFromTo("5e", {"6c", "4c", "7d", "3d"}));
  // Soldier: one step forward or sideways.
  EXPECT_EQ(movesOfLonePiece("4k4/9/9/9/4P4/9/9/9/4K4 b - 1"), movesFromTo("5e", {"5d", "6e", "4e"}));
}

// A half knight reaching the last rank turns gold, always; one rank short it stays as it is.
TEST(HandShogiMoves, AHalfKnightPromotesOnTheLastRank) {
  const auto pos = Position::fromSfen(hand(), "k8/9/5N3/9/9/9/9/9/4K4 b - 1");
  EXPECT_EQ(boardMovesFrom(pos, "4c"), movesFromTo("4c", {"3a+", "5a+", "2b", "6b"}));
}

// Assassins are dropped only where they give check: with gote's king on 5a, the onager on 5c,
// 3a or 7a and the hasty on 3c or 7c, nowhere else; the half knight on ranks d-i only; a second
// soldier never on a file holding one of sente's.
TEST(HandShogiDrops, AssassinsCheckHalfKnightsStayBackSoldiersKeepToTheirFiles) {
  const auto pos = Position::fromSfen(hand(), "4k4/9/9/9/9/9/4P4/9/4K4 b HONP 1");
  std::set<std::string> onager, hasty;
  int halfKnightBeyondRank6 = 0, soldierOn5 = 0, halfKnight = 0;
  for (const auto& m : legalUsi(pos)) {
    if (m.rfind("O*", 0) == 0) onager.insert(m);
    if (m.rfind("H*", 0) == 0) hasty.insert(m);
    if (m.rfind("N*", 0) == 0) {
      ++halfKnight;
      halfKnightBeyondRank6 += m[3] < 'd';
    }
    soldierOn5 += m.rfind("P*5", 0) == 0;
  }
  EXPECT_EQ(onager, (std::set<std::string>{"O*5c", "O*3a", "O*7a"}));
  EXPECT_EQ(hasty, (std::set<std::string>{"H*3c", "H*7c"}));
  EXPECT_EQ(halfKnightBeyondRank6, 0);
  EXPECT_EQ(halfKnight, 6 * 9 - 2);  // ranks d-i less sente's soldier on 5g and king on 5i
  EXPECT_EQ(soldierOn5, 0);
}
