// Yonin shogi (configs/variants/yonin.yaml): four players. Expected results are derived by hand
// from seed 003 and docs/RULES.md "Yonin shogi"; no other engine plays the seed's rules (Ludii's
// differ), so perft from the start is counted by hand as far as the armies cannot meet.
//
// Squares are USI: file 1..9 from south's right, rank a the north edge, i the south edge.
// Armies and their forward directions: south (s) towards rank a, west (w, on files 9-7)
// towards file 1, north (n) towards rank i, east (e, on files 1-3) towards file 9. Each zone
// is its army's far three lines: south ranks a-c, west files 3-1, north ranks g-i, east
// files 7-9. Turn order s w n e.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
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

VariantPtr yonin() { return loadVariant("yonin"); }

// A position from pieces ("5e" -> "wP"), side to move, hands and controllers.
Position at(const std::map<std::string, std::string>& pieces, char side, const std::string& hands = "-",
            const std::string& controllers = "swne") {
  const VariantPtr v = yonin();
  return Position::fromSfen(v, boardSfen(*v, pieces) + " " + side + " " + hands + " 1 " + controllers);
}

// Kings out of each other's way: none on a line or next to another.
std::map<std::string, std::string> kings() { return {{"8i", "sK"}, {"9b", "wK"}, {"2a", "nK"}, {"1h", "eK"}}; }

std::map<std::string, std::string> with(std::map<std::string, std::string> pieces,
                                        const std::map<std::string, std::string>& more) {
  for (const auto& [square, token] : more) pieces[square] = token;
  return pieces;
}

char sideLetter(const Position& pos) { return "swne"[pos.sideToMove()]; }

}  // namespace

// Seed 003's setup, each army in the five central files of its three back lines.
TEST(YoninStart, SetupAndSfenRoundTrip) {
  const Position start(yonin());
  EXPECT_EQ(start.sfen(),
            "2nSnGnKnGnS2/3nPnRnP3/wS3nP3eS/wGwP5ePeG/wKwRwP3ePeReK/wGwP5ePeG/wS3sP3eS/3sPsRsP3/2sSsGsKsGsS2 s - 1 "
            "swne");
  EXPECT_EQ(tokenAt(start, "5i"), "K");
  EXPECT_EQ(Position::fromSfen(start.variantPtr(), start.sfen()).hash(), start.hash());
  EXPECT_EQ(start.sideToMove(), 0);
}

// South's moves from the start, by hand: the pawns 5g5f, 6h6g, 4h4g; the golds 6i7h and 4i3h
// (every other gold step is blocked by its own pieces or the edge); the silvers 7i8h, 7i7h,
// 3i2h, 3i3h; the rook and king are boxed in. 9 moves, and by the setup's symmetry 9 for each
// army. Within four plies every army moves once, one step from its own corner of the board: no
// move checks anyone or opens a line, and the only squares two armies' first moves share are
// 8h (south's silver 7i8h, west's 9g8h), 8b (west's 9c8b, north's 7a8b), 2b (north's 3a2b,
// east's 1c2b) and 2h (east's 1g2h, south's 3i2h). Whichever moves there second takes the
// piece instead of stepping there: the same count. So 9, 81, 729, 6561.
TEST(YoninStart, PerftByHand) {
  const Position start(yonin());
  Position pos = start;
  EXPECT_EQ(perft(pos, 1), 9u);
  EXPECT_EQ(perft(pos, 2), 81u);
  EXPECT_EQ(perft(pos, 3), 729u);
  EXPECT_EQ(perft(pos, 4), 6561u);
  const std::vector<std::string> moves = legalUsi(start);
  const std::set<std::string> south(moves.begin(), moves.end());
  EXPECT_EQ(south, (std::set<std::string>{"5g5f", "6h6g", "4h4g", "6i7h", "4i3h", "7i8h", "7i7h", "3i2h", "3i3h"}));
  // After 7i8h west's silver on 9g may take it: 9g8h is still one of west's 9 moves.
  pos.makeMove(pos.parseUsi("7i8h"));
  EXPECT_EQ(sideLetter(pos), 'w');
  EXPECT_TRUE(hasLegal(pos, "9g8h"));
  EXPECT_EQ(legalUsi(pos).size(), 9u);
}

