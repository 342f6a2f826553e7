// Position invariants on random play in every variant: SFEN round trip, make/unmake restoring
// board, hands and hash exactly, and the incremental hash equal to one computed from scratch.
#include <gtest/gtest.h>

#include <random>

#include "game/perft.h"
#include "game/variant_loader.h"
#include "support/random_positions.h"

using namespace poppy::game;

class EveryVariant : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryVariant, SfenRoundTripOnRandomPositions) {
  const VariantPtr v = loadVariant(GetParam());
  for (const std::string& sfen : poppy::testing::randomPositions(v, 300, 120, 7)) {
    const Position pos = Position::fromSfen(v, sfen);
    EXPECT_EQ(pos.sfen(), sfen);
    EXPECT_EQ(Position::fromSfen(v, pos.sfen()).hash(), pos.hash()) << sfen;
  }
}

TEST_P(EveryVariant, MakeUnmakeRestoresPositionAndHash) {
  const VariantPtr v = loadVariant(GetParam());
  std::mt19937 rng(11);
  MoveList moves;
  for (int game = 0; game < 40; ++game) {
    Position pos(v);
    for (int ply = 0; ply < 150; ++ply) {
      pos.generateLegal(moves);
      if (moves.size() == 0) break;
      const std::string before = pos.sfen();
      const uint64_t hash = pos.hash();
      const bool check = pos.inCheck();
      // Every legal move here must undo exactly.
      for (const Move& m : moves) {
        pos.makeMove(m);
        ASSERT_EQ(pos.hash(), pos.computeHash()) << before << " " << pos.moveToUsi(m);
        pos.unmakeMove();
        ASSERT_EQ(pos.sfen(), before);
        ASSERT_EQ(pos.hash(), hash);
        ASSERT_EQ(pos.inCheck(), check);
      }
      pos.makeMove(moves[std::uniform_int_distribution<int>(0, moves.size() - 1)(rng)]);
    }
    // Unwinding the whole game returns to the start position.
    while (pos.gamePly() > 0) pos.unmakeMove();
    EXPECT_EQ(pos.sfen(), Position(v).sfen());
    EXPECT_EQ(pos.hash(), Position(v).hash());
  }
}

TEST_P(EveryVariant, UsiTextRoundTripsForEveryLegalMove) {
  const VariantPtr v = loadVariant(GetParam());
  MoveList moves;
  for (const std::string& sfen : poppy::testing::randomPositions(v, 100, 100, 3)) {
    const Position pos = Position::fromSfen(v, sfen);
    pos.generateLegal(moves);
    for (const Move& m : moves) EXPECT_EQ(pos.parseUsi(pos.moveToUsi(m)), m) << sfen << " " << pos.moveToUsi(m);
  }
}

TEST_P(EveryVariant, InCheckAgreesWithAttackTest) {
  const VariantPtr v = loadVariant(GetParam());
  for (const std::string& sfen : poppy::testing::randomPositions(v, 200, 120, 5)) {
    const Position pos = Position::fromSfen(v, sfen);
    const Color us = pos.sideToMove();
    // Unashogi: a king still in hand (square -1) is never in check.
    const bool kingAttacked = pos.kingSquare(us) >= 0 && pos.attackedBy(pos.kingSquare(us), pos.opponent(us));
    EXPECT_EQ(pos.inCheck(), kingAttacked) << sfen;
    // No legal move leaves the mover's king attacked.
    MoveList moves;
    pos.generateLegal(moves);
    Position copy = pos;
    for (const Move& m : moves) {
      copy.makeMove(m);
      EXPECT_FALSE(copy.kingSquare(us) >= 0 && copy.attackedBy(copy.kingSquare(us), copy.opponent(us)))
          << sfen << " " << pos.moveToUsi(m);
      copy.unmakeMove();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, EveryVariant,
                         ::testing::Values("micro", "minishogi", "kyoto", "judkins", "gorogoro", "tori", "shogi",
                                           "yari", "whale", "small", "quasi", "cubic", "cubic8", "cannon", "miburi", "annan", "unashogi", "hand"));

TEST(Hash, TranspositionsHashAlike) {
  // The same position reached by two move orders has one hash; a different hand changes it.
  const VariantPtr v = loadVariant("micro");
  Position a(v), b(v);
  for (const char* m : {"1d1c", "4b4c", "3e3d"}) a.makeMove(a.parseUsi(m));
  for (const char* m : {"3e3d", "4b4c", "1d1c"}) b.makeMove(b.parseUsi(m));
  EXPECT_EQ(a.sfen().substr(0, a.sfen().rfind(' ')), b.sfen().substr(0, b.sfen().rfind(' ')));
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(Position::fromSfen(v, "kbgs/p3/4/3P/SGBK b P 1").hash(), Position(v).hash());
  EXPECT_NE(Position::fromSfen(v, "kbgs/p3/4/3P/SGBK w - 1").hash(), Position(v).hash());
}

TEST(Sfen, HandInAnyOrderIsWrittenCanonically) {
  // docs/RULES.md: any hand order accepted, canonical order written (sente first, piece order
  // of the variant file: R B G S N L P for shogi).
  const VariantPtr v = loadVariant("shogi");
  const Position pos = Position::fromSfen(v, "4k4/9/9/9/9/9/9/9/4K4 b p2PbRG3l 1");
  EXPECT_EQ(pos.sfen(), "4k4/9/9/9/9/9/9/9/4K4 b RG2Pb3lp 1");
}
