// Unashogi (configs/variants/unashogi.yaml, game/king_in_hand.cpp): seed 002's "Board starts
// empty; each player has usual 20 men in reserve; ... drop a piece or move a piece. No capture
// or promotion until a player's K is on the board." No engine plays it, so every count here is
// derived by hand from that text and docs/RULES.md "Unashogi" (shogi's drop rules: no pawn or
// lance on the last rank, no knight on the last two, nifu, no pawn-drop mate).
//
// Squares are USI: file 1..9 from sente's right, rank a gote's back rank, i sente's.
#include <gtest/gtest.h>

#include <string>

#include "game/perft.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr unashogi() { return loadVariant("unashogi"); }

}  // namespace

// From the empty board sente can only drop. Squares per man (81 on the board): king, rook,
// bishop, gold, silver 81 each; knight 63 (not ranks a, b); lance and pawn 72 (not rank a):
// 5 * 81 + 63 + 72 + 72 = 612.
// Depth 2: after a sente drop on square s, gote has the same 612 for its side (not ranks i, h for
// its knight, not i for its lance and pawn), less one for each of its men that could have gone on
// s (8 on ranks a-g, 7 on h, 5 on i), less, after sente's king drop, the squares beside that king
// for gote's king (sente's other men threaten nothing: its king is not on the board). Summed
// over sente's 612 drops (worked with a short script over the 81 squares): 369,392.
TEST(UnashogiPerft, TheEmptyBoardByHand) {
  Position start(unashogi());
  EXPECT_EQ(start.sfen(), "9/9/9/9/9/9/9/9/9 b KRB2G2S2N2L9Pkrb2g2s2n2l9p 1");
  EXPECT_EQ(perft(start, 1), 612u);
  EXPECT_EQ(perft(start, 2), 369392u);
  // After K*5e gote loses 8 squares for every man (5e is taken) and 8 more for its king: 596.
  auto afterKing = start;
  play(afterKing, {"K*5e"});
  EXPECT_EQ(perft(afterKing, 1), 596u);
}

// Before its king is dropped sente's rook on 5e may not take gote's pawn on 5c: 5d, the four
// squares down the file and eight along the rank. With sente's king on 1i it may, and as 5c is
// in the zone the capture may promote.
TEST(UnashogiMoves, NoCaptureBeforeTheKing) {
  const auto before = Position::fromSfen(unashogi(), "k8/9/4p4/9/4R4/9/9/9/9 b K 1");
  EXPECT_EQ(boardMovesFrom(before, "5e"),
            movesFromTo("5e", {"5d", "5f", "5g", "5h", "5i", "4e", "3e", "2e", "1e", "6e", "7e", "8e", "9e"}));
  const auto after = Position::fromSfen(unashogi(), "k8/9/4p4/9/4R4/9/9/9/8K b - 1");
  EXPECT_TRUE(hasLegal(after, "5e5c"));
  EXPECT_TRUE(hasLegal(after, "5e5c+"));
}

// Before its king is dropped sente may not promote: its pawn on 5d goes to 5c unpromoted only,
// and its pawn on 3b has no move (on 3a it would have to promote). With the king on 1i: 5c or
// 5c+, and 3a+ only.
TEST(UnashogiMoves, NoPromotionBeforeTheKing) {
  const auto before = Position::fromSfen(unashogi(), "k8/6P2/9/4P4/9/9/9/9/9 b K 1");
  EXPECT_EQ(boardMovesFrom(before, "5d"), movesFromTo("5d", {"5c"}));
  EXPECT_TRUE(boardMovesFrom(before, "3b").empty());
  const auto after = Position::fromSfen(unashogi(), "k8/6P2/9/4P4/9/9/9/9/8K b - 1");
  EXPECT_EQ(boardMovesFrom(after, "5d"), movesFromTo("5d", {"5c", "5c+"}));
  EXPECT_EQ(boardMovesFrom(after, "3b"), movesFromTo("3b", {"3a+"}));
}

// A side whose king is in hand threatens nothing: sente's rook on 5e does not check gote's king
// on 5a, which may even step to 5b on the rook's file. Once sente drops its king (K*1i), the
// rook checks.
TEST(UnashogiMoves, APieceThreatensOnlyOnceItsKingIsDropped) {
  const auto gote = Position::fromSfen(unashogi(), "4k4/9/9/9/4R4/9/9/9/9 w K 1");
  EXPECT_FALSE(gote.inCheck());
  EXPECT_TRUE(hasLegal(gote, "5a5b"));
  auto sente = Position::fromSfen(unashogi(), "4k4/9/9/9/4R4/9/9/9/9 b K 1");
  play(sente, {"K*1i"});
  EXPECT_TRUE(sente.inCheck());
  EXPECT_FALSE(hasLegal(sente, "5a5b"));
}

// A king is not dropped where it would be attacked: gote's rook on 5c (gote's king on 5a, so
// the rook threatens) covers the 5-file, so K*5e is illegal and K*4e legal. With gote's king in
// hand the same rook threatens nothing and K*5e is legal.
TEST(UnashogiMoves, AKingIsNotDroppedIntoAnAttack) {
  const auto armed = Position::fromSfen(unashogi(), "4k4/9/4r4/9/9/9/9/9/9 b K 1");
  EXPECT_FALSE(hasLegal(armed, "K*5e"));
  EXPECT_TRUE(hasLegal(armed, "K*4e"));
  const auto unarmed = Position::fromSfen(unashogi(), "9/9/4r4/9/9/9/9/9/9 b Kk 1");
  EXPECT_TRUE(hasLegal(unarmed, "K*5e"));
}

// Dropping the king and taking it back restores everything: the position, its hash and which
// side threatens.
TEST(UnashogiMoves, TakingBackAKingDropRestoresThePosition) {
  auto pos = Position::fromSfen(unashogi(), "4k4/9/9/9/4R4/9/9/9/9 b K 1");
  const std::string sfen = pos.sfen();
  const uint64_t hash = pos.hash();
  play(pos, {"K*1i"});
  EXPECT_EQ(pos.hash(), pos.computeHash());
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), sfen);
  EXPECT_EQ(pos.hash(), hash);
  EXPECT_FALSE(pos.attackedBy(sq(pos.variant(), "5a"), 0));
}

// Each side has one king, on the board or in hand: none, or one on the board and one in hand,
// is refused by name.
TEST(UnashogiSfen, OneKingASideOnTheBoardOrInHand) {
  try {
    Position::fromSfen(unashogi(), "4k4/9/9/9/9/9/9/9/9 b - 1");
    ADD_FAILURE() << "sente without a king was accepted";
  } catch (const SfenError& e) {
    EXPECT_NE(std::string(e.what()).find("sente has 0 kings"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Position::fromSfen(unashogi(), "4k4/9/9/9/9/9/9/9/4K4 b K 1"), SfenError);
  EXPECT_NO_THROW(Position::fromSfen(unashogi(), "9/9/9/9/9/9/9/9/9 b Kk 1"));
}
