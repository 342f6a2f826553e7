// Start-position perft of every variant against the table in docs/RULES.md (counts from
// independent engines).
#include <gtest/gtest.h>

#include <utility>

#include "game/perft.h"
#include "game/random_games.h"
#include "game/variant_loader.h"

using namespace poppy::game;

struct PerftCase {
  const char* variant;
  std::vector<uint64_t> counts;  // depth 1, 2, ...
};

class StartPerft : public ::testing::TestWithParam<PerftCase> {};

TEST_P(StartPerft, MatchesReferenceTable) {
  const PerftCase& c = GetParam();
  Position pos(loadVariant(c.variant));
  for (size_t d = 0; d < c.counts.size(); ++d)
    EXPECT_EQ(perft(pos, int(d + 1)), c.counts[d]) << c.variant << " depth " << d + 1;
}

// docs/RULES.md, "Reference perft counts from the start position". The deepest entries that take
// more than a few seconds on a 2-core CI machine are left to `poppy bench perft`.
INSTANTIATE_TEST_SUITE_P(
    Variants, StartPerft,
    ::testing::Values(PerftCase{"micro", {9, 80, 767, 7256, 71328}},
                      PerftCase{"minishogi", {14, 181, 2512, 35401, 533203}},
                      PerftCase{"kyoto", {12, 137, 1636, 18268, 225903}},
                      PerftCase{"judkins", {20, 336, 6183, 118345}},
                      PerftCase{"gorogoro", {16, 250, 4166, 67517, 1186299}},
                      PerftCase{"tori", {17, 288, 5430, 103857}},
                      PerftCase{"shogi", {30, 900, 25470, 719731}},
                      // Fairy-Stockfish 230826 (ffish) with tests/reference/ffish/yari.ini.
                      PerftCase{"yari", {20, 400, 7960, 158404}},
                      // Fairy-Stockfish 230826 (ffish) with tests/reference/ffish/small.ini and quasi.ini.
                      PerftCase{"small", {20, 400, 8280, 170959}},
                      PerftCase{"quasi", {32, 1024, 31104, 944150}},
                      // Fairy-Stockfish 230826 (ffish) with tests/reference/ffish/cubic.ini and cubic8.ini.
                      PerftCase{"cubic", {23, 529, 11317, 242090}},
                      PerftCase{"cubic8", {28, 784, 20046, 512442}},
                      // Fairy-Stockfish (ffish, cannon.ini) to depth 3; at depth 4 it counts one mating
                      // pawn drop that shogi's rule forbids (tests/test_cannon_shogi.cpp).
                      PerftCase{"cannon", {52, 2583, 144245}},
                      // Fairy-Stockfish (ffish, miburi.ini: shogi with check counting).
                      PerftCase{"miburi", {30, 900, 25470, 719731}},
                      // shogiops (annanshogi; tests/test_annan_shogi.cpp).
                      PerftCase{"annan", {28, 784, 22726, 658600}},
                      // By hand (tests/test_unashogi.cpp): no engine plays unashogi.
                      PerftCase{"unashogi", {612, 369392}},
                      // By hand (tests/test_hand_shogi.cpp): no engine plays hand shogi.
                      PerftCase{"hand", {319}},
                      // By hand (tests/test_whale.cpp, WhalePerft): no engine plays whale shogi.
                      PerftCase{"whale", {7, 49}},
                      // shogiops' distinct children (tests/reference/shogiops/chu_perft.mjs).
                      PerftCase{"chu", {36, 1296, 48315, 1801639}}),
    [](const auto& info) { return std::string(info.param.variant); });

// game/random_games.h: a random game cut at one ply has met exactly the start position, whose
// legal moves are the reference table's depth-1 count above (independent engines); longer games
// add up (every game ends one way, a ply per position) and are the same for the same seed.
TEST(RandomGames, CountTheLegalMovesOfThePositionsMet) {
  for (const auto& [variant, startMoves] : {std::pair{"micro", 9}, std::pair{"minishogi", 14}, std::pair{"shogi", 30}}) {
    const RandomGameStats one = playRandomGames(loadVariant(variant), 3, 1, 7);
    EXPECT_EQ(one.positions, 3) << variant;
    EXPECT_DOUBLE_EQ(one.legalMovesPerPosition(), startMoves) << variant;
    EXPECT_EQ(one.maxLegalMoves, startMoves) << variant;
    EXPECT_EQ(one.capped, 3) << variant;
  }
  const auto micro = loadVariant("micro");
  const RandomGameStats s = playRandomGames(micro, 40, 300, 3);
  EXPECT_EQ(s.games, 40);
  EXPECT_EQ(s.decisive + s.drawn + s.capped, 40);
  EXPECT_EQ(s.plies, s.positions);
  EXPECT_GT(s.decisive, 0);  // random micro games end by checkmate or royal capture well before 300 plies
  EXPECT_GE(s.maxLegalMoves, 9);
  const RandomGameStats again = playRandomGames(micro, 40, 300, 3);
  EXPECT_EQ(again.legalMoves, s.legalMoves);
  EXPECT_EQ(again.plies, s.plies);
}
