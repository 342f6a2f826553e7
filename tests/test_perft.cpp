// Start-position perft of every variant against the table in docs/RULES.md (counts from
// independent engines).
#include <gtest/gtest.h>

#include "game/perft.h"
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
                      // By hand (tests/test_whale.cpp, WhalePerft): no engine plays whale shogi.
                      PerftCase{"whale", {7, 49}},
                      // shogiops' distinct children (tests/reference/shogiops/chu_perft.mjs).
                      PerftCase{"chu", {36, 1296, 48315, 1801639}}),
    [](const auto& info) { return std::string(info.param.variant); });
