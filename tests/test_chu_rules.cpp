// Chu shogi's game rules worked out by hand from seed 002 and docs/RULES.md "Chu shogi": royal
// capture (a king may move into check; the game ends when every royal piece of a side is gone,
// the crown prince counting as a second king), the bare-king rule and the bare-kings draw (as
// lishogi), the lion-capture SFEN field, and bad input. Move generation is compared with
// shogiops in test_chu_perft.cpp.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "game/position.h"
#include "game/variant_loader.h"

using namespace poppy::game;

namespace {

class ChuRules : public ::testing::Test {
 protected:
  VariantPtr chu = loadVariant("chu");
  Position at(const std::string& sfen) { return Position::fromSfen(chu, sfen); }
  Position after(const std::string& sfen, const std::string& usi) {
    Position pos = at(sfen);
    pos.makeMove(pos.parseUsi(usi));
    return pos;
  }
};

TEST_F(ChuRules, TheStartPositionIsLishogis) {
  const Position pos(chu);
  EXPECT_EQ(pos.sfen(), "lfcsgekgscfl/a1b1txot1b1a/mvrhdqndhrvm/pppppppppppp/3i4i3/12/12/3I4I3/PPPPPPPPPPPP/"
                        "MVRHDNQDHRVM/A1B1TOXT1B1A/LFCSGKEGSCFL b - 1");
  EXPECT_FALSE(pos.outcome().over());
  EXPECT_EQ(pos.royalCount(0), 1);
  EXPECT_EQ(pos.royalCount(1), 1);
}

// Gote's rook on 1k covers the whole k rank: sente's king on 6l may still step onto it.
TEST_F(ChuRules, AKingMayMoveIntoCheck) {
  const std::string sfen = "11k/12/12/12/12/12/12/12/12/12/11r/6K3GS b - 1";
  EXPECT_FALSE(after(sfen, "6l6k").outcome().over());
  Position pos = at(sfen);
  pos.makeMove(pos.parseUsi("6l6k"));
  pos.makeMove(pos.parseUsi("1a2a"));
  EXPECT_TRUE(pos.inCheck()) << "sente's king stands on the rook's rank";
}

// Sente's rook takes gote's only king: gote, to move, has lost.
TEST_F(ChuRules, TakingTheLastRoyalWins) {
  const Position pos = after("6k5/12/12/12/12/1p10/12/12/12/12/12/K5R5 b - 1", "6l6a");
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kRoyalsCaptured);
  EXPECT_EQ(o.winner, 0);
  EXPECT_EQ(pos.royalCount(1), 0);
}

// With a crown prince (+E) beside its king, gote survives the loss of either one.
TEST_F(ChuRules, TheCrownPrinceIsASecondKing) {
  const std::string sfen = "6k+e4/12/12/12/12/1p10/12/12/12/12/12/K5R4R b - 1";
  Position pos = after(sfen, "6l6a");
  EXPECT_FALSE(pos.outcome().over()) << "the prince still stands";
  EXPECT_EQ(pos.royalCount(1), 1);
  pos.makeMove(pos.parseUsi("11f11g"));
  pos.makeMove(pos.parseUsi("1l1a"));  // the rook from 1l along the file
  pos.makeMove(pos.parseUsi("11g11h"));
  pos.makeMove(pos.parseUsi("1a5a"));  // takes the prince
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kRoyalsCaptured);
  EXPECT_EQ(o.winner, 0);
}

TEST_F(ChuRules, ADrunkElephantPromotesToACrownPrince) {
  // Drunk elephant on 6e enters the zone (ranks a-d) on 6d.
  const Position pos = after("11k/12/12/12/6E5/12/12/12/12/12/12/K11 b - 1", "6e6d+");
  EXPECT_EQ(pos.royalCount(0), 2);
  EXPECT_EQ(pos.sfen(), "11k/12/12/6+E5/12/12/12/12/12/12/12/K11 w - 2");
}

// Bare king (lishogi): gote has only its king; sente keeps its king, a gold and a silver, and
// gote's king gives no check: gote loses, whoever is to move.
TEST_F(ChuRules, ABareKingLoses) {
  const Outcome gote = at("11k/12/12/12/12/12/12/12/12/12/12/KGS9 w - 1").outcome();
  EXPECT_EQ(gote.reason, EndReason::kBareKing);
  EXPECT_EQ(gote.winner, 0);
  const Outcome sente = at("11k/12/12/12/12/12/12/12/12/12/12/KGS9 b - 1").outcome();
  EXPECT_EQ(sente.reason, EndReason::kBareKing);
  EXPECT_EQ(sente.winner, 0);
}

