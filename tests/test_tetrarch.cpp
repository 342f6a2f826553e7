// Mitsugumi shogi's heavenly tetrarch (skip-first slides, double igui, freezing) and the
// turn-skip rule, in the test variant tests/data/tetrarch.yaml (7x7; files 7..1 from sente's
// left, ranks a..g from the top). Expected moves are derived by hand in the comments from seed
// 004's prose as docs/RULES.md "Mitsugumi shogi" reads it, never from the engine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;
using ::testing::HasSubstr;

namespace {

VariantPtr tetrarchVariant() {
  static const VariantPtr v = loadVariantFile(std::string(POPPY_SOURCE_DIR) + "/tests/data/tetrarch.yaml");
  return v;
}

Position at(const std::map<std::string, std::string>& pieces, const std::string& rest = " b - 1") {
  const VariantPtr v = tetrarchVariant();
  return Position::fromSfen(v, boardSfen(*v, pieces) + rest);
}

std::set<std::string> movesOf(const Position& pos, const std::string& from) {
  std::set<std::string> out;
  for (const std::string& m : legalUsi(pos))
    if (m.rfind(from, 0) == 0) out.insert(m);  // 7x7: every square is two characters
  return out;
}

// Legal turn skips: passes (out to an empty square and back) that do not promote.
int skips(const Position& pos) {
  MoveList list;
  pos.generateLegal(list);
  int n = 0;
  for (const Move& m : list) n += m.isTwoLeg() && m.to == m.from && !pos.at(m.mid()) && !m.isFlip();
  return n;
}

TEST(Tetrarch, SlidesSkippingItsFirstSquareAndAtMostThreeSideways) {
  // T on 4d, the centre; kings on 2g and 6a, on none of its lines. Up the file it skips 4c and
  // reaches 4b, 4a; down, 4f, 4g; each diagonal has three squares, the first skipped: 2 each,
  // 8; sideways it ends 2 or 3 squares away: 6d, 7d, 2d, 1d. 4 + 8 + 4 = 16.
  const Position pos = at({{"4d", "T"}, {"2g", "K"}, {"6a", "k"}});
  EXPECT_EQ(movesOf(pos, "4d"),
            (std::set<std::string>{"4d4b", "4d4a", "4d4f", "4d4g", "4d6b", "4d7a", "4d2b", "4d1a", "4d6f", "4d7g",
                                   "4d2f", "4d1g", "4d6d", "4d7d", "4d2d", "4d1d"}));
  // What stands on the skipped square does not matter: an own pawn on 4c changes nothing.
  EXPECT_EQ(movesOf(at({{"4d", "T"}, {"4c", "P"}, {"2g", "K"}, {"6a", "k"}}), "4d").size(), 17u - 1u);
  // An own pawn on 4b (the second square up) ends that line: 16 - 2 = 14.
  EXPECT_EQ(movesOf(at({{"4d", "T"}, {"4b", "P"}, {"2g", "K"}, {"6a", "k"}}), "4d").size(), 14u);
}

TEST(Tetrarch, TakesOneOrTwoNeighboursWithoutMoving) {
  // Gote gold on 3c and pawn on 5e, both next to T on 4d. Its slides skip them (still 16),
  // plus igui on either (written through the square and back) and on both (3c is above right
  // of 4d, 5e below left: in clockwise order from above, 3c first).
  const Position pos = at({{"4d", "T"}, {"3c", "g"}, {"5e", "p"}, {"2g", "K"}, {"6a", "k"}});
  const std::set<std::string> moves = movesOf(pos, "4d");
  EXPECT_EQ(moves.size(), 19u);
  for (const std::string m : {"4d3c4d", "4d5e4d", "4d4dx3cx5e"}) EXPECT_EQ(moves.count(m), 1u) << m;
  // It has no turn skip: no move comes home through an empty square.
  EXPECT_EQ(skips(pos), 0);
}

TEST(Tetrarch, FreezesTheEnemiesNextToIt) {
  // The same board with gote to move: the gold on 3c and the pawn on 5e are frozen. Only the
  // gote king moves: 7a, 5a, 7b, 6b, 5b.
  const Position pos = at({{"4d", "T"}, {"3c", "g"}, {"5e", "p"}, {"2g", "K"}, {"6a", "k"}}, " w - 1");
  EXPECT_TRUE(pos.isFrozen(sq(pos.variant(), "3c")));
  EXPECT_TRUE(pos.isFrozen(sq(pos.variant(), "5e")));
  EXPECT_FALSE(pos.isFrozen(sq(pos.variant(), "4d")));
  EXPECT_EQ(legalUsi(pos).size(), 5u);
  // Moving a frozen piece is refused with the reason (the gold's 3c3d, a gold's step forwards
  // from gote's side).
  try {
    pos.parseUsi("3c3d");
    ADD_FAILURE() << "a frozen gold moved";
  } catch (const MoveError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("the piece on 3c is frozen"));
  }
  // A frozen piece attacks nothing: the gote gold on 3c would attack 2c beside it (a gold moves
  // one square sideways), where the sente king now stands. Frozen: no check.
  EXPECT_FALSE(at({{"4d", "T"}, {"3c", "g"}, {"2c", "K"}, {"6a", "k"}}).inCheck());
  // With the tetrarch away on 7g the gold attacks 2c: check.
  EXPECT_TRUE(at({{"7g", "T"}, {"3c", "g"}, {"2c", "K"}, {"6a", "k"}}).inCheck());
  // Own pieces are not frozen: a sente pawn next to the sente tetrarch moves.
  EXPECT_EQ(movesOf(at({{"4d", "T"}, {"3e", "P"}, {"2g", "K"}, {"6a", "k"}}), "3e").size(), 1u);
}

