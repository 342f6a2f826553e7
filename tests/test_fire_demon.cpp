// The powers of game/powers.h (area moves, burning, double igui) on mitsugumi shogi's fire
// demon, in the test variant tests/data/fire_demon.yaml (7x7; files 7..1 from sente's left,
// ranks a..g from the top). Every expected move list is derived by hand in the comments from
// seed 004's prose as docs/RULES.md "Mitsugumi shogi" reads it, never from the engine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
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

VariantPtr fireDemonVariant() {
  static const VariantPtr v = loadVariantFile(std::string(POPPY_SOURCE_DIR) + "/tests/data/fire_demon.yaml");
  return v;
}

Position at(const std::map<std::string, std::string>& pieces, const std::string& rest = " b - 1") {
  const VariantPtr v = fireDemonVariant();
  return Position::fromSfen(v, boardSfen(*v, pieces) + rest);
}

// The legal moves of the piece on `from` (USI text).
std::vector<std::string> movesOf(const Position& pos, const std::string& from) {
  std::vector<std::string> out;
  for (const std::string& m : legalUsi(pos))
    if (m.rfind(from, 0) == 0) out.push_back(m);  // 7x7: every square is two characters
  return out;
}

using Moves = std::set<std::string>;

// The legal moves of the piece on `from` that end on `to` (burns included).
Moves movesTo(const Position& pos, const std::string& from, const std::string& to) {
  Moves out;
  for (const std::string& m : movesOf(pos, from))
    if (m.compare(from.size(), to.size(), to) == 0 &&
        (m.size() == from.size() + to.size() || m[from.size() + to.size()] == 'x'))
      out.insert(m);
  return out;
}

TEST(FireDemon, AloneItReachesEverySquareWithinThreeKingStepsAndBurnsTheKingBesideOne) {
  // Sente Z 4d (the centre), K 1g; gote k 6a. Three king steps from the centre of a 7x7 board
  // reach all 48 other squares through empty ones; the own king's 1g is not a destination:
  // 47 moves (6a a capture). Its slides (rank d, the diagonals) reach nothing more. Burning:
  // the squares next to 6a (7a, 5a, 7b, 6b, 5b) are destinations, each with the king to
  // burn: 5 more. No enemy stands next to 4d: no igui. A turn skip (out to an empty square
  // and back): 1. The king in the corner: 2g, 2f, 1f. 47 + 5 + 1 + 3 = 56.
  const Position pos = at({{"4d", "Z"}, {"1g", "K"}, {"6a", "k"}});
  EXPECT_EQ(legalUsi(pos).size(), 56u);
  EXPECT_EQ(movesOf(pos, "4d").size(), 53u);
  for (const std::string burn : {"4d7ax6a", "4d5ax6a", "4d7bx6a", "4d6bx6a", "4d5bx6a"}) EXPECT_TRUE(hasLegal(pos, burn)) << burn;
  EXPECT_TRUE(hasLegal(pos, "4d6a"));
  EXPECT_FALSE(hasLegal(pos, "4d1g"));
}

// Sente Z 4d, K 1g; gote k 7a, p 4c and 3e, gold 3b, fire demon 5e. Next to 4d: 4c (above),
// 3e (below right) and the gote fire demon on 5e (below left).
Position crowded() { return at({{"4d", "Z"}, {"1g", "K"}, {"7a", "k"}, {"4c", "p"}, {"3e", "p"}, {"3b", "g"}, {"5e", "z"}}); }

TEST(FireDemon, BurnsAnyOneOrTwoEnemiesNextToItsDestination) {
  const Position pos = crowded();
  // 3d: its neighbours 4c, 3c, 2c, 4d (left empty), 2d, 4e, 3e, 2e hold the pawns 4c and 3e:
  // no burn, either one, or both. Burned squares are written clockwise from the one above the
  // destination: 3e (below) before 4c (above left).
  EXPECT_EQ(movesTo(pos, "4d", "3d"), (Moves{"4d3d", "4d3dx4c", "4d3dx3e", "4d3dx3ex4c"}));
  // 4c (a capture, one area step): next to it 5b, 4b, 3b, 5c, 3c, 5d, 4d, 3d; only the gold
  // on 3b is an enemy.
  EXPECT_EQ(movesTo(pos, "4d", "4c"), (Moves{"4d4c", "4d4cx3b"}));
}

