// Perft against a second independent reference, lishogi's rules library shogiops (npm package
// shogiops 0.18.0, pinned in tests/reference/shogiops/package.json and installed there by
// scripts/setup.sh), on positions where a pawn drop would give mate (uchifuzume: forbidden in
// shogi and minishogi, seed 002, docs/RULES.md).
//
// Why a second reference: Fairy-Stockfish 11.1 allows such drops (tests/test_fairy_perft.cpp), so
// if Poppy allowed them too, the two would agree and that test would pass. Perft(n) counts the
// leaves at depth n and a mating drop has no replies, so the drop changes only the count of the
// depth at which it is the last move: every depth from 1 is compared, not only the deepest.
//
// The positions are made up for this test. Each names the drop it is about; the test also checks
// that premise with Poppy's own rules lifted (the drop is then legal and mates, or does not mate
// for the contrast positions), so that an edit of a position cannot quietly empty the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "game/perft.h"
#include "game/variant_loader.h"
#include "support/random_positions.h"
#include "support/shogiops.h"

using namespace poppy::game;
namespace fs = std::filesystem;

namespace {

// shogiops's perft counts at depths 1..depth (tests/reference/shogiops/perft.mjs); empty, the
// test failed, when it cannot run.
std::vector<unsigned long long> shogiopsPerft(const std::string& rules, const std::string& sfen, int depth) {
  std::vector<unsigned long long> counts;
  for (const std::string& line : poppy::testing::runShogiopsScript(
           "perft.mjs", rules + " " + std::to_string(depth) + " " + poppy::testing::shellQuote(sfen)))
    counts.push_back(std::strtoull(line.c_str(), nullptr, 10));
  if (!counts.empty() && int(counts.size()) != depth) {
    ADD_FAILURE() << "perft.mjs gave " << counts.size() << " counts for depth " << depth << ": " << sfen;
    return {};
  }
  return counts;
}

struct DropCase {
  const char* name;
  const char* variant;  // Poppy's and shogiops's name alike
  const char* sfen;
  int depth;
  const char* drop;  // the pawn drop the position is about, for the side to move
  bool mates;        // the drop would mate (so it is forbidden); false: a check it allows
};

// Where each position comes from and why the pawn-drop mate matters there.
const DropCase kCases[] = {
    // Gote's king on 1a is boxed in by its own knight on 2a (which cannot reach 1b); sente's gold
    // on 2c guards 1b and 2b. P*1b checks, the king may not take the guarded pawn nor step to 2b,
    // nothing else can take it: mate, so forbidden. The same box turned round for the other
    // colour (sente's king 9i, its knight 8i, gote's gold 8g, a pawn in gote's hand) makes p*9h
    // the forbidden mate at ply 2, and P*1b again at ply 3. Fairy-Stockfish 11.1 counts
    // 76, 5492, 77615: it allows the drops at the last ply.
    {"BoxedKingBothColours", "shogi", "7nk/9/7G1/9/9/9/1g7/9/KN7 b Pp 1", 3, "P*1b", true},
    // Contrast: without the knight on 2a the king escapes to 2a, so P*1b is a legal check.
    {"KingEscapes", "shogi", "8k/9/7G1/9/9/9/9/9/K8 b P 1", 3, "P*1b", false},
    // P*1b checks the king on 1a; gote's gold on 2b could take it but is pinned by the bishop on
    // 5e (5e-4d-3c-2b-1a); the knight on 2d guards 1b, the silver on 3b covers 2a: mate, forbidden.
    // A mate test that forgot pins would allow the drop.
    {"DefenderPinned", "shogi", "8k/6Sg1/9/7N1/4B4/9/9/9/K8 b P 1", 3, "P*1b", true},
    // Contrast: without the bishop the gold takes on 1b, so P*1b is a legal check.
    {"DefenderFree", "shogi", "8k/6Sg1/9/7N1/9/9/9/9/K8 b P 1", 3, "P*1b", false},
    // Minishogi (the same rule): gote's king on 1a beside its own rook on 2a (a rook there does not
    // reach 1b), sente's gold on 2c guards 1b and 2b: P*1b would mate, forbidden at ply 1 and again
    // at ply 3 wherever gote's reply kept the box.
    {"MinishogiBoxedKing", "minishogi", "3rk/5/3G1/5/K4 b P 1", 4, "P*1b", true},
};

void PrintTo(const DropCase& c, std::ostream* os) { *os << c.variant << " " << c.sfen; }

class ShogiopsPerft : public ::testing::TestWithParam<DropCase> {};

// The premise: with the variant's drop-mate rule lifted, the named drop is legal and mates (or,
// for a contrast position, checks without mating).
TEST_P(ShogiopsPerft, PositionHasThePawnDropItIsAbout) {
  const DropCase& c = GetParam();
  const VariantPtr v = loadVariant(c.variant);
  ASSERT_NE(v->noDropMateFaces, 0u) << c.variant << " forbids no drop mate";
  auto lax = std::make_shared<Variant>(*v);
  lax->noDropMateFaces = 0;
  Position pos = Position::fromSfen(lax, c.sfen);
  const Move drop = pos.parseUsi(c.drop);  // throws if not legal even without the rule
  pos.makeMove(drop);
  EXPECT_TRUE(pos.inCheck()) << c.drop << " should check";
  EXPECT_EQ(pos.hasLegalMove(), !c.mates) << c.drop << (c.mates ? " should mate" : " should not mate");
  EXPECT_EQ(Position::fromSfen(v, c.sfen).isLegal(drop), !c.mates) << "Poppy's own rules on " << c.drop;
}

TEST_P(ShogiopsPerft, CountsAtEveryDepthMatchShogiops) {
  const DropCase& c = GetParam();
  const std::vector<unsigned long long> expected = shogiopsPerft(c.variant, c.sfen, c.depth);
  ASSERT_EQ(int(expected.size()), c.depth);
  Position pos = Position::fromSfen(loadVariant(c.variant), c.sfen);
  for (int d = 1; d <= c.depth; ++d)
    EXPECT_EQ(perft(pos, d), expected[size_t(d - 1)]) << c.variant << " " << c.sfen << " depth " << d << " ("
                                                      << c.drop << (c.mates ? " would mate" : " checks") << ")";
}

INSTANTIATE_TEST_SUITE_P(PawnDrops, ShogiopsPerft, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// A third opinion beside Fairy-Stockfish (tests/test_fairy_perft.cpp) on ordinary positions:
// random games of shogi and minishogi (drops, promotions, checks), perft to depth 2 (depth 3
// for minishogi) against shogiops, all positions in one node process.
class ShogiopsRandomPositions : public ::testing::TestWithParam<std::pair<const char*, int>> {};

TEST_P(ShogiopsRandomPositions, CountsMatchShogiops) {
  const auto [variant, depth] = GetParam();
  const VariantPtr v = loadVariant(variant);
  const auto sfens = poppy::testing::randomPositions(v, 60, 120, 20261124);
  std::string input;
  for (const auto& s : sfens) input += s + "\n";
  const std::vector<std::string> lines =
      poppy::testing::runShogiopsScript("perft.mjs", std::string(variant) + " " + std::to_string(depth) + " -", input);
  ASSERT_EQ(lines.size(), sfens.size());
  for (size_t i = 0; i < sfens.size(); ++i) {
    std::istringstream in(lines[i]);
    Position pos = Position::fromSfen(v, sfens[i]);
    for (int d = 1; d <= depth; ++d) {
      unsigned long long expected = 0;
      ASSERT_TRUE(bool(in >> expected)) << lines[i];
      EXPECT_EQ(perft(pos, d), expected) << variant << " " << sfens[i] << " depth " << d;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ShogiopsRandomPositions,
                         ::testing::Values(std::make_pair("shogi", 2), std::make_pair("minishogi", 3)),
                         [](const auto& info) { return std::string(info.param.first); });

}  // namespace