TEST(Tetrarch, TetrarchsDoNotFreezeEachOther) {
  // Gote tetrarch on 3c next to the sente one on 4d, gote to move: it moves. Its igui takes
  // the sente tetrarch (one neighbour): "3c4d3c" among its moves.
  const Position pos = at({{"4d", "T"}, {"3c", "t"}, {"2g", "K"}, {"6a", "k"}}, " w - 1");
  EXPECT_FALSE(pos.isFrozen(sq(pos.variant(), "3c")));
  EXPECT_EQ(movesOf(pos, "3c").count("3c4d3c"), 1u);
}

TEST(LionHawk, ASquareItBothLeapsAndSlidesToIsOneMove) {
  // The lion hawk (BWNADcaKmcabK) on 4d, kings on 2g and 6a: the 24 squares of the 5x5 around
  // it, and the bishop's lines beyond them (7a, 1a, 7g, 1g: the ends of the four diagonals);
  // the squares two away diagonally are both an A leap and a bishop slide, listed once.
  // Out to an empty neighbour and back: one pass. 24 + 4 + 1 = 29.
  const Position pos = at({{"4d", "+N"}, {"2g", "K"}, {"6a", "k"}});
  const std::set<std::string> moves = movesOf(pos, "4d");
  EXPECT_EQ(moves.size(), 29u);
  EXPECT_EQ(moves.count("4d2b"), 1u);
  MoveList list;
  pos.generateLegal(list);
  std::set<std::string> distinct;
  for (const Move& m : list) distinct.insert(pos.moveToUsi(m));
  EXPECT_EQ(distinct.size(), size_t(list.size())) << "a move is listed twice";
}

TEST(TurnSkips, NoSkipRightAfterTheOpponentsSkip) {
  // Lions on 4e (sente) and 4a (gote), kings on 2g and 6a. Sente may skip; after sente's skip
  // gote may not; after gote's ordinary move sente may skip again.
  Position pos = at({{"4e", "N"}, {"4a", "n"}, {"2g", "K"}, {"6a", "k"}});
  EXPECT_EQ(skips(pos), 1);
  pos.makeMove(pos.parseUsi("4e4d4e"));
  EXPECT_TRUE(pos.lastMoveSkipped());
  EXPECT_EQ(skips(pos), 0);
  try {
    pos.parseUsi("4a4b4a");
    ADD_FAILURE() << "a skip right after a skip was accepted";
  } catch (const MoveError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("4a4b4a"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("a turn skip may not answer the opponent's turn skip"));
  }
  pos.makeMove(pos.parseUsi("4a4b"));
  EXPECT_EQ(skips(pos), 1);
}

TEST(TurnSkips, APassThatPromotesIsNoSkip) {
  // The sente lion on 3b is in its zone (ranks a and b): out to 3c and back, turning into a
  // lion hawk, is legal even right after... nothing: and it is no skip, so gote may then skip.
  Position pos = at({{"3b", "N"}, {"5e", "n"}, {"2g", "K"}, {"6a", "k"}});
  pos.makeMove(pos.parseUsi("3b3c3b+"));
  EXPECT_EQ(tokenAt(pos, "3b"), "+N");
  EXPECT_FALSE(pos.lastMoveSkipped());
  EXPECT_EQ(skips(pos), 1);
  // And after gote's skip, sente's promoting pass is still legal, its plain pass is not.
  pos.makeMove(pos.parseUsi("5e5d5e"));
  Position back = at({{"3b", "N"}, {"5e", "n"}, {"2g", "K"}, {"6a", "k"}}, " w - 1");
  back.makeMove(back.parseUsi("5e5d5e"));
  EXPECT_EQ(skips(back), 0);
  EXPECT_NO_THROW(back.parseUsi("3b3c3b+"));
}

TEST(Tetrarch, RandomGamesKeepMakeUnmakeHashAndTextConsistent) {
  const VariantPtr v = tetrarchVariant();
  std::mt19937 rng(11);
  int frozenSeen = 0;
  for (int game = 0; game < 60; ++game) {
    Position pos(v);
    for (int ply = 0; ply < 80 && !pos.outcome(200).over(); ++ply) {
      MoveList list;
      pos.generateLegal(list);
      ASSERT_GT(list.size(), 0);
      for (const Move& m : list) {
        ASSERT_EQ(pos.parseUsi(pos.moveToUsi(m)), m) << pos.sfen() << " " << pos.moveToUsi(m);
        ASSERT_FALSE(pos.isFrozen(m.from) && !m.isDrop()) << pos.sfen() << " " << pos.moveToUsi(m);
      }
      for (Square s = 0; s < v->numSquares(); ++s) frozenSeen += pos.isFrozen(s);
      const Move m = list[int(rng() % unsigned(list.size()))];
      const std::string before = pos.sfen();
      pos.makeMove(m);
      ASSERT_EQ(pos.hash(), pos.computeHash()) << before << " " << pos.moveToUsi(m);
      pos.unmakeMove();
      ASSERT_EQ(pos.sfen(), before);
      pos.makeMove(m);
    }
  }
  EXPECT_GT(frozenSeen, 0);
}

}  // namespace
