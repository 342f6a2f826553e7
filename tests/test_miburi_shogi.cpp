// Miburi shogi (configs/variants/miburi.yaml): seed 002's "First player to check three times
// wins" on shogi (game/check_count.cpp). Expected counts and outcomes are derived by hand from
// that sentence and docs/RULES.md "Miburi shogi"; perft is compared with Fairy-Stockfish (npm
// package ffish 0.7.10, with tests/reference/ffish/miburi.ini: shogi with its check counting).
//
// Squares are USI: file 1..9 from sente's right, rank a gote's back rank, i sente's.
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

VariantPtr miburi() { return loadVariant("miburi"); }

// Kings on 5a and 5i, sente holding two rooks (R*5e checks down the 5-file).
const char* const kRooks = "4k4/9/9/9/9/9/9/9/4K4 b 2R 1";

}  // namespace

// Every move that leaves the opponent in check counts for its mover, in the fifth SFEN field and
// in the hash (the incremental hash equals the one computed from scratch); taking it back
// restores both.
TEST(MiburiChecks, ACheckCountsForItsMoverAndIsTakenBack) {
  auto pos = Position::fromSfen(miburi(), kRooks);
  EXPECT_EQ(pos.sfen(), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 0+0");  // the four-field SFEN reads as 0+0
  const uint64_t before = pos.hash();
  play(pos, {"R*5e"});
  EXPECT_TRUE(pos.inCheck());
  EXPECT_EQ(pos.checksGiven(0), 1);
  EXPECT_EQ(field(pos.sfen(), 4), "1+0");
  EXPECT_EQ(pos.hash(), pos.computeHash());
  play(pos, {"5a4a"});  // no check: gote's count stays
  EXPECT_EQ(field(pos.sfen(), 4), "1+0");
  pos.unmakeMove();
  pos.unmakeMove();
  EXPECT_EQ(pos.checksGiven(0), 0);
  EXPECT_EQ(pos.hash(), before);
}

// The same board with other counts is another position (repetitions and the search's tables
// must not merge them).
TEST(MiburiChecks, CountsArePartOfThePosition) {
  const auto none = Position::fromSfen(miburi(), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 0+0");
  const auto one = Position::fromSfen(miburi(), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 1+0");
  const auto other = Position::fromSfen(miburi(), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 0+1");
  EXPECT_NE(none.hash(), one.hash());
  EXPECT_NE(one.hash(), other.hash());
  EXPECT_EQ(one.hash(), one.computeHash());
}

// The third check wins at once, though gote could escape it: sente has given two; R*5e is the
// third. The game is over (perft counts no move from it) and sente has won.
TEST(MiburiChecks, TheThirdCheckWins) {
  auto pos = Position::fromSfen(miburi(), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 2+0");
  EXPECT_FALSE(pos.outcome().over());
  play(pos, {"R*5e"});
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kChecks);
  EXPECT_EQ(o.winner, 0);
  EXPECT_TRUE(pos.hasLegalMove());  // gote could move on in shogi; in miburi the game is over
  EXPECT_EQ(perft(pos, 1), 0u);
  EXPECT_EQ(field(pos.sfen(), 4), "3+0");
}

// A mate still wins, with the first check: gote's king on 1a behind its pawns on 1b and 2b; R*9a
// checks along rank a, 2a is the rook's, 1b and 2b are gote's own, gote holds nothing to drop
// between and nothing can take the rook.
TEST(MiburiChecks, MateWinsBeforeTheThirdCheck) {
  auto mate = Position::fromSfen(miburi(), "8k/7pp/9/9/9/9/9/9/4K4 b R 1 0+0");
  play(mate, {"R*9a"});
  const Outcome o = mate.outcome();
  EXPECT_EQ(o.reason, EndReason::kNoLegalMove);
  EXPECT_EQ(o.winner, 0);
  EXPECT_EQ(mate.checksGiven(0), 1);
}

// Bad fifth fields are refused, naming what is wrong.
TEST(MiburiChecks, BadCheckFieldsAreRefused) {
  for (const char* bad : {"1-0", "+1", "1+", "a+b", "1+0+0"})
    EXPECT_THROW(Position::fromSfen(miburi(), std::string("4k4/9/9/9/9/9/9/9/4K4 b 2R 1 ") + bad), SfenError) << bad;
  try {
    Position::fromSfen(miburi(), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 3+0");
    ADD_FAILURE() << "sente to move with 3 checks given was accepted";
  } catch (const SfenError& e) {
    EXPECT_NE(std::string(e.what()).find("sente has given 3 checks"), std::string::npos) << e.what();
  }
  // Other variants keep four fields.
  EXPECT_THROW(Position::fromSfen(loadVariant("shogi"), "4k4/9/9/9/9/9/9/9/4K4 b 2R 1 0+0"), SfenError);
}

// Fairy-Stockfish (ffish, miburi.ini) counted 30, 900, 25,470, 719,731 on 2026-11-28: shogi's
// counts, since no side can give three checks in four plies.
TEST(MiburiPerft, StartPositionAsFairyStockfish) {
  Position start(miburi());
  EXPECT_EQ(perft(start, 4), 719731u);
  const auto lines = ffishLines("miburi", "perft 3 " + start.sfen() + "\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "30 900 25470");
}

// Random positions, and positions near the end: a rook in each hand and counts of 0 to 2, where
// perft 2 meets games won by a third check.
TEST(MiburiPerft, RandomPositionsAsFairyStockfish) {
  expectRandomPositionsAsFfish(miburi(), "miburi", 60, 160, 2032);
  std::vector<std::string> late;
  for (const std::string counts : {"2+2", "2+1", "1+2", "0+2"})
    late.push_back(std::string("4k4/9/9/9/9/9/9/9/4K4 b Rr 1 ") + counts);
  late.push_back("lnsgk2nl/1r4sb1/p1pppp1pp/6p2/1p7/2P6/PP1PPPPPP/1BG4R1/LNS1KGSNL b - 9 1+1");
  expectPositionsAsFfish(miburi(), "miburi", late);
}
