// Perft on random positions of six variants against Fairy-Stockfish (Debian package
// fairy-stockfish, installed by scripts/setup.sh), an engine written independently of Poppy.
// Tori shogi is not in Fairy-Stockfish 11.1; its start-position counts are in test_perft.
//
// Fairy-Stockfish 11.1 (Debian 12) has one known defect: it sometimes allows a pawn drop that
// checkmates (uchifuzume), which shogi forbids (seed 002, docs/RULES.md); its own perft shows zero
// replies after such a drop, and current Fairy-Stockfish rejects it with the same full test
// Poppy uses. Where counts differ, the test walks down the divide tree and accepts only that:
// every move Fairy-Stockfish has and Poppy lacks must be a pawn drop in a variant whose rules
// forbid pawn-drop mate (the table below, from docs/RULES.md, not Poppy's variant files), and Poppy,
// with the rule lifted, must confirm that the drop checks and leaves no legal reply. Where both
// engines allow such a drop, this test cannot see it: tests/test_shogiops_perft.cpp counts those
// positions with a second reference.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "game/perft.h"
#include "game/variant_loader.h"
#include "play/engines/usi_notation.h"
#include "support/fairy_stockfish.h"
#include "support/random_positions.h"

using namespace poppy::game;

namespace {

// True when `text` (Fairy-Stockfish's notation) is Fairy-Stockfish 11.1's defect in `pos`: a pawn
// drop that mates. The mate is confirmed by Poppy on a copy of the variant without its drop-mate
// rule (where the drop is legal): after it the other side is in check and has no legal move.
bool isMatingPawnDrop(const Position& pos, const poppy::play::UsiNotation& notation, const std::string& text) {
  auto lax = std::make_shared<Variant>(pos.variant());
  lax->noDropMateFaces = 0;
  Position laxPos = Position::fromSfen(lax, pos.sfen());
  MoveList list;
  laxPos.generateLegal(list);
  for (const Move& m : list) {
    if (notation.move(laxPos, laxPos.moveToUsi(m)) != text) continue;
    if (!m.isDrop() || lax->faces[size_t(m.dropFace())].token() != "P") return false;
    laxPos.makeMove(m);
    return laxPos.inCheck() && !laxPos.hasLegalMove();
  }
  return false;  // not even a legal move without the rule
}

// Walks the divide trees of both engines below a position whose counts differ, collecting the
// differences that are not Fairy-Stockfish 11.1's drop-mate defect.
void explainDifference(poppy::testing::FairyStockfish& fairy, const std::string& ours, bool pawnDropMateForbidden,
                       const std::string& rootSfen, Position& pos, std::vector<std::string>& path, int depth,
                       std::vector<std::string>& unexplained) {
  const std::string where = rootSfen + (path.empty() ? "" : " after");
  std::string pathText;
  for (const auto& m : path) pathText += " " + m;
  // Both sides' moves in Fairy-Stockfish's notation (micro's pieces have other names there).
  const poppy::play::UsiNotation notation(poppy::play::NotationKind::kFairy, ours);
  std::map<std::string, Move> mine;
  MoveList list;
  pos.generateLegal(list);
  for (const Move& m : list) mine[notation.move(pos, pos.moveToUsi(m))] = m;
  const std::string fairySfen = notation.sfen(rootSfen);
  const std::map<std::string, long long> theirs = fairy.divide(fairySfen, path, depth);
  for (const auto& [text, n] : theirs) {
    if (mine.count(text)) continue;
    if (!(pawnDropMateForbidden && isMatingPawnDrop(pos, notation, text)))
      unexplained.push_back(where + pathText + ": fairy-stockfish has " + text + ", poppy not");
  }
  for (const auto& [text, move] : mine) {
    if (!theirs.count(text)) {
      unexplained.push_back(where + pathText + ": poppy has " + text + ", fairy-stockfish not");
      continue;
    }
    pos.makeMove(move);
    const long long n = depth > 1 ? (long long)perft(pos, depth - 1) : 1;
    if (n != theirs.at(text)) {
      path.push_back(text);
      explainDifference(fairy, ours, pawnDropMateForbidden, rootSfen, pos, path, depth - 1, unexplained);
      path.pop_back();
    }
    pos.unmakeMove();
  }
}

struct FairyCase {
  const char* ours;
  const char* fairy;
  int positions;
  int depth;
  int maxPlies;
  bool pawnDropMateForbidden;  // docs/RULES.md: shogi's drop rules; micro and kyoto allow it
};

class FairyPerft : public ::testing::TestWithParam<FairyCase> {};

TEST_P(FairyPerft, RandomPositionsMatch) {
  const FairyCase& c = GetParam();
  ASSERT_TRUE(std::ifstream(poppy::testing::FairyStockfish::kPath).good())
      << poppy::testing::FairyStockfish::kPath << " is missing: run scripts/setup.sh (it installs Debian's fairy-stockfish)";
  const VariantPtr v = loadVariant(c.ours);
  const auto sfens = poppy::testing::randomPositions(v, c.positions, c.maxPlies, 20261121);
  poppy::testing::FairyStockfish fairy;
  fairy.setVariant(c.fairy);
  int mismatches = 0, knownDefects = 0;
  for (size_t i = 0; i < sfens.size(); ++i) {
    Position pos = Position::fromSfen(v, sfens[i]);
    const long long ours = (long long)perft(pos, c.depth);
    long long expected = -1;
    fairy.divide(poppy::play::UsiNotation(poppy::play::NotationKind::kFairy, c.ours).sfen(sfens[i]), {}, c.depth,
                 &expected);
    if (ours == expected) continue;
    std::vector<std::string> path, unexplained;
    explainDifference(fairy, c.ours, c.pawnDropMateForbidden, sfens[i], pos, path, c.depth, unexplained);
    if (unexplained.empty()) {
      ++knownDefects;
      continue;
    }
    ++mismatches;
    ADD_FAILURE() << c.ours << " perft " << c.depth << " of " << sfens[i] << ": poppy " << ours
                  << ", fairy-stockfish " << expected << "; first difference: " << unexplained.front();
  }
  EXPECT_EQ(mismatches, 0);
  std::printf("%s: %zu positions agree; %d differ only by Fairy-Stockfish 11.1 allowing a mating pawn drop\n",
              c.ours, sfens.size() - mismatches - knownDefects, knownDefects);
}

INSTANTIATE_TEST_SUITE_P(Variants, FairyPerft,
                         ::testing::Values(FairyCase{"micro", "micro", 600, 3, 80, false},
                                           FairyCase{"kyoto", "kyotoshogi", 600, 3, 80, false},
                                           FairyCase{"minishogi", "minishogi", 600, 3, 80, true},
                                           FairyCase{"judkins", "judkins", 300, 3, 80, true},
                                           FairyCase{"gorogoro", "gorogoro", 300, 3, 80, true},
                                           FairyCase{"shogi", "shogi", 300, 2, 200, true}),
                         [](const auto& info) { return std::string(info.param.ours); });

}  // namespace