TEST(FireDemon, NeverBurnsAFireDemon) {
  const Position pos = crowded();
  // 5d: next to it 6c, 5c, 4c (pawn), 6d, 4d, 6e, 5e (the gote fire demon), 4e. Only the pawn
  // burns.
  EXPECT_EQ(movesTo(pos, "4d", "5d"), (Moves{"4d5d", "4d5dx4c"}));
  // 4e: next to it 5d, 3d, 5e (fire demon), 3e (pawn), 5f, 4f, 3f, 4d: only 3e.
  EXPECT_EQ(movesTo(pos, "4d", "4e"), (Moves{"4d4e", "4d4ex3e"}));
  // It may still capture the fire demon by moving onto it (one area step); next to 5e then
  // are 6d, 5d, 4d, 6e, 4e, 6f, 5f, 4f, none an enemy: no burn.
  EXPECT_EQ(movesTo(pos, "4d", "5e"), (Moves{"4d5e"}));
  // Naming it as burned is refused with the reason.
  try {
    pos.parseUsi("4d5dx5e");
    ADD_FAILURE() << "a fire demon was burned";
  } catch (const MoveError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("burning never takes the fire demon on 5e"));
  }
}

TEST(FireDemon, TakesOneOrTwoNeighboursWithoutMovingAFireDemonIncluded) {
  const Position pos = crowded();
  // Igui: the three enemies next to 4d one at a time (written as a lion's igui, through the
  // square and back), and each pair of them (written as a burn without moving). The fire
  // demon on 5e may be taken this way.
  Moves home;  // the moves that leave it on 4d: the text ends on 4d, before any "x"
  for (const std::string& m : movesOf(pos, "4d")) {
    const std::string squares = m.substr(0, m.find('x'));
    if (squares.size() > 2 && squares.substr(squares.size() - 2) == "4d") home.insert(m);
  }
  // Out to an empty neighbour and back is the turn skip: one move, whichever empty square it
  // names (4d has five: 3c, 3d, 4e, 5d, 5c).
  int skips = 0;
  for (const char* empty : {"3c", "3d", "4e", "5d", "5c"}) skips += int(home.erase("4d" + std::string(empty) + "4d"));
  EXPECT_EQ(skips, 1);
  EXPECT_EQ(home, (Moves{"4d4c4d", "4d3e4d", "4d5e4d", "4d4dx4cx3e", "4d4dx4cx5e", "4d4dx3ex5e"}));
}

TEST(FireDemon, MakeAndUnmakeRestoreEverythingAndCapturesGoToHand) {
  Position pos = crowded();
  const std::string before = pos.sfen();
  const uint64_t hash = pos.hash();
  pos.makeMove(pos.parseUsi("4d3dx4cx3e"));
  EXPECT_EQ(tokenAt(pos, "3d"), "Z");
  EXPECT_EQ(tokenAt(pos, "4d"), "");
  EXPECT_EQ(tokenAt(pos, "4c"), "");
  EXPECT_EQ(tokenAt(pos, "3e"), "");
  EXPECT_EQ(field(pos.sfen(), 2), "2P");  // both burned pawns in sente's hand
  EXPECT_EQ(pos.hash(), pos.computeHash());
  EXPECT_EQ(Position::fromSfen(fireDemonVariant(), pos.sfen()).hash(), pos.hash());
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), before);
  EXPECT_EQ(pos.hash(), hash);

  pos.makeMove(pos.parseUsi("4d4dx4cx5e"));  // double igui: the pawn and the fire demon
  EXPECT_EQ(tokenAt(pos, "4d"), "Z");
  EXPECT_EQ(tokenAt(pos, "5e"), "");
  EXPECT_EQ(field(pos.sfen(), 2), "ZP");
  EXPECT_EQ(pos.hash(), pos.computeHash());
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), before);
}

