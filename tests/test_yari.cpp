// Yari shogi (configs/variants/yari.yaml). Expected move sets are derived by hand from seed
// 002's entry (quoted at the top of the variant file) and docs/RULES.md "Yari shogi"; perft is
// compared with Fairy-Stockfish (npm package ffish 0.7.10, Fairy-Stockfish 230826, with
// tests/reference/ffish/yari.ini written from the seed), an engine written independently of
// Poppy.
//
// Squares are USI: file 1..7 from sente's right, rank a gote's back rank, i sente's; sente moves
// towards rank a. Sente's zone is ranks a-c, gote's g-i. Letters: K king, R yari rook (+R
// rook), B yari bishop (+B yari gold), N yari knight (+N yari gold), P pawn (+P yari silver).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "game/perft.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "support/ffish_perft.h"
#include "support/position_helpers.h"
#include "support/random_positions.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr yari() { return loadVariant("yari"); }

// One piece on 4e, the kings on 1a (gote) and 7i (sente): neither lies on 4e's rank, file or
// diagonals (which end at 1b, 7b, 1h, 7h), so they block nothing.
Position centre(const std::string& token, char side) {
  return Position::fromSfen(yari(), "6k/7/7/7/3" + token + "3/7/7/7/K6 " + side + " - 1");
}

}  // namespace

// Seed: "R as shogi (or orthochess) R but not backwards". Forward to 4a and sideways; entering
// the zone (4c, 4b, 4a) it may promote or not (on 4a it can still move sideways).
TEST(YariMoves, YariRook) {
  EXPECT_EQ(boardMovesFrom(centre("R", 'b'), "4e"),
            movesFromTo("4e", {"4d", "4c", "4c+", "4b", "4b+", "4a", "4a+", "3e", "2e", "1e", "5e", "6e", "7e"}));
}

// "B as shogi lance, or one step diagonally forwards": on 4a it could never move again, so
// the move there must promote.
TEST(YariMoves, YariBishop) {
  EXPECT_EQ(boardMovesFrom(centre("B", 'b'), "4e"), movesFromTo("4e", {"4d", "4c", "4c+", "4b", "4b+", "4a+", "3d", "5d"}));
}

// "N as shogi N+L": the knight's two forward leaps (3c, 5c: in the zone) and the lance.
TEST(YariMoves, YariKnight) {
  EXPECT_EQ(boardMovesFrom(centre("N", 'b'), "4e"),
            movesFromTo("4e", {"4d", "4c", "4c+", "4b", "4b+", "4a+", "3c", "3c+", "5c", "5c+"}));
}

TEST(YariMoves, PawnAndKing) {
  EXPECT_EQ(boardMovesFrom(centre("P", 'b'), "4e"), movesFromTo("4e", {"4d"}));
  const auto king = Position::fromSfen(yari(), "6k/7/7/7/3K3/7/7/7/7 b - 1");
  EXPECT_EQ(boardMovesFrom(king, "4e"), movesFromTo("4e", {"4d", "3d", "5d", "3e", "5e", "4f", "3f", "5f"}));
}

// "promotes to normal shogi R": both ways along rank and file.
TEST(YariMoves, PromotedRookIsAShogiRook) {
  EXPECT_EQ(boardMovesFrom(centre("+R", 'b'), "4e"),
            movesFromTo("4e", {"4d", "4c", "4b", "4a", "4f", "4g", "4h", "4i", "3e", "2e", "1e", "5e", "6e", "7e"}));
}

// "Gold, which moves as shogi gold or as R backwards" (both the bishop's and knight's).
TEST(YariMoves, YariGold) {
  const auto gold = movesFromTo("4e", {"4d", "3d", "5d", "3e", "5e", "4f", "4g", "4h", "4i"});
  EXPECT_EQ(boardMovesFrom(centre("+B", 'b'), "4e"), gold);
  EXPECT_EQ(boardMovesFrom(centre("+N", 'b'), "4e"), gold);
}

// "Silver, which [moves] one step straight or diagonally forwards or as R backwards".
TEST(YariMoves, YariSilver) {
  EXPECT_EQ(boardMovesFrom(centre("+P", 'b'), "4e"), movesFromTo("4e", {"4d", "3d", "5d", "4f", "4g", "4h", "4i"}));
}

