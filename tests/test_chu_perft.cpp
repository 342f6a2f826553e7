// Chu shogi perft against lishogi's rules library shogiops (npm package shogiops 0.18.0, its
// chushogi rules; tests/reference/shogiops/chu_perft.mjs, installed by scripts/setup.sh).
//
// shogiops lists a lion's moves by path (a step to each middle square and a step on), Poppy
// lists each resulting position once (game/types.h Move), so the script counts distinct
// children at every node; see chu_perft.mjs. Any difference is walked down the divide tree to
// the position where the two lists of children differ, and the test names it.
//
// Random positions come from random games played by shogiops itself (chu_perft.mjs random, a
// fixed seed). The suite checks 40 of them at depths 1-2 so that it stays quick; set
// POPPY_CHU_PERFT_POSITIONS and POPPY_CHU_PERFT_DEPTH for a longer sweep (docs/VARIANTS.md "Chu shogi"
// quotes the 500-position run).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "game/perft.h"
#include "game/variant_loader.h"
#include "support/position_helpers.h"
#include "support/shogiops.h"

using namespace poppy::game;
using poppy::testing::shellQuote;
namespace fs = std::filesystem;

namespace {

int envInt(const char* name, int dflt) {
  const char* text = std::getenv(name);
  return text && std::atoi(text) > 0 ? std::atoi(text) : dflt;
}

// Runs chu_perft.mjs with ARGS (and INPUT on stdin); returns its output lines.
std::vector<std::string> runScript(const std::string& args, const std::string& input = "") {
  return poppy::testing::runShogiopsScript("chu_perft.mjs", args, input);
}

// shogiops' distinct-children counts at depths 1..depth for each SFEN.
std::vector<std::vector<unsigned long long>> shogiopsCounts(const std::vector<std::string>& sfens, int depth) {
  std::string input;
  for (const auto& s : sfens) input += s + "\n";
  std::vector<std::vector<unsigned long long>> out;
  for (const std::string& line : runScript("distinct " + std::to_string(depth), input)) {
    std::istringstream in(line);
    std::vector<unsigned long long> counts;
    unsigned long long n;
    while (in >> n) counts.push_back(n);
    out.push_back(counts);
  }
  return out;
}

// Poppy's children of pos by SFEN, with their perft counts at depth - 1.
std::map<std::string, std::pair<std::string, unsigned long long>> poppyDivide(Position& pos, int depth) {
  std::map<std::string, std::pair<std::string, unsigned long long>> out;
  MoveList moves;
  pos.generateLegal(moves);
  for (const Move& m : moves) {
    const std::string usi = pos.moveToUsi(m);
    pos.makeMove(m);
    const std::string child = pos.sfen();
    const bool repeated = out.count(child) > 0;
    out[child] = {usi, perft(pos, depth - 1)};
    pos.unmakeMove();
    EXPECT_FALSE(repeated) << "two of Poppy's moves lead to one position: " << usi << " in " << pos.sfen();
  }
  return out;
}

// Walks a perft difference down to the position whose children differ and describes it.
std::string explainDifference(const VariantPtr& chu, const std::string& sfen, int depth) {
  std::string path;
  std::string current = sfen;
  for (int d = depth; d >= 1; --d) {
    Position pos = Position::fromSfen(chu, current);
    const auto ours = poppyDivide(pos, d);
    std::map<std::string, std::pair<std::string, unsigned long long>> theirs;
    for (const std::string& line : runScript("divide " + std::to_string(d) + " " + shellQuote(current))) {
      const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
      if (t1 == std::string::npos || t2 == std::string::npos) return "unreadable divide line: " + line;
      theirs[line.substr(t2 + 1)] = {line.substr(t1 + 1, t2 - t1 - 1), std::stoull(line.substr(0, t1))};
    }
    std::string report;
    for (const auto& [child, info] : theirs)
      if (!ours.count(child)) report += "\n  missing in Poppy: " + info.first + " -> " + child;
    for (const auto& [child, info] : ours)
      if (!theirs.count(child)) report += "\n  extra in Poppy: " + info.first + " -> " + child;
    if (!report.empty()) return "after [" + path + "] in " + current + ":" + report;
    bool descended = false;
    for (const auto& [child, info] : theirs)
      if (ours.at(child).second != info.second) {
        path += (path.empty() ? "" : " ") + info.first;
        current = child;
        descended = true;
        break;
      }
    if (!descended) return "no difference found below " + current;
  }
  return "difference vanished at the leaves after [" + path + "]";
}

void expectSameCounts(const VariantPtr& chu, const std::vector<std::string>& sfens, int depth) {
  const auto reference = shogiopsCounts(sfens, depth);
  ASSERT_EQ(reference.size(), sfens.size());
  for (size_t i = 0; i < sfens.size(); ++i) {
    ASSERT_EQ(int(reference[i].size()), depth) << sfens[i];
    Position pos = Position::fromSfen(chu, sfens[i]);
    for (int d = 1; d <= depth; ++d) {
      const unsigned long long ours = perft(pos, d);
      if (ours != reference[i][size_t(d - 1)]) {
        ADD_FAILURE() << sfens[i] << " depth " << d << ": Poppy " << ours << ", shogiops " << reference[i][size_t(d - 1)]
                      << "\n" << explainDifference(chu, sfens[i], d);
        break;
      }
    }
  }
}

// Hand-made positions for the rules random games rarely reach. Kings on 12l and 1a, out of the
// way. Each comment says what the position is about; RulesByHand below checks the key moves
// against the seed's text, independently of shogiops.
const std::vector<std::string> kRuleCases = {
    // A gote lion two squares ahead of sente's lion, guarded by a gote pawn (6d).
    "11k/12/12/6p5/6n5/12/6N5/12/12/12/12/K11 b - 1",
    // The same, with a gote pawn (cheap) on 6f and a gote gold (not cheap) on 7f to take first.
    "11k/12/12/6p5/6n5/5gp5/6N5/12/12/12/12/K11 b - 1",
    // The lion unguarded.
    "11k/12/12/12/6n5/12/6N5/12/12/12/12/K11 b - 1",
    // Counter-strike: gote's gold just took sente's lion on 6g; sente's rooks may take the gote
    // lion on 9e only on 6g (it is not there), so 9l9e is out, 6l6g stands.
    "11k/12/12/12/3n8/12/6g5/12/12/12/12/K2R2R5 b 6g 1",
    // Horned falcon and soaring eagle with pieces to take and take through.
    "11k/12/12/12/12/1s3g6/2p3p5/3+D2+H5/12/12/12/K11 b - 1",
    // Lions beside lions, a promoted kirin (a lion too) and a pass-or-igui choice.
    "11k/12/12/12/5n6/4+o1N5/5p6/12/12/12/12/K11 w - 1",
    // Promotion: entering the zone (pawn 3e), moving inside it without and with a capture
    // (silver 8d, gote pawn 8c), reaching the last rank (pawn 5b, lance 10b).
    "11k/2L4P4/4p7/4S7/9P2/12/12/12/12/12/12/K11 b - 1",
    // A drunk elephant about to promote to a crown prince, the second royal.
    "11k/12/12/12/6E5/12/12/12/12/12/12/K11 b - 1",
    // Sente's promoted dragon (5a) takes gote's only royal on 5b: after 5a5b the game is over and
    // has no moves, though gote's pieces could still move (issue 39: both engines counted 73).
    "l1csge1+Dsf1l/af1d1xgk2ca/mvrt1tr3v1/1ppp6pm/9p1p/p4p6/3I2p5/12/PPPPPO2P1PM/MBRH2T5/AV2T3+h2L/LFCSGK1GS3 b - 99",
};

class ChuPerft : public ::testing::Test {
 protected:
  VariantPtr chu = loadVariant("chu");
};

TEST_F(ChuPerft, StartPositionToDepthThree) { expectSameCounts(chu, {chu->startSfen}, 3); }

TEST_F(ChuPerft, HandMadeRuleCases) { expectSameCounts(chu, kRuleCases, 2); }

// A side that has lost its last royal has lost (docs/RULES.md, chu: royal capture): the position
// after the capture counts no moves at any depth, and divide lists none.
TEST_F(ChuPerft, AGameEndedByRoyalCaptureHasNoMoves) {
  Position pos = Position::fromSfen(chu, kRuleCases.back());
  pos.makeMove(pos.parseUsi("5a5b"));
  ASSERT_EQ(pos.royalCount(pos.sideToMove()), 0);
  EXPECT_EQ(perft(pos, 1), 0u);
  EXPECT_EQ(perft(pos, 2), 0u);
  EXPECT_TRUE(perftDivide(pos, 2).empty());
  pos.unmakeMove();
  for (const auto& [move, count] : perftDivide(pos, 2))
    if (move == "5a5b") EXPECT_EQ(count, 0u);
}

// Every face alone (kings on 12l and 1a aside), for either side to move, on a central square,
// an edge square and squares in and out of the promotion zone: depth 2 against shogiops.
TEST_F(ChuPerft, EveryPieceAlone) {
  std::vector<std::string> sfens;
  // (file, rank) of the piece: centre, left edge, entering the zone, deep in it.
  const std::pair<int, char> squares[] = {{6, 'f'}, {12, 'g'}, {5, 'e'}, {3, 'b'}};
  // Kings on 1a and 12l, the piece on its square.
  auto boardWith = [&](const std::string& token, int file, char rank) {
    return poppy::testing::boardSfen(*chu, {{"1a", "k"}, {"12l", "K"}, {std::to_string(file) + rank, token}});
  };
  for (const Face& f : chu->faces) {
    if (f.letter == 'K') continue;  // the kings are there already
    for (const auto& [file, rank] : squares) {
      const std::string upper = f.token();
      std::string lower = upper;
      lower.back() = char(std::tolower(static_cast<unsigned char>(lower.back())));
      sfens.push_back(boardWith(upper, file, rank) + " b - 1");
      // The same piece for gote, the board turned round: its square is the mirror image.
      sfens.push_back(boardWith(lower, 13 - file, char('a' + 'l' - rank)) + " w - 1");
    }
  }
  ASSERT_EQ(sfens.size(), size_t(2 * 4 * (chu->faces.size() - 1)));
  expectSameCounts(chu, sfens, 2);
}

TEST_F(ChuPerft, RandomPositionsFromShogiopsGames) {
  const int positions = envInt("POPPY_CHU_PERFT_POSITIONS", 40);
  const int depth = envInt("POPPY_CHU_PERFT_DEPTH", 2);
  std::vector<std::string> sfens = runScript("random " + std::to_string(positions) + " 160 20261124");
  ASSERT_EQ(int(sfens.size()), positions);
  expectSameCounts(chu, sfens, depth);
}

// The key moves of the cases above, from the seed's lion rule ("A lion may capture an opposing
// lion that is two squares away but only if it is unguarded. It may take an adjacent lion
// without restriction.") and docs/RULES.md, without shogiops.
TEST_F(ChuPerft, RulesByHand) {
  auto legal = [&](const std::string& sfen, const std::string& usi) {
    try {
      Position::fromSfen(chu, sfen).parseUsi(usi);
      return true;
    } catch (const MoveError&) {
      return false;
    }
  };
  EXPECT_FALSE(legal(kRuleCases[0], "6g6e")) << "the guarded lion two away";
  EXPECT_FALSE(legal(kRuleCases[1], "6g6f6e")) << "a pawn taken first does not buy the guarded lion";
  EXPECT_TRUE(legal(kRuleCases[1], "6g7f6e")) << "a gold taken first does";
  EXPECT_TRUE(legal(kRuleCases[1], "6g6f")) << "the pawn itself";
  EXPECT_TRUE(legal(kRuleCases[2], "6g6e")) << "the unguarded lion";
  EXPECT_FALSE(legal(kRuleCases[3], "9l9e")) << "counter-strike: a rook may not take a lion elsewhere";
  EXPECT_TRUE(legal(kRuleCases[3], "6l6g")) << "but may take the piece that took the lion";
  const std::string noField = "11k/12/12/12/3n8/12/6g5/12/12/12/12/K2R2R5 b - 1";
  EXPECT_TRUE(legal(noField, "9l9e")) << "without a lion just taken, the rook may";
  // Adjacent lions: gote's lion on 7e takes the sente lion on 6f at once (the promoted kirin on
  // 8f is gote's other lion); a pass.
  EXPECT_TRUE(legal(kRuleCases[5], "7e6f"));
  EXPECT_TRUE(legal(kRuleCases[5], "7e7d7e")) << "a pass through an empty square";
  EXPECT_TRUE(legal(kRuleCases[5], "7e8e7e")) << "any empty square names the same pass";
  // Promotion (RULES.md "Chu shogi", lishogi): entering the zone, or capturing in it, or the last rank.
  EXPECT_TRUE(legal(kRuleCases[6], "3e3d+")) << "entering the zone";
  EXPECT_FALSE(legal(kRuleCases[6], "8d9c+")) << "no: the silver moves inside the zone without a capture";
  EXPECT_TRUE(legal(kRuleCases[6], "8d9c")) << "the silver's plain move inside the zone";
  EXPECT_TRUE(legal(kRuleCases[6], "8d8c+")) << "a capture inside the zone";
  EXPECT_TRUE(legal(kRuleCases[6], "5b5a+")) << "the pawn reaching the last rank";
  EXPECT_TRUE(legal(kRuleCases[6], "5b5a")) << "or staying a pawn there (never forced)";
}

}  // namespace