TEST_F(ChuRules, PawnsAndGoBetweensDoNotBareAKing) {
  // Sente has its king and pawns and go-betweens only: not enough.
  EXPECT_FALSE(at("11k/12/12/12/12/12/12/12/12/12/PPI9/K11 w - 1").outcome().over());
  // King and one gold, and the bare king stands next to the gold (it could take it): not over.
  EXPECT_FALSE(at("12/12/12/12/12/12/12/12/12/12/2k9/KG10 w - 1").outcome().over());
  // The same gold out of the bare king's reach: gote loses.
  EXPECT_EQ(at("12/12/12/12/12/12/12/1k10/12/12/12/K10G w - 1").outcome().reason, EndReason::kBareKing);
}

TEST_F(ChuRules, TwoBareKingsDraw) {
  const Outcome o = at("11k/12/12/12/12/12/12/12/12/12/12/K11 b - 1").outcome();
  EXPECT_EQ(o.reason, EndReason::kBareKings);
  EXPECT_TRUE(o.draw());
  // A pawn stuck on its last rank does not count.
  EXPECT_EQ(at("P10k/12/12/12/12/12/12/12/12/12/12/K11 b - 1").outcome().reason, EndReason::kBareKings);
}

// The third SFEN field: where a non-lion just took a lion (lishogi), kept through make/unmake.
TEST_F(ChuRules, TheLionCaptureSquareIsPartOfThePosition) {
  // Gote's lion on 6f; sente's gold on 6g takes it.
  const std::string sfen = "11k/12/12/12/12/6n5/6G5/12/12/12/12/K11 b - 1";
  Position pos = at(sfen);
  const uint64_t before = pos.hash();
  pos.makeMove(pos.parseUsi("6g6f"));
  EXPECT_EQ(pos.lionCaptureSquare(), chu->square(chu->files - 6, 5));  // 6f
  EXPECT_EQ(pos.sfen(), "11k/12/12/12/12/6G5/12/12/12/12/12/K11 w 6f 2");
  EXPECT_EQ(pos.hash(), pos.computeHash());
  EXPECT_EQ(Position::fromSfen(chu, pos.sfen()).hash(), pos.hash());
  pos.unmakeMove();
  EXPECT_EQ(pos.hash(), before);
  EXPECT_EQ(pos.sfen(), sfen);
}

// Repetition as lishogi (docs/RULES.md "Chu shogi"): the fourth occurrence draws, unless one
// side checked or attacked a piece with every move since the position first stood there; that
// side loses. Sente's rook shuttles between 3e and 3f, each time onto the rank of gote's gold,
// which steps between 6e and 6f to get away: 3h3e 6e6f 3e3f 6f6e 3f3e ... The position after
// 3h3e (rook 3e, gold 6e, gote to move) comes back after plies 5, 9 and 13. Every sente move of
// that stretch (plies 3 to 13) ends with the rook attacking the gold along the rank; no gote
// move attacks anything (a gold on 6e or 6f reaches no sente piece). Sente loses at ply 13 by
// perpetual attack, though it never checked. Kings on 12a and 1l, out of every line.
const std::string kShuttle = "k11/12/12/12/6g5/12/12/9R2/12/12/12/11K b - 1";
const char* const kShuttleMoves[] = {"3h3e", "6e6f", "3e3f", "6f6e", "3f3e", "6e6f", "3e3f",
                                     "6f6e", "3f3e", "6e6f", "3e3f", "6f6e", "3f3e"};

TEST_F(ChuRules, APerpetualAttackLoses) {
  Position pos = at(kShuttle);
  for (const char* m : kShuttleMoves) {
    EXPECT_FALSE(pos.outcome().over()) << "before " << m;
    pos.makeMove(pos.parseUsi(m));
  }
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kPerpetualAttack);
  EXPECT_EQ(o.winner, 1);
  EXPECT_EQ(pos.repetitionsSoFar(), 3);
}