// "Pieces point away from them": each army's pawn steps forward its own way.
TEST(YoninMoves, EachArmyMovesItsOwnWay) {
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"5e", "sP"}}), 's'), "5e"), movesFromTo("5e", {"5d"}));
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"5e", "wP"}}), 'w'), "5e"), movesFromTo("5e", {"4e"}));
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"5e", "nP"}}), 'n'), "5e"), movesFromTo("5e", {"5f"}));
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"5e", "eP"}}), 'e'), "5e"), movesFromTo("5e", {"6e"}));
  // West's silver: forward (to file 4), both forward diagonals, both backward ones.
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"5e", "wS"}}), 'w'), "5e"),
            movesFromTo("5e", {"4e", "4d", "4f", "6d", "6f"}));
}

// "Each promotion zone overlaps with two others": the far three lines of each army.
TEST(YoninMoves, EachArmyPromotesInItsOwnZone) {
  // West's pawn entering file 3 may promote; on file 1 it could never move, so it must.
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"4e", "wP"}}), 'w'), "4e"), movesFromTo("4e", {"3e", "3e+"}));
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"2e", "wP"}}), 'w'), "2e"), movesFromTo("2e", {"1e+"}));
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"6e", "eP"}}), 'e'), "6e"), movesFromTo("6e", {"7e", "7e+"}));
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"5f", "nP"}}), 'n'), "5f"), movesFromTo("5f", {"5g", "5g+"}));
  // South's zone is ranks a-c, not west's files 3-1: a south pawn on 3e goes to 3d unpromoted.
  EXPECT_EQ(boardMovesFrom(at(with(kings(), {{"3e", "sP"}}), 's'), "3e"), movesFromTo("3e", {"3d"}));
}

// "When a player is put in check, the turn shifts immediately to them."
TEST(YoninTurns, ThePlayerPutInCheckMovesNext) {
  // South's rook 4e5e checks north's king on 5a up the empty file: north moves next, not west.
  Position pos = at({{"8i", "sK"}, {"9c", "wK"}, {"5a", "nK"}, {"1g", "eK"}, {"4e", "sR"}}, 's');
  pos.makeMove(pos.parseUsi("4e5e"));
  EXPECT_EQ(sideLetter(pos), 'n');
  EXPECT_TRUE(pos.inCheck());
  // North steps aside; play goes on clockwise from north: east.
  pos.makeMove(pos.parseUsi("5a4a"));
  EXPECT_EQ(sideLetter(pos), 'e');
  pos.unmakeMove();
  pos.unmakeMove();
  EXPECT_EQ(sideLetter(pos), 's');
  EXPECT_EQ(pos.hash(), pos.computeHash());
}

// "If two or more players are simultaneously in check, whichever one would go first according
// to the regular turn order gets to go next."
TEST(YoninTurns, OfSeveralInCheckTheFirstInTurnOrderMoves) {
  // South's rook 4f4e checks west on 9e and east on 1e along rank e: west moves first, then
  // east, still in check, before north; then play goes on clockwise from east: south.
  Position both = at({{"5i", "sK"}, {"9e", "wK"}, {"5a", "nK"}, {"1e", "eK"}, {"4f", "sR"}}, 's');
  both.makeMove(both.parseUsi("4f4e"));
  EXPECT_EQ(sideLetter(both), 'w');
  both.makeMove(both.parseUsi("9e9d"));
  EXPECT_EQ(sideLetter(both), 'e');
  EXPECT_TRUE(both.inCheck());
  both.makeMove(both.parseUsi("1e1d"));
  EXPECT_EQ(sideLetter(both), 's');
  // With west's king on 9d only east is in check: east moves next, skipping west and north.
  Position east = at({{"5i", "sK"}, {"9d", "wK"}, {"5a", "nK"}, {"1e", "eK"}, {"4f", "sR"}}, 's');
  east.makeMove(east.parseUsi("4f4e"));
  EXPECT_EQ(sideLetter(east), 'e');
}

