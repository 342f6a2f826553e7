// Mitsugumi shogi's variant file (configs/variants/mitsugumi.yaml): it loads, its
// start position is the seed's, the first move's list is the one counted by hand below, and
// random games keep make/unmake, the hash and the text of every move consistent.
#include <gtest/gtest.h>

#include <map>

#include <random>
#include <set>
#include <string>
#include <tuple>

#include "game/position.h"
#include "game/variant_loader.h"
#include "support/sanitized.h"
#include "support/position_helpers.h"

using namespace poppy::game;
using namespace poppy::testing;

namespace {

VariantPtr mitsugumi() {
  static const VariantPtr v =
      loadVariantFile(std::string(POPPY_SOURCE_DIR) + "/configs/variants/mitsugumi.yaml");
  return v;
}

TEST(Mitsugumi, LoadsWithTheSeedsPieces) {
  const VariantPtr v = mitsugumi();
  EXPECT_EQ(v->files, 13);
  EXPECT_EQ(v->ranks, 13);
  // 27 kinds, 24 of them with a promoted face (not the king, fire demon, vice general): 51.
  EXPECT_EQ(v->faces.size(), 51u);
  EXPECT_EQ(v->handKinds.size(), 26u);  // all but the king
  const Position start(v);
  EXPECT_EQ(start.sfen(), v->startSfen);
  // 54 men a side (seed 004: 13 + 13 + 13 on the back three ranks, 13 pawns, 2 dogs).
  int men[2] = {0, 0};
  for (Square s = 0; s < v->numSquares(); ++s)
    if (start.at(s)) ++men[colorOf(start.at(s))];
  EXPECT_EQ(men[0], 54);
  EXPECT_EQ(men[1], 54);
  EXPECT_EQ(tokenAt(start, "6l"), "Z'");  // the vice general on h2 (diagram) = 6l
  EXPECT_EQ(tokenAt(start, "8b"), "z'");
}

TEST(Mitsugumi, FirstMovesCountedByHand) {
  // Sente's first moves, from the seed's rules and setup (files 13..1 left to right, ranks a..m
  // from gote's side; sente's back rank is m):
  // - pawns on rank j step to rank i, but for files 10 and 4, where the dogs stand: 11;
  // - the dogs (10i, 4i) step forward (bF goes back onto the pawns): 2;
  // - the lion on 8k reaches the empty squares of its 5x5: 9i, 8i, 7i, 6i (10i is a dog): 4;
  // - the horned falcon on 9k jumps two straight ahead (fD): 9i: 1;
  // - the soaring eagle on 5k jumps two diagonally ahead (fA): 7i and 3i: 2;
  // - the rook general on 7k jumps its own pawn on 7j and takes gote's pawn on 7d, or jumps
  //   that one too and takes gote's rook general on 7c; both in the zone, so with or without
  //   promotion: 4;
  // - everything else is hemmed in by its own men (knights included: their leaps land on
  //   ranks k and l, full of sente's pieces; kirin, phoenix and fire demon likewise), and no
  //   piece has an empty neighbour to skip a turn through.
  // 11 + 2 + 4 + 1 + 2 + 4 = 24.
  const Position start(mitsugumi());
  const std::vector<std::string> moves = legalUsi(start);
  const std::set<std::string> got(moves.begin(), moves.end());
  EXPECT_EQ(moves.size(), got.size());
  const std::set<std::string> expected = {
      "13j13i", "12j12i", "11j11i", "9j9i", "8j8i", "7j7i", "6j6i", "5j5i", "3j3i", "2j2i", "1j1i",
      "10i10h", "4i4h",
      "8k9i", "8k8i", "8k7i", "8k6i",
      "9k9i",
      "5k7i", "5k3i",
      "7k7d", "7k7d+", "7k7c", "7k7c+"};
  EXPECT_EQ(got, expected);
}

TEST(Mitsugumi, EveryFaceAloneInTheCentreHasItsHandCountedMoves) {
  // Each of the 51 faces alone on 7g (the centre of 13x13: six squares to every edge), the
  // sente king on 12m and the gote king on 1d, off every line and leap of every piece from 7g
  // and next to no square a fire demon reaches. Counts from the variant file's notation as the
  // seed gives it (docs/RULES.md "Mitsugumi shogi"):
  // - a slide has 6 squares in each direction; B and R 24 each, Q 48;
  // - sente's zone is ranks a-d, 3 to 6 ranks ahead of 7g: a move into it by an unpromoted
  //   piece that has a flip counts twice (promote or not). Forward slides end there on 4 of
  //   their 6 squares: fR +4, each forward diagonal +4;
  // - the stingers and lions add one turn skip (out to an empty square and back);
  // - area moves reach the 48 squares within three king steps, plus a skip.
  const std::map<std::string, int> expected = {
      {"K", 8},            // K
      {"P", 1}, {"+P", 6},  // fW; tokin WfF: W 4 + fF 2
      {"I", 3}, {"+I", 18},  // dog bFfW: 2 + 1; multi general bBfR: 12 + 6 (no promotion)
      {"S", 5}, {"+S", 14},  // FfW; vertical mover sWvR: 2 + 12
      {"F", 6}, {"+F", 24},  // FvW; bishop
      {"G", 6}, {"+G", 24},  // WfF; rook
      {"T", 7}, {"+T", 18},  // FsbW: 4 + 3; flying stag FsWvR: 4 + 2 + 12
      {"N", 8}, {"+N", 15},  // all eight knight leaps; side soldier bWsRfW2: 1 + 12 + 2
      {"O", 8}, {"+O", 25},  // kirin FD; lion: the 24 squares of its 5x5 and a skip
      {"X", 8}, {"+X", 48},  // phoenix WA; queen
      {"L", 12}, {"+L", 24},  // lance fRbW2: 6 + 2, +4 promoting; white horse fBvR: 12 + 12
      {"V", 18}, {"+V", 36},  // vertical mover 14, +4 promoting; flying ox BvR: 24 + 12
      {"M", 15}, {"+M", 40},  // side soldier 15 (fW2 stays out of the zone); water buffalo BsRvW2: 24 + 12 + 4
      {"B", 32}, {"+B", 28},  // 24, +8 promoting; dragon horse BW: 24 + 4
      {"R", 28}, {"+R", 28},  // 24, +4; dragon king RF: 24 + 4
      {"H", 36}, {"+H", 45},  // dragon horse 28, +8; horned falcon: B 24, sbR 18, fW 1, fD 1, skip 1
      {"D", 32}, {"+D", 41},  // dragon king 28, +4; soaring eagle: R 24, bB 12, fF 2, fA 2, skip 1
      {"Y", 53}, {"+Y", 24},  // horned falcon 45, +8 (its forward diagonals); bishop general B
      {"E", 45}, {"+E", 24},  // soaring eagle 41, +4 (its forward file); rook general R
      {"A", 25}, {"+A", 41},  // lion 25; lion hawk: the 5x5's 24, B beyond it 16, skip 1
      {"Q", 60}, {"+Q", 49},  // queen 48, +12; free eagle: Q 48 (its A and D on those lines), skip 1
      {"U", 32}, {"+U", 61},  // bishop general 24, +8; vice general: area 48, B beyond 12, skip 1
      {"J", 28}, {"+J", 48},  // rook general 24, +4; great general Q
      {"C", 52}, {"+C", 34},  // chariot soldier BvRsW2: 24 + 12 + 4, +12; tetrarch: 10 + 20 + 4
      {"W", 48}, {"+W", 67},  // water buffalo 40, +8; fire demon: area 48, slides beyond 18, skip 1
      {"Z", 67}, {"Z'", 61},  // fire demon, vice general: no promotion
  };
  const VariantPtr v = mitsugumi();
  ASSERT_EQ(expected.size(), v->faces.size());
  for (const auto& [token, count] : expected) {
    std::map<std::string, std::string> board = {{"7g", token}, {"1d", "k"}};
    if (token != "K") board["12m"] = "K";  // the king itself stands on 7g
    const Position pos = Position::fromSfen(v, boardSfen(*v, board) + " b - 1");
    int n = 0;
    for (const std::string& m : legalUsi(pos)) n += m.rfind("7g", 0) == 0;
    EXPECT_EQ(n, count) << token;
  }
}

TEST(Mitsugumi, RandomGamesKeepMakeUnmakeHashAndTextConsistent) {
  const VariantPtr v = mitsugumi();
  std::mt19937 rng(2026);
  int burns = 0, drops = 0, frozen = 0, maxMoves = 0;
  // Under a sanitizer a quarter of the games, and more (up to all 12) until each power was met.
  for (int game = 0; game < 12 && (game < poppy::testing::underSanitizers(12) || burns == 0 || drops == 0 || frozen == 0);
       ++game) {
    Position pos(v);
    for (int ply = 0; ply < 160 && !pos.outcome(400).over(); ++ply) {
      MoveList list;
      pos.generateLegal(list);
      ASSERT_GT(list.size(), 0);
      maxMoves = std::max(maxMoves, list.size());
      std::set<std::tuple<int, int, int, int>> distinct;
      for (const Move& m : list) distinct.insert({m.from, m.to, m.aux, m.flags});
      ASSERT_EQ(distinct.size(), size_t(list.size())) << pos.sfen() << ": a move is listed twice";
      for (const Move& m : list) {
        // Every move's text at every 8th ply (parseUsi generates the whole list each time).
        if (ply % 8 == 0) {
          ASSERT_EQ(pos.parseUsi(pos.moveToUsi(m)), m) << pos.sfen() << " " << pos.moveToUsi(m);
        }
        burns += m.isBurn();
        drops += m.isDrop();
      }
      for (Square s = 0; s < v->numSquares(); ++s) frozen += pos.isFrozen(s);
      const Move m = list[int(rng() % unsigned(list.size()))];
      ASSERT_EQ(pos.parseUsi(pos.moveToUsi(m)), m) << pos.sfen() << " " << pos.moveToUsi(m);
      const std::string before = pos.sfen();
      pos.makeMove(m);
      ASSERT_EQ(pos.hash(), pos.computeHash()) << before << " " << pos.moveToUsi(m);
      if (!pos.outcome().over()) {
        ASSERT_EQ(Position::fromSfen(v, pos.sfen()).sfen(), pos.sfen());
      }
      pos.unmakeMove();
      ASSERT_EQ(pos.sfen(), before);
      pos.makeMove(m);
    }
  }
  // Random play reaches the powers: burning, drops, and pieces frozen by a tetrarch.
  EXPECT_GT(burns, 0);
  EXPECT_GT(drops, 0);
  EXPECT_GT(frozen, 0) << "no position of these games had a frozen piece";
  RecordProperty("most_legal_moves", maxMoves);
  EXPECT_LT(maxMoves, kMaxMoves);
}

}  // namespace