// Gote's pieces move the other way, with the zone at ranks g-i.
TEST(YariMoves, GotePieces) {
  EXPECT_EQ(boardMovesFrom(centre("r", 'w'), "4e"),
            movesFromTo("4e", {"4f", "4g", "4g+", "4h", "4h+", "4i", "4i+", "3e", "2e", "1e", "5e", "6e", "7e"}));
  EXPECT_EQ(boardMovesFrom(centre("+p", 'w'), "4e"), movesFromTo("4e", {"4f", "3f", "5f", "4d", "4c", "4b", "4a"}));
}

// "Pawn as shogi, except that it may be dropped to give mate". Gote's king on 1a, its own pawn
// on 2a; sente's yari gold on 2c guards 2b (a step forward) and 1b (a forward diagonal). P*1b
// checks, and the king can neither take the guarded pawn nor step to 2b: mate, and legal.
TEST(YariDrops, PawnDropMateIsLegal) {
  auto pos = Position::fromSfen(yari(), "5pk/7/5+B1/7/7/7/7/7/K6 b P 1");
  ASSERT_TRUE(hasLegal(pos, "P*1b"));
  pos.makeMove(pos.parseUsi("P*1b"));
  EXPECT_TRUE(pos.inCheck());
  const Outcome o = pos.outcome();
  EXPECT_EQ(o.reason, EndReason::kNoLegalMove);
  EXPECT_EQ(o.winner, 0);
}

// As shogi: no second unpromoted pawn on a file, and no drop where the piece could never move
// (pawn, yari bishop, yari knight on rank a; the knight may go to rank b, where its lance step
// still moves; the yari rook anywhere, since it moves sideways on rank a).
TEST(YariDrops, NifuAndDeadSquares) {
  // Sente: king 7i, a pawn on 4g; in hand a pawn, a yari bishop, a yari knight, a yari rook.
  // Gote: king 1a. Empty squares: 63 - 3 = 60.
  const auto pos = Position::fromSfen(yari(), "6k/7/7/7/7/7/3P3/7/K6 b RBNP 1");
  std::map<char, int> drops;
  std::set<std::string> pawnFiles;
  for (const auto& m : legalUsi(pos))
    if (m.size() == 4 && m[1] == '*') {
      ++drops[m[0]];
      if (m[0] == 'P') pawnFiles.insert(m.substr(2, 1));
      if (m[0] != 'R') {
        EXPECT_NE(m[3], 'a') << m;
      }
    }
  EXPECT_EQ(drops['R'], 60);
  EXPECT_EQ(drops['B'], 60 - 6);  // rank a: 7 squares, one of them gote's king
  EXPECT_EQ(drops['N'], 60 - 6);
  // Nor on file 4: its empty squares off rank a are 4b-4f, 4h, 4i (the pawn is on 4g).
  EXPECT_EQ(drops['P'], 60 - 6 - 7);
  EXPECT_EQ(pawnFiles.count("4"), 0u);
}

// "Stalemate is a draw": sente's king on 1i, gote's rooks on 2a (file 2) and 7h (rank h) take
// 2i, 2h and 1h away from it, and nothing attacks 1i. Checkmated instead (a third rook's
// check along file 1), sente loses as in shogi.
TEST(YariEnd, StalemateIsADrawAndMateLoses) {
  const auto stale = Position::fromSfen(yari(), "5+r1/7/2k4/7/7/7/7/+r6/6K b - 1");
  EXPECT_FALSE(stale.inCheck());
  EXPECT_FALSE(stale.hasLegalMove());
  EXPECT_EQ(stale.outcome().reason, EndReason::kStalemate);
  EXPECT_TRUE(stale.outcome().draw());
  const auto mate = Position::fromSfen(yari(), "5+r+r/7/2k4/7/7/7/7/+r6/6K b - 1");
  EXPECT_TRUE(mate.inCheck());
  EXPECT_EQ(mate.outcome().reason, EndReason::kNoLegalMove);
  EXPECT_EQ(mate.outcome().winner, 1);
}

// "Three-fold repetition of position is illegal": the kings step out and back twice; the
// eighth ply would bring the start position back a third time, so it is not a legal move (and
// the USI parser refuses it), while every other move stays legal.
TEST(YariEnd, AMoveThatRepeatsAPositionThreeTimesIsIllegal) {
  auto pos = Position::fromSfen(yari(), "6k/7/7/7/7/7/7/7/K6 b - 1");
  const std::vector<std::string> cycle = {"7i7h", "1a1b", "7h7i", "1b1a"};
  for (int ply = 0; ply < 7; ++ply) {
    ASSERT_TRUE(hasLegal(pos, cycle[size_t(ply % 4)])) << "ply " << ply;
    pos.makeMove(pos.parseUsi(cycle[size_t(ply % 4)]));
  }
  EXPECT_FALSE(hasLegal(pos, "1b1a"));
  EXPECT_THROW(pos.parseUsi("1b1a"), MoveError);
  EXPECT_TRUE(hasLegal(pos, "1b2a"));
  EXPECT_TRUE(hasLegal(pos, "1b2b"));
  EXPECT_FALSE(pos.outcome().over());
  // Twice is allowed: after six plies 7h7i brought its position back a second time.
  pos.unmakeMove();
  EXPECT_TRUE(hasLegal(pos, "7h7i"));
}

