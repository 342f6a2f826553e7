// Exact tactics: the checks-only mate search (mcts/mate_search.h) and the MCTS-solver in the tree.
// Hand-derived positions are reasoned from the micro shogi rules in the comments (docs/RULES.md: a
// gold G moves one step orthogonally or diagonally forward; a pawn P one step forward; squares
// are file 4..1 from sente's left, rank a..e from gote's side). The tactics suite
// (tests/data/tactics_*.txt) was solved by Fairy-Stockfish, not by Poppy (scripts/make_tactics.py).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/evaluator.h"
#include "mcts/mate_search.h"
#include "mcts/search.h"
#include "nn/encoder.h"

using namespace poppy;
using game::Move;
using game::Position;

namespace {

// Gote's king alone in the corner 4a; sente has a pawn on 4c and a gold in hand.
// G*4b checks (a gold attacks the square straight ahead, 4a). The king's squares: 3a is
// attacked by the gold's forward diagonal, 3b by its sideways step, and taking on 4b is
// illegal because the pawn on 4c guards 4b. So G*4b mates. No other move mates at once:
// G*3b and G*3a check but the king takes the unguarded gold; 4c4b checks but the king takes
// the pawn; a rook face (+G) dropped on 4b, 3a or 2a leaves 3a or 3b free or can be taken.
const char* kMateInOne = "k3/4/P3/4/3K b G 1";

struct Micro {
  game::VariantPtr variant = game::loadVariant("micro");
  nn::Encoder encoder{variant};
  Position at(const std::string& sfen) const { return Position::fromSfen(variant, sfen); }
};

mcts::SearchParams solverOnly() {
  mcts::SearchParams p;
  p.leafMatePlies = 0;
  p.rootMatePlies = 0;
  return p;
}

void search(const nn::Encoder& encoder, mcts::Tree& tree, int playouts) {
  mcts::UniformEvaluator eval(encoder.policySize());
  mcts::SearchDriver driver(eval, encoder, 16);
  driver.search({&tree}, playouts);
}

TEST(MateSearch, FindsTheHandDerivedMateInOne) {
  Micro m;
  Position pos = m.at(kMateInOne);
  const uint64_t hash = pos.hash();
  mcts::MateSearch search;
  const mcts::MateResult r = search.find(pos, 5);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.plies, 1);
  ASSERT_EQ(r.line.size(), 1u);
  EXPECT_EQ(pos.moveToUsi(r.line[0]), "G*4b");
  EXPECT_EQ(pos.hash(), hash);
  EXPECT_EQ(pos.sfen(), kMateInOne);
}

TEST(MateSearch, NoCheckAtTheStartMeansNoMate) {
  // At the start sente's only long piece, the bishop on 2e, sees 3d and 4c: nothing gives check,
  // so a checks-only search cannot find a mate at any depth.
  Micro m;
  Position pos(m.variant);
  mcts::MateSearch search;
  const mcts::MateResult r = search.find(pos, 7);
  EXPECT_FALSE(r.found);
  EXPECT_FALSE(r.budgetExhausted);
  EXPECT_GT(r.nodes, 0);
}

TEST(MateSearch, TheDefenderIsNotMated) {
  // Gote to move in the same position: gote has no checking move (a lone king), so no mate.
  Micro m;
  Position pos = m.at("k3/4/P3/4/3K w G 1");
  mcts::MateSearch search;
  EXPECT_FALSE(search.find(pos, 5).found);
}

TEST(MateSearch, ABudgetTooSmallIsReportedNotMistakenForNoMate) {
  // The start position has no mate (above), but one node cannot show that: the search must say
  // it stopped early rather than "no mate".
  Micro m;
  Position pos(m.variant);
  mcts::MateSearch search(0, 1);
  const mcts::MateResult r = search.find(pos, 7);
  EXPECT_FALSE(r.found);
  EXPECT_TRUE(r.budgetExhausted);
  EXPECT_EQ(pos.sfen(), Position(m.variant).sfen());
}

TEST(MateSearch, TheStopTestEndsTheSearch) {
  Micro m;
  Position pos(m.variant);
  mcts::MateSearch search;
  search.setStopTest([] { return true; });
  const mcts::MateResult r = search.find(pos, 31);
  EXPECT_FALSE(r.found);
  EXPECT_TRUE(r.budgetExhausted);
}

TEST(Solver, ProvesTheMateWithoutAnyMateSearch) {
  // With the mate searches off, the solver alone meets the mate as a game end below the root:
  // the child after G*4b is lost for gote, so the root is a proven win in one ply.
  Micro m;
  mcts::Tree tree(m.at(kMateInOne), solverOnly(), 1);
  search(m.encoder, tree, 400);
  ASSERT_TRUE(tree.rootIsProven());
  EXPECT_EQ(tree.rootMate(), 1);
  std::mt19937 rng(1);
  EXPECT_EQ(tree.rootPosition().moveToUsi(tree.pickMove(1.0f, rng)), "G*4b");  // even when sampling
  EXPECT_FLOAT_EQ(tree.rootValue(), 1.0f);
  // The training target is the proven move alone.
  const std::vector<float> policy = tree.visitPolicy(m.encoder);
  const Move mate = tree.rootPosition().parseUsi("G*4b");
  EXPECT_FLOAT_EQ(policy[size_t(m.encoder.moveIndex(tree.rootPosition(), mate))], 1.0f);
}