namespace {

// West's king on 9a has no escape from south's gold on 8b (guarded by the silver on 7c); west's
// pawn on 5e cannot help, nor can a pawn from hand. South's gold comes from 8c.
Position westAboutToBeMated(const std::string& hands = "wP") {
  return at({{"8i", "sK"}, {"9a", "wK"}, {"2a", "nK"}, {"1h", "eK"}, {"8c", "sG"}, {"7c", "sS"}, {"5e", "wP"}}, 's',
            hands);
}

}  // namespace

// "The checkmating player flips over their king, takes all their in-hand pieces, and takes
// control of their on-board pieces."
TEST(YoninMate, TheMaterTakesOverTheMatedArmy) {
  Position pos = westAboutToBeMated();
  const std::string before = pos.sfen();
  pos.makeMove(pos.parseUsi("8c8b"));
  EXPECT_TRUE(pos.isOut(1));
  EXPECT_EQ(pos.controllerOf(1), 0);
  EXPECT_EQ(field(pos.sfen(), 0).substr(0, 2), "wX");  // west's king turned on 9a
  EXPECT_EQ(field(pos.sfen(), 2), "sP");                 // west's pawn in hand is south's now
  EXPECT_EQ(field(pos.sfen(), 4), "ssne");
  // The turn goes on from west's seat: north.
  EXPECT_EQ(sideLetter(pos), 'n');
  EXPECT_EQ(pos.hash(), pos.computeHash());
  EXPECT_FALSE(pos.outcome().over());
  pos.unmakeMove();
  EXPECT_EQ(pos.sfen(), before);
  EXPECT_EQ(pos.hash(), pos.computeHash());
}

// "They still retain their orientations and promote in their original promotion zone ...
// you may only ever drop pieces so they face in your own original direction."
TEST(YoninMate, TakenPiecesKeepTheirWayAndDropsFaceTheDropper) {
  // South controls west's army (west's king turned on 9a); south to move.
  Position pos = at({{"8i", "sK"}, {"9a", "wX"}, {"2a", "nK"}, {"1h", "eK"}, {"4e", "wP"}}, 's', "sP", "ssne");
  EXPECT_EQ(boardMovesFrom(pos, "4e"), movesFromTo("4e", {"3e", "3e+"}));  // west's way, west's zone
  pos.makeMove(pos.parseUsi("P*5e"));
  EXPECT_EQ(colorOf(pos.at(sq(pos.variant(), "5e"))), 0);
  EXPECT_EQ(colorOf(pos.at(sq(pos.variant(), "4e"))), 1);
}

// "Flipped kings act as blockades, and no piece can capture or pass over them."
TEST(YoninMate, NobodyTakesOrPassesATurnedKing) {
  // North's rook on 9e looks up the file at west's turned king on 9a, with 9b-9d empty.
  Position pos = at({{"8i", "sK"}, {"9a", "wX"}, {"2a", "nK"}, {"1h", "eK"}, {"9e", "nR"}, {"5a", "sG"}}, 'n', "-", "ssne");
  const auto rook = boardMovesFrom(pos, "9e");
  EXPECT_EQ(rook.count("9e9a"), 0u);
  EXPECT_EQ(rook.count("9e9b"), 1u);
  // Nor its controller, south: a gold next to it cannot take it.
  Position south = at({{"8i", "sK"}, {"9a", "wX"}, {"2a", "nK"}, {"1h", "eK"}, {"9b", "sG"}}, 's', "-", "ssne");
  EXPECT_EQ(boardMovesFrom(south, "9b").count("9b9a"), 0u);
  EXPECT_THROW(south.parseUsi("9a9b"), MoveError);
  // A rook's ray stops in front of it: west's turned king on 5e shields 5a from a rook on 5i's file.
  Position shield = at({{"8i", "sK"}, {"5e", "wX"}, {"5a", "nK"}, {"1h", "eK"}, {"5g", "sR"}}, 's', "-", "ssne");
  EXPECT_EQ(boardMovesFrom(shield, "5g").count("5g5d"), 0u);
  EXPECT_FALSE(shield.playerInCheck(2));
}