// Random king walks on an otherwise empty board bring positions back all the time: at every
// ply the legal moves are exactly the king steps that stay on the board and off the squares next
// to the other king, less those that would bring a position back the third time (found by
// making the step and counting).
TEST(YariEnd, RandomKingWalksBanExactlyTheThirdRepetitions) {
  auto pos = Position::fromSfen(yari(), "6k/7/7/7/7/7/7/7/K6 b - 1");
  const Variant& v = pos.variant();
  std::mt19937 rng(5);
  int banned = 0, plies = 0;
  for (; plies < 400; ++plies) {
    const Square king = pos.kingSquare(pos.sideToMove()), other = pos.kingSquare(1 - pos.sideToMove());
    std::set<std::string> expected;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc) {
        const int col = v.colOf(king) + dc, rank = v.rankOf(king) + dr;
        if ((!dc && !dr) || col < 0 || col >= v.files || rank < 0 || rank >= v.ranks) continue;
        if (std::abs(col - v.colOf(other)) <= 1 && std::abs(rank - v.rankOf(other)) <= 1) continue;
        const Move step = Move::board(king, v.square(col, rank), false);
        pos.makeMove(step);
        const bool third = pos.repetitionsSoFar() + 1 >= 3;
        pos.unmakeMove();
        if (third) ++banned;
        else expected.insert(pos.moveToUsi(step));
      }
    const std::vector<std::string> legal = legalUsi(pos);
    ASSERT_EQ(std::set<std::string>(legal.begin(), legal.end()), expected) << "ply " << plies << ": " << pos.sfen();
    if (expected.empty()) break;  // the ban left no move: stalemate
    auto it = expected.begin();
    std::advance(it, rng() % expected.size());
    pos.makeMove(pos.parseUsi(*it));
  }
  EXPECT_GT(banned, 10) << plies << " plies";
}

// The repetition ban reads the hash a move would give without making it; on random games it
// must be the hash makeMove gives, for every legal move.
TEST(YariEnd, HashAfterAgreesWithMakeMove) {
  const auto v = yari();
  int checked = 0;
  for (const std::string& sfen : randomPositions(v, 60, 120, 11)) {
    auto pos = Position::fromSfen(v, sfen);
    MoveList moves;
    pos.generateLegal(moves);
    for (const Move& m : moves) {
      const uint64_t predicted = pos.hashAfter(m);
      pos.makeMove(m);
      ASSERT_EQ(predicted, pos.hash()) << sfen << " " << pos.variant().name;
      pos.unmakeMove();
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(YariEnd, TheBanIsRefusedWhereItCannotBeFollowed) {
  // The repetition ban's hash follows plain moves only: a lion is refused.
  const std::string text =
      "name: t\nboard: {files: 5, ranks: 5}\npieces:\n  - {letter: K, name: king, moves: K, royal: true}\n"
      "  - {letter: N, name: lion, moves: KNADcaKmcabK}\nstart: 4k/5/5/5/N3K b - 1\n"
      "repetition: {count: 3, result: illegal}\n";
  const auto path = std::filesystem::temp_directory_path() / ("poppy_yari_ban_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << text;
  try {
    loadVariantFile(path.string());
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("repetition.result"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

// Start position: Fairy-Stockfish (ffish, yari.ini) counted 20, 400, 7,960, 158,404 on
// 2026-11-24 (node perft.cjs, "perft 4 <start>"); the test asks it again below.
TEST(YariPerft, StartPositionAsFairyStockfish) {
  expectStartPerftAsFfish(yari(), "yari", {20, 400, 7960, 158404});
}

// Random positions from random games (hands, promoted pieces, checks), perft 2 against
// Fairy-Stockfish (tests/support/ffish_perft.h names any position and move that differ).
TEST(YariPerft, RandomPositionsAsFairyStockfish) { expectRandomPositionsAsFfish(yari(), "yari", 80, 150, 2026); }