TEST(Solver, RootMateSearchDecidesBeforeAnyPlayout) {
  Micro m;
  mcts::Tree tree(m.at(kMateInOne), mcts::SearchParams{}, 1);
  EXPECT_TRUE(tree.rootIsProven());
  EXPECT_EQ(tree.rootMate(), 1);
  search(m.encoder, tree, 100);  // nothing left to search
  EXPECT_EQ(tree.rootVisits(), 0);
  std::mt19937 rng(1);
  EXPECT_EQ(tree.rootPosition().moveToUsi(tree.pickMove(0.0f, rng)), "G*4b");
  const auto children = tree.rootChildren();
  int mates = 0;
  for (const auto& c : children) mates += c.mate != 0;
  EXPECT_EQ(mates, 1);
}

TEST(Solver, OffMeansPlainVisits) {
  Micro m;
  mcts::SearchParams p = solverOnly();
  p.solver = false;
  mcts::Tree tree(m.at(kMateInOne), p, 1);
  search(m.encoder, tree, 200);
  EXPECT_FALSE(tree.rootIsProven());
  EXPECT_EQ(tree.rootVisits(), 200);
}

// One line of tests/data/tactics_*.txt.
struct Tactic {
  std::string variant, start;
  std::vector<std::string> moves, solutions;
  int plies = 0;
  std::string where;
};

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<Tactic> loadTactics(const std::string& name) {
  const std::string path = std::string(POPPY_SOURCE_DIR) + "/tests/data/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<Tactic> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> field;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '|');) field.push_back(trim(f));
    if (field.size() != 5) {
      ADD_FAILURE() << path << ":" << number << ": expected 5 fields";
      continue;
    }
    Tactic t{field[0], field[1], words(field[2]), words(field[4]), std::stoi(field[3]), path + ":" + std::to_string(number)};
    out.push_back(t);
  }
  return out;
}

Position replay(const game::VariantPtr& variant, const Tactic& t) {
  Position pos = Position::fromSfen(variant, t.start);
  for (const std::string& m : t.moves) pos.makeMove(pos.parseUsi(m));
  return pos;
}

class TacticsSuite : public ::testing::TestWithParam<const char*> {};

// Budget: every mate of the suite (1, 3 and 5 plies to give; 2 and 4 to suffer, where every move
// loses) is proven by the tree search with the
// default solver settings and a knowledge-free (uniform) evaluator within kPlayouts playouts.
// The proof may find a longer forced mate than Fairy-Stockfish's shortest (the search stops
// once the root is proven), never a shorter one; where it finds the shortest, the move played
// must be one of Fairy-Stockfish's mating moves.
constexpr int kPlayouts = 3000;

TEST_P(TacticsSuite, EveryMateIsSolvedWithinTheBudget) {
  const std::vector<Tactic> suite = loadTactics(GetParam());
  ASSERT_GE(suite.size(), 15u);
  int byLength[8] = {}, shortest = 0, lost = 0;
  for (const Tactic& t : suite) {
    const game::VariantPtr variant = game::loadVariant(t.variant);
    const nn::Encoder encoder(variant);
    const Position pos = replay(variant, t);
    mcts::Tree tree(pos, mcts::SearchParams{}, 7);
    search(encoder, tree, kPlayouts);
    EXPECT_TRUE(tree.rootIsProven()) << t.where << ": mate in " << t.plies << " not proven";
    if (t.plies < 0) {  // lost whatever the side to move plays: proven lost, never sooner than Fairy says
      ++lost;
      EXPECT_LE(tree.rootMate(), t.plies) << t.where;
      continue;
    }
    ++byLength[std::min(t.plies, 7)];
    EXPECT_GE(tree.rootMate(), t.plies) << t.where << ": a mate shorter than Fairy-Stockfish's shortest";
    if (tree.rootMate() != t.plies) continue;
    ++shortest;
    std::mt19937 rng(1);
    const Move played = tree.pickMove(0.0f, rng);
    bool listed = false;
    for (const std::string& s : t.solutions) listed |= pos.parseUsi(s) == played;
    EXPECT_TRUE(listed) << t.where << ": played " << pos.moveToUsi(played) << ", not one of Fairy-Stockfish's mating moves";
  }
  EXPECT_GT(byLength[1], 0);
  EXPECT_GT(byLength[3], 0);
  EXPECT_GT(byLength[5], 0);
  EXPECT_GT(lost, 0);
  std::printf("%s: %d mates to give (%d proven at Fairy-Stockfish's shortest length), %d to suffer, all proven\n",
              GetParam(), byLength[1] + byLength[3] + byLength[5], shortest, lost);
}

INSTANTIATE_TEST_SUITE_P(Tactics, TacticsSuite, ::testing::Values("tactics_micro.txt", "tactics_minishogi.txt"));

}  // namespace

// Royal capture (chu, docs/RULES.md): taking the last royal ends the game, check or no check.
// Gote's king on 6a, sente's rook on 6l with the file open: 6l6a takes it, a "mate" in 1. With
// a crown prince beside the king (on 5a) the capture leaves gote a royal and the game goes on
// (the rook on 6a checks the prince, which may take it): no mate in 1.
TEST(MateSearchRoyalCapture, TakingTheLastKingIsAMateInOne) {
  const game::VariantPtr chu = game::loadVariant("chu");
  Position pos = Position::fromSfen(chu, "6k5/12/12/12/12/1p10/12/12/12/12/12/K5R5 b - 1");
  mcts::MateSearch search;
  int plies = 0;
  const Move m = search.quick(pos, 1, plies);
  ASSERT_FALSE(m.isNone());
  EXPECT_EQ(pos.moveToUsi(m).substr(0, 4), "6l6a") << "promoting or not, it wins";
  EXPECT_EQ(plies, 1);
  Position prince = Position::fromSfen(chu, "6k+e4/12/12/12/12/1p10/12/12/12/12/12/K5R5 b - 1");
  EXPECT_TRUE(search.quick(prince, 1, plies).isNone());
}