// "The first player to checkmate two others, or to checkmate a player who has already
// checkmated another, wins."
TEST(YoninMate, TheSecondMateWins) {
  // South has mated north already (north's king turned on 2a); now it mates west.
  Position pos = at({{"8i", "sK"}, {"9a", "wK"}, {"2a", "nX"}, {"1h", "eK"}, {"8c", "sG"}, {"7c", "sS"}}, 's', "-",
                    "swse");
  pos.makeMove(pos.parseUsi("8c8b"));
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kSecondMate);
  EXPECT_EQ(o.winner, 0);
  // West had mated north: south mating west wins at once, its first mate.
  Position second = at({{"8i", "sK"}, {"9a", "wK"}, {"2a", "nX"}, {"1h", "eK"}, {"8c", "sG"}, {"7c", "sS"}}, 's', "-",
                       "swwe");
  second.makeMove(second.parseUsi("8c8b"));
  EXPECT_EQ(second.outcome().reason, EndReason::kSecondMate);
  EXPECT_EQ(second.outcome().winner, 0);
  EXPECT_EQ(second.armiesOf(0), 3);
  // Mating a player who has mated nobody, as one's first mate, does not end the game.
  Position first = westAboutToBeMated("-");
  first.makeMove(first.parseUsi("8c8b"));
  EXPECT_FALSE(first.outcome().over());
}

// docs/RULES.md: a player with no legal move and not in check passes.
TEST(YoninTurns, APlayerWithoutAMovePasses) {
  // East's lone king on 1a: 2a and 2b are covered by south's gold on 3b (forward diagonal,
  // sideways), 1b by south's silver on 2c (forward diagonal): east is not in check and cannot
  // move.
  Position pos = at({{"8i", "sK"}, {"9e", "wK"}, {"5c", "nK"}, {"1a", "eK"}, {"3b", "sG"}, {"2c", "sS"}, {"7e", "nG"}},
                    'n');
  EXPECT_FALSE(pos.playerInCheck(3));
  pos.makeMove(pos.parseUsi("7e7f"));  // north's quiet move: east passes, south moves
  EXPECT_EQ(sideLetter(pos), 's');
  pos.unmakeMove();
  EXPECT_EQ(sideLetter(pos), 'n');
  EXPECT_EQ(pos.hash(), pos.computeHash());
}

// Shogi's drop rules with four directions: nifu counts the dropper's own unpromoted pawns on
// the line it moves along (a rank, for west and east), and no pawn on its last line.
TEST(YoninDrops, NifuAndDeadLinesFollowTheDroppersWay) {
  Position pos = at(with(kings(), {{"7e", "wP"}, {"5f", "sP"}}), 'w', "wP");
  std::set<std::string> drops;
  for (const auto& m : legalUsi(pos))
    if (m[0] == 'P') drops.insert(m);
  EXPECT_EQ(drops.count("P*4e"), 0u);  // west's own pawn on rank e
  EXPECT_EQ(drops.count("P*4f"), 1u);  // south's pawn on rank f does not count for west
  EXPECT_EQ(drops.count("P*1d"), 0u);  // file 1: a west pawn could never move
  EXPECT_EQ(drops.count("P*2d"), 1u);
  EXPECT_EQ(drops.count("P*4d"), 1u);
}

// "Including pawn drop restrictions": a pawn dropped to mate is illegal, whoever it mates; a
// gold may.
TEST(YoninDrops, NoPawnDropMateAgainstAnyPlayer) {
  // West's king on 9a: 8a is covered by south's silver on 7b, 8b and the drop square 9b by the
  // gold on 8c.
  const auto pieces = std::map<std::string, std::string>{{"8i", "sK"}, {"9a", "wK"}, {"2e", "nK"}, {"1h", "eK"},
                                                         {"8c", "sG"}, {"7b", "sS"}};
  Position pos = at(pieces, 's', "sPG");
  EXPECT_FALSE(hasLegal(pos, "P*9b"));
  EXPECT_TRUE(hasLegal(pos, "P*9c"));
  EXPECT_TRUE(hasLegal(pos, "G*9b"));
  pos.makeMove(pos.parseUsi("G*9b"));
  EXPECT_TRUE(pos.isOut(1));
  // Without the silver the king escapes to 8a: the pawn drop is a plain check, and legal.
  auto escape = pieces;
  escape.erase("7b");
  EXPECT_TRUE(hasLegal(at(escape, 's', "sP"), "P*9b"));
}