TEST(FireDemon, UsiTextOfBurnsReadsBackAndBadTextIsNamed) {
  const Position pos = crowded();
  for (const std::string& text : legalUsi(pos)) EXPECT_EQ(pos.moveToUsi(pos.parseUsi(text)), text);
  // One neighbour taken without moving may also be written as a burn of one square.
  EXPECT_EQ(pos.moveToUsi(pos.parseUsi("4d4dx4c")), "4d4c4d");
  // Burned squares may be named in any order; they are written back clockwise from above.
  EXPECT_EQ(pos.moveToUsi(pos.parseUsi("4d3dx4cx3e")), "4d3dx3ex4c");
  auto error = [&](const std::string& text) {
    try {
      pos.parseUsi(text);
    } catch (const MoveError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(error("4d3dx5f"), HasSubstr("5f is not next to 3d"));
  EXPECT_THAT(error("4d3dx4cx4c"), HasSubstr("named twice"));
  EXPECT_THAT(error("4d4ex5e"), HasSubstr("burning never takes the fire demon on 5e"));
  EXPECT_THAT(error("4d3dx"), HasSubstr("bad burned square"));
  EXPECT_THAT(error("4d3dx4c+"), HasSubstr("does not flip"));
}

TEST(FireDemon, AttacksByAreaMoveAndByBurningAfterASlide) {
  // Sente Z 7d, K 7g; gote k 1c. 1c is six files away, out of area reach, on no line of the
  // fire demon; but the sideways slide reaches 2d and 1d, next to 1c, where a burn takes the
  // king: 1c is attacked, and gote is in check.
  const Position open = at({{"7d", "Z"}, {"7g", "K"}, {"1c", "k"}}, " w - 1");
  EXPECT_TRUE(open.inCheck());
  EXPECT_TRUE(open.attackedBy(sq(open.variant(), "1c"), 0));
  // A sente pawn on 6d stops the slide; area moves end three files from 7d: no attack.
  const Position blocked = at({{"7d", "Z"}, {"6d", "P"}, {"7g", "K"}, {"1c", "k"}}, " w - 1");
  EXPECT_FALSE(blocked.inCheck());
  // Three king steps through empty squares: 7d -> 6c -> 5b -> 4a takes a king on 4a.
  const Position area = at({{"7d", "Z"}, {"7g", "K"}, {"4a", "k"}}, " w - 1");
  EXPECT_TRUE(area.inCheck());
}

TEST(PrimeLetters, TheViceGeneralIsWrittenZPrimeInSfenUsiAndHands) {
  const VariantPtr v = fireDemonVariant();
  // Z' on the board for both sides and in both hands reads back unchanged.
  const std::string sfen = "3k3/2z'4/7/3Z'3/7/7/6K b 2Z'Pz'g 1";
  const Position pos = Position::fromSfen(v, sfen);
  EXPECT_EQ(pos.sfen(), sfen);
  EXPECT_EQ(tokenAt(pos, "4d"), "Z'");
  EXPECT_EQ(tokenAt(pos, "5b"), "z'");
  // Its moves from 4d (kings on 4a and 1g): area moves reach every square within three king
  // steps through empty ones, all 48 others but the own king's 1g and the gote pieces' 4a and
  // 5b, which it captures: 47; the bishop lines add nothing (they lie within three steps, and
  // beyond 1g the line ends); the jumps capture nothing (the one piece on its diagonals, 5b
  // up-left... is the first piece met: an ordinary capture, already counted); a turn skip: 1.
  EXPECT_EQ(movesTo(pos, "4d", "4a").size(), 1u);
  std::set<std::string> own;
  for (const std::string& m : legalUsi(pos))
    if (m.rfind("4d", 0) == 0) own.insert(m);
  EXPECT_EQ(own.size(), 48u);
  // A drop of it: Z'*4c; a plain Z*4c is another piece (none in hand).
  EXPECT_TRUE(hasLegal(pos, "Z'*4c"));
  EXPECT_EQ(pos.parseUsi("Z'*4c"), Move::drop(v->faceIndex('Z', false, true), sq(*v, "4c")));
  try {
    pos.parseUsi("Z*4c");
    ADD_FAILURE() << "a drop of a piece not in hand was accepted";
  } catch (const MoveError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("no Z in hand"));
  }
  // An unknown primed letter is named.
  try {
    Position::fromSfen(v, "3k3/7/7/3G'3/7/7/6K b - 1");
    ADD_FAILURE() << "G' was accepted";
  } catch (const SfenError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("unknown piece 'G''"));
  }
}

TEST(FireDemon, RandomGamesKeepMakeUnmakeHashAndTextConsistent) {
  // Invariants over random play from the test variant's start (both sides have two fire
  // demons, golds and pawns, and drop what they take): unmake restores the SFEN and hash, the
  // incremental hash matches a fresh one, every legal move's text reads back as that move.
  const VariantPtr v = fireDemonVariant();
  std::mt19937 rng(7);
  int burns = 0, doubleIgui = 0;
  for (int game = 0; game < 60; ++game) {
    Position pos(v);
    for (int ply = 0; ply < 80 && !pos.outcome(200).over(); ++ply) {
      MoveList list;
      pos.generateLegal(list);
      ASSERT_GT(list.size(), 0);
      for (const Move& m : list) {
        ASSERT_EQ(pos.parseUsi(pos.moveToUsi(m)), m) << pos.sfen() << " " << pos.moveToUsi(m);
        burns += m.isBurn() && m.to != m.from;
        doubleIgui += m.isBurn() && m.to == m.from;
      }
      const Move m = list[int(rng() % unsigned(list.size()))];
      const std::string before = pos.sfen();
      const uint64_t hash = pos.hash();
      pos.makeMove(m);
      ASSERT_EQ(pos.hash(), pos.computeHash()) << before << " " << pos.moveToUsi(m);
      // (An SFEN has no form for a side without its king: the game is over then.)
      if (!pos.outcome().over()) {
        ASSERT_EQ(Position::fromSfen(v, pos.sfen()).sfen(), pos.sfen());
      }
      pos.unmakeMove();
      ASSERT_EQ(pos.sfen(), before);
      ASSERT_EQ(pos.hash(), hash);
      pos.makeMove(m);
    }
  }
  // The games did exercise the powers.
  EXPECT_GT(burns, 100);
  EXPECT_GT(doubleIgui, 0);
}

}  // namespace