// Without the rule (perpetual_attack: allowed) the same shuttle draws by repetition; and a
// shuttle in which the rook never attacks (the gold away on 6c: the rook's ranks e and f hold
// nothing) draws under the rule.
TEST_F(ChuRules, ARepetitionWithoutPerpetualAttackDraws) {
  auto lax = std::make_shared<Variant>(*chu);
  lax->perpetualAttackLoses = false;
  Position pos = Position::fromSfen(lax, kShuttle);
  for (const char* m : kShuttleMoves) pos.makeMove(pos.parseUsi(m));
  EXPECT_EQ(pos.outcome().reason, EndReason::kRepetition);
  EXPECT_TRUE(pos.outcome().draw());

  Position quiet = at("k11/12/6g5/12/12/12/12/9R2/12/12/12/11K b - 1");
  for (const char* m : {"3h3e", "6c6d", "3e3f", "6d6c", "3f3e", "6c6d", "3e3f", "6d6c", "3f3e", "6c6d", "3e3f", "6d6c",
                        "3f3e"})
    quiet.makeMove(quiet.parseUsi(m));
  EXPECT_EQ(quiet.outcome().reason, EndReason::kRepetition);
  EXPECT_TRUE(quiet.outcome().draw());
}

TEST_F(ChuRules, BadInputIsNamed) {
  auto sfenError = [&](const std::string& sfen, const std::string& needle) {
    try {
      at(sfen);
      ADD_FAILURE() << "accepted " << sfen;
    } catch (const SfenError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  sfenError("11k/12/12/12/12/6G5/12/12/12/12/12/K11 w 13a 1", "third field");
  sfenError("11k/12/12/12/12/6G5/12/12/12/12/12/K11 w 5f 1", "lion-capture square");
  sfenError("11k/12/12/12/12/6N5/12/12/12/12/12/K11 w 6f 1", "lion-capture square");
  sfenError("11k/12/12/12/12/6G5/12/12/12/12/12/K11 w P 1", "third field");
  sfenError("11k/12/12/12/12/6G5/12/12/12/12/12/K11 w 6fx 1", "third field");
  sfenError("11k/12/12/12/12/6G5/12/12/12/12/12/K11 w 6 1", "third field");
  sfenError("11k/12/12/12/12/6G5/12/12/12/12/12/K11 w 0f 1", "third field");
  sfenError("11k/12/12/12/12/12/12/12/12/12/12/12 b - 1", "royal");
  sfenError("10kk/12/12/12/12/12/12/12/12/12/12/K11 b - 1", "two of the royal king");
  sfenError("11k/12/12/12/12/12/12/12/12/12/12/K12 b - 1", "longer than 12 files");
  // Thirteen sente pawns (a promoted one counts too): chu starts with twelve and has no drops.
  sfenError("11k/12/12/12/12/+P11/12/12/PPPPPPPPPPPP/12/12/K11 b - 1", "more P pieces");
  // Twelve are fine.
  EXPECT_NO_THROW(at("11k/12/12/12/12/+P11/12/12/1PPPPPPPPPPP/12/12/K11 b - 1"));

  const Position lion = at("11k/12/12/12/12/12/6N5/12/12/12/12/K11 b - 1");
  try {
    lion.parseUsi("6g6e6c");
    ADD_FAILURE() << "a middle square two away was accepted";
  } catch (const MoveError& e) {
    EXPECT_NE(std::string(e.what()).find("must be next to"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lion.parseUsi("6g6f4e"), MoveError) << "the second step must be next to the middle square";
  EXPECT_THROW(lion.parseUsi("6g6f6e+"), MoveError) << "a lion does not promote";
}

// Random games: make/unmake restore everything, the incremental hash matches, SFEN reads back.
TEST_F(ChuRules, RandomGamesRoundTrip) {
  std::mt19937 rng(20261124);
  for (int game = 0; game < 4; ++game) {
    Position pos(chu);
    std::vector<std::string> sfens{pos.sfen()};
    for (int ply = 0; ply < 200 && !pos.outcome().over(); ++ply) {
      MoveList moves;
      pos.generateLegal(moves);
      ASSERT_GT(moves.size(), 0);
      const Move m = moves[int(rng() % unsigned(moves.size()))];
      ASSERT_EQ(pos.parseUsi(pos.moveToUsi(m)), m) << pos.moveToUsi(m) << " in " << pos.sfen();
      pos.makeMove(m);
      ASSERT_EQ(pos.hash(), pos.computeHash()) << pos.sfen();
      ASSERT_EQ(Position::fromSfen(chu, pos.sfen()).sfen(), pos.sfen());
      sfens.push_back(pos.sfen());
    }
    while (pos.gamePly() > 0) {
      sfens.pop_back();
      pos.unmakeMove();
      ASSERT_EQ(pos.sfen(), sfens.back());
    }
  }
}

}  // namespace
