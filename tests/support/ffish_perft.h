// Perft against Fairy-Stockfish compiled to WebAssembly (the npm package ffish, installed in
// tests/reference/ffish by scripts/setup.sh), for the variants Poppy checks against a variants
// file written from the seed there (yari.ini, small.ini, quasi.ini): perft.cjs answers "perft"
// and "divide" lines. Where counts differ, the moves of the position and of each child are
// compared so that the failure names the position and the move.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "game/perft.h"
#include "game/position.h"
#include "node_script.h"
#include "position_helpers.h"
#include "random_positions.h"

namespace poppy::testing {

inline const NodeReference kFfish{"ffish", "ffish", "0.7.10"};

// perft.cjs's answers to INPUT for the variant of tests/reference/ffish/INI.ini.
inline std::vector<std::string> ffishLines(const std::string& ini, const std::string& input) {
  return runNodeScript(kFfish, "perft.cjs", shellQuote(ini), input);
}

// The start position's perft at depths 1, 2, ... (`counts`, Fairy-Stockfish's, written in the
// test), and Fairy-Stockfish asked again for its first three.
inline void expectStartPerftAsFfish(const game::VariantPtr& v, const std::string& ini,
                                    const std::vector<uint64_t>& counts) {
  game::Position start(v);
  std::string firstThree;
  for (size_t d = 0; d < counts.size(); ++d) {
    EXPECT_EQ(game::perft(start, int(d) + 1), counts[d]) << "depth " << d + 1;
    if (d < 3) firstThree += (d ? " " : "") + std::to_string(counts[d]);
  }
  const auto lines = ffishLines(ini, "perft " + std::to_string(std::min<size_t>(3, counts.size())) + " " + start.sfen() + "\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], firstThree);
}

// What Fairy-Stockfish may list beyond Poppy without failing the comparison.
struct FfishDefects {
  // Fairy-Stockfish 230826 lets a pawn drop mate where the king's escapes are guarded by a
  // hopper (cannon shogi's flying cannons): its pawn-drop-mate test misses the hop. Such drops
  // (each checked here: after it, Poppy's position is check with no legal move) are accepted.
  bool matingPawnDrops = false;
};

// Whether every move in `theirs` but not in `mine` is a pawn drop that mates in `pos`, and
// `mine` holds nothing `theirs` lacks.
inline bool onlyMatingPawnDropsDiffer(const game::Position& pos, const std::vector<std::string>& mine,
                                      const std::vector<std::string>& theirs) {
  for (const auto& m : mine)
    if (std::find(theirs.begin(), theirs.end(), m) == theirs.end()) return false;
  for (const auto& m : theirs) {
    if (std::find(mine.begin(), mine.end(), m) != mine.end()) continue;
    if (m.rfind("P*", 0) != 0) return false;
    game::Position after = pos;
    after.makeMove(game::Move::drop(pos.variant().faceIndex('P', false, false), sq(pos.variant(), m.substr(2))));
    if (!after.inCheck() || after.hasLegalMove()) return false;
  }
  return true;
}

inline std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The positions after each legal move of `sfen` (for a difference that appears at depth 3 from it).
inline std::vector<std::string> childPositions(const game::VariantPtr& v, const std::string& sfen) {
  auto pos = game::Position::fromSfen(v, sfen);
  game::MoveList moves;
  pos.generateLegal(moves);
  std::vector<std::string> out;
  for (const game::Move& m : moves) {
    pos.makeMove(m);
    out.push_back(pos.sfen());
    pos.unmakeMove();
  }
  return out;
}

// Perft 1 and 2 of each position against Fairy-Stockfish's. Where the counts differ, the moves of
// the position and of each child are compared: a difference that `defects` explains is counted
// and reported on stdout, any other fails naming the position and the move.
inline void expectPositionsAsFfish(const game::VariantPtr& v, const std::string& ini,
                                   const std::vector<std::string>& sfens, FfishDefects defects = {}) {
  std::string input;
  for (const auto& s : sfens) input += "perft 2 " + s + "\n";
  const auto lines = ffishLines(ini, input);
  ASSERT_EQ(lines.size(), sfens.size()) << [&] {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  }();
  int differing = 0, explained = 0;
  for (size_t i = 0; i < sfens.size(); ++i) {
    auto pos = game::Position::fromSfen(v, sfens[i]);
    const std::string ours = std::to_string(game::perft(pos, 1)) + " " + std::to_string(game::perft(pos, 2));
    if (ours == lines[i]) continue;
    const std::vector<std::string> played = legalUsi(pos), children = childPositions(v, sfens[i]);  // both in generateLegal's order
    std::string divide = "divide " + sfens[i] + "\n";
    for (const auto& child : children) divide += "divide " + child + "\n";
    const auto theirs = ffishLines(ini, divide);
    auto mine = [&](const std::string& sfen) {
      auto p = game::Position::fromSfen(v, sfen);
      std::vector<std::string> list = legalUsi(p);
      std::sort(list.begin(), list.end());
      return list;
    };
    auto joined = [](const std::vector<std::string>& list) {
      std::string out;
      for (const auto& m : list) out += (out.empty() ? "" : " ") + m;
      return out;
    };
    // Every list that differs, with whether the known defect explains it.
    bool allExplained = theirs.size() == children.size() + 1;
    std::vector<std::string> report;
    auto compare = [&](const std::string& sfen, const std::string& theirLine, const std::string& label) {
      const auto m = mine(sfen);
      const auto t = words(theirLine);
      if (joined(m) == joined(t)) return;
      const bool ok = defects.matingPawnDrops && onlyMatingPawnDropsDiffer(game::Position::fromSfen(v, sfen), m, t);
      allExplained = allExplained && ok;
      report.push_back(label + " (" + sfen + "): poppy " + joined(m) + "\n  fairy " + theirLine);
    };
    if (theirs.size() == children.size() + 1) {
      compare(sfens[i], theirs[0], "moves");
      for (size_t c = 0; c < children.size(); ++c) compare(children[c], theirs[c + 1], "after " + played[c]);
    }
    if (allExplained && !report.empty()) {
      ++explained;
      std::cout << "[ accepted ] " << sfens[i] << ": poppy " << ours << ", fairy-stockfish " << lines[i]
                << " (Fairy-Stockfish lets a pawn drop mate past a hopper's guard)\n";
      continue;
    }
    ++differing;
    ADD_FAILURE() << sfens[i] << ": poppy " << ours << ", fairy-stockfish " << lines[i];
    for (const auto& r : report) ADD_FAILURE() << "  " << r;
  }
  EXPECT_EQ(differing, 0);
  if (explained) std::cout << "[ accepted ] " << explained << " of " << sfens.size() << " positions differ by the known defect\n";
}

// Perft 1 and 2 of `count` random positions (random games of up to maxPlies plies from the start,
// seeded) against Fairy-Stockfish's.
inline void expectRandomPositionsAsFfish(const game::VariantPtr& v, const std::string& ini, int count, int maxPlies,
                                         uint32_t seed, FfishDefects defects = {}) {
  expectPositionsAsFfish(v, ini, randomPositions(v, count, maxPlies, seed), defects);
}


}  // namespace poppy::testing