TEST(YoninMoves, OnlyTheSideToMoveMoves) {
  const Position start(yonin());
  EXPECT_THROW(start.parseUsi("9g8h"), MoveError);  // west's silver, south to move
  try {
    start.parseUsi("9g8h");
  } catch (const MoveError& e) {
    EXPECT_NE(std::string(e.what()).find("no piece of the side to move on 9g"), std::string::npos) << e.what();
  }
}

TEST(YoninSfen, BadPositionsAreRefusedWithTheReason) {
  const VariantPtr v = yonin();
  auto error = [&](const std::string& sfen) {
    try {
      Position::fromSfen(v, sfen);
    } catch (const SfenError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string board = boardSfen(*v, kings());
  EXPECT_EQ(Position::fromSfen(v, board + " s - 1 swne").sfen(), board + " s - 1 swne");
  EXPECT_EQ(Position::fromSfen(v, board + " s -").sfen(), board + " s - 1 swne");  // defaults
  // A wrong number of kings.
  EXPECT_NE(error(boardSfen(*v, with(kings(), {{"5e", "sK"}})) + " s - 1 swne").find("south has 2 kings"),
            std::string::npos);
  // A mated player's pieces still listed as its own, and the other way round.
  EXPECT_NE(error(boardSfen(*v, with(kings(), {{"9b", "wX"}})) + " s - 1 swne").find("another player controls"),
            std::string::npos);
  EXPECT_NE(error(board + " s - 1 ssne").find("west's king stands"), std::string::npos);
  // A hand for a player who is out; an army given to a player who is out; out and to move.
  const std::string westOut = boardSfen(*v, with(kings(), {{"9b", "wX"}}));
  EXPECT_NE(error(westOut + " s wP 1 ssne").find("west is out but has pieces in hand"), std::string::npos);
  EXPECT_NE(error(westOut + " w - 1 ssne").find("the side to move, west, is out"), std::string::npos);
  EXPECT_NE(error(boardSfen(*v, with(kings(), {{"9b", "wX"}, {"2a", "nX"}})) + " s - 1 snwe").find("who is out"),
            std::string::npos);
  // Someone in check while another, not in check, is to move.
  EXPECT_NE(error(boardSfen(*v, with(kings(), {{"2e", "sR"}})) + " w - 1 swne").find("north is in check"),
            std::string::npos);
  // More pieces than four sets; tokens without an army; bad fields.
  EXPECT_NE(error(board + " s s5R 1 swne").find("more than the 4"), std::string::npos);
  EXPECT_NE(error("2SGKGS2" + board.substr(board.find('/')) + " s - 1 swne").find("army's letter"), std::string::npos);
  EXPECT_NE(error(board + " b - 1 swne").find("not s, w, n or e"), std::string::npos);
  EXPECT_NE(error(board + " s P 1 swne").find("must start with a player's letter"), std::string::npos);
  EXPECT_NE(error(board + " s - 1 swn").find("four letters"), std::string::npos);
  EXPECT_NE(error(board + " s - 1 swnx").find("only s, w, n and e"), std::string::npos);
}

// Random games: make/unmake restores the position and its hash, the incremental hash matches a
// recomputed one, every position reads back from its SFEN, and mates happen (so the takeover
// path is exercised: the count is checked).
TEST(YoninRandomPlay, InvariantsHoldThroughTakeovers) {
  const VariantPtr v = yonin();
  std::mt19937 rng(7);
  int mates = 0, wins = 0, plies = 0;
  for (int game = 0; game < 60; ++game) {
    Position pos(v);
    std::vector<std::string> sfens{pos.sfen()};
    for (int ply = 0; ply < 400 && !pos.outcome().over(); ++ply) {
      MoveList list;
      pos.generateLegal(list);
      ASSERT_GT(list.size(), 0) << pos.sfen();
      const int before = pos.armiesOf(pos.sideToMove());
      const Color mover = pos.sideToMove();
      pos.makeMove(list[int(rng() % unsigned(list.size()))]);
      ++plies;
      mates += pos.armiesOf(mover) - before;
      ASSERT_EQ(pos.hash(), pos.computeHash()) << pos.sfen();
      const Position back = Position::fromSfen(v, pos.sfen());
      ASSERT_EQ(back.sfen(), pos.sfen());
      ASSERT_EQ(back.hash(), pos.hash()) << pos.sfen();
      ASSERT_FALSE(pos.isOut(pos.sideToMove()));
      sfens.push_back(pos.sfen());
    }
    wins += pos.outcome().reason == EndReason::kSecondMate;
    for (int i = int(sfens.size()) - 2; i >= 0; --i) {
      pos.unmakeMove();
      ASSERT_EQ(pos.sfen(), sfens[size_t(i)]);
      ASSERT_EQ(pos.hash(), pos.computeHash());
    }
  }
  EXPECT_GT(mates, 10);
  EXPECT_GT(wins, 0);
  RecordProperty("plies", plies);
  RecordProperty("mates", mates);
  RecordProperty("wins", wins);
}

// The four-player SFEN reader on random and mutated text: it accepts, or throws SfenError;
// whatever it accepts prints an SFEN that reads back to the same position and hash, and every
// legal move there is made and unmade exactly.
TEST(YoninSfen, RandomTextParsesCleanlyOrIsRefused) {
  const VariantPtr v = yonin();
  std::mt19937 rng(11);
  auto pick = [&](const std::string& s) { return s[rng() % s.size()]; };
  const std::string pieces[] = {"K", "R", "+R", "G", "S", "+S", "P", "+P", "X"};
  std::vector<std::string> inputs;
  for (int k = 0; k < 3000; ++k) {
    std::map<std::string, std::string> board;
    for (int a = 0; a < 4; ++a) {  // a king an army, mostly
      if (rng() % 10 == 0) continue;
      board[std::to_string(1 + rng() % 9) + char('a' + rng() % 9)] = std::string(1, "swne"[a]) + "K";
    }
    const int n = int(rng() % 14);
    for (int i = 0; i < n; ++i)
      board[std::to_string(1 + rng() % 9) + char('a' + rng() % 9)] =
          std::string(1, pick("swne")) + pieces[rng() % (rng() % 20 ? 8 : 9)];
    std::string hands;
    for (int i = int(rng() % 4); i > 0; --i) hands += std::string(1, pick("swne")) + pick("12 ") + pick("RGSP");
    hands.erase(std::remove(hands.begin(), hands.end(), ' '), hands.end());
    std::string controllers = "swne";
    if (rng() % 4 == 0) controllers[rng() % 4] = pick("swne");
    std::string text = boardSfen(*v, board) + " " + pick("swne") + " " + (hands.empty() ? "-" : hands) + " " +
                       std::to_string(1 + rng() % 200) + " " + controllers;
    if (k % 3 == 0) {  // one character changed, dropped or doubled
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = pick("swneXKRGSP+123456789/ -x"); break;
        case 1: text.erase(at, 1); break;
        default: text.insert(at, 1, text[at]);
      }
    }
    inputs.push_back(text);
  }
  int accepted = 0, moves = 0;
  for (const std::string& text : inputs) {
    std::optional<Position> pos;
    try {
      pos.emplace(Position::fromSfen(v, text));
    } catch (const SfenError&) {
      continue;
    }
    ++accepted;
    const std::string sfen = pos->sfen();
    const Position again = Position::fromSfen(v, sfen);
    ASSERT_EQ(again.sfen(), sfen) << text;
    ASSERT_EQ(again.hash(), pos->hash()) << text;
    MoveList list;
    pos->generateLegal(list);
    for (const Move& m : list) {
      ASSERT_EQ(pos->parseUsi(pos->moveToUsi(m)), m) << sfen;
      pos->makeMove(m);
      ++moves;
      ASSERT_EQ(pos->hash(), pos->computeHash()) << sfen << " " << pos->moveToUsi(m);
      Position::fromSfen(v, pos->sfen());  // a position after a legal move reads back
      pos->unmakeMove();
      ASSERT_EQ(pos->sfen(), sfen);
    }
    pos->outcome();
  }
  RecordProperty("accepted", accepted);
  RecordProperty("moves", moves);
  EXPECT_GT(accepted, 200);
  EXPECT_LT(accepted, 2900);
  EXPECT_GT(moves, 3000);
}
