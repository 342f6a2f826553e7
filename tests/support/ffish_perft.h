// Perft against Fairy-Stockfish compiled to WebAssembly (the npm package ffish, installed in
// tests/reference/ffish by scripts/setup.sh), for the variants Poppy checks against a variants
// file written from the seed there (yari.ini, small.ini, quasi.ini): perft.cjs answers "perft"
// and "divide" lines. Where counts differ, the moves of the position and of each child are
// compared so that the failure names the position and the move.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
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

// Perft 1 and 2 of `count` random positions (random games of up to maxPlies plies from the start,
// seeded) against Fairy-Stockfish's.
inline void expectRandomPositionsAsFfish(const game::VariantPtr& v, const std::string& ini, int count, int maxPlies,
                                         uint32_t seed) {
  const std::vector<std::string> sfens = randomPositions(v, count, maxPlies, seed);
  std::string input;
  for (const auto& s : sfens) input += "perft 2 " + s + "\n";
  const auto lines = ffishLines(ini, input);
  ASSERT_EQ(lines.size(), sfens.size());
  int differing = 0;
  for (size_t i = 0; i < sfens.size(); ++i) {
    auto pos = game::Position::fromSfen(v, sfens[i]);
    const std::string ours = std::to_string(game::perft(pos, 1)) + " " + std::to_string(game::perft(pos, 2));
    if (ours == lines[i]) continue;
    ++differing;
    std::string divide = "divide " + sfens[i] + "\n";
    game::MoveList moves;
    pos.generateLegal(moves);
    std::vector<std::string> children;
    for (const game::Move& m : moves) {
      pos.makeMove(m);
      children.push_back(pos.sfen());
      divide += "divide " + pos.sfen() + "\n";
      pos.unmakeMove();
    }
    const auto theirs = ffishLines(ini, divide);
    auto mine = [&](const std::string& sfen) {
      auto p = game::Position::fromSfen(v, sfen);
      std::vector<std::string> list = legalUsi(p);
      std::sort(list.begin(), list.end());
      std::string joined;
      for (const auto& m : list) joined += (joined.empty() ? "" : " ") + m;
      return joined;
    };
    ADD_FAILURE() << sfens[i] << ": poppy " << ours << ", fairy-stockfish " << lines[i];
    if (theirs.size() != children.size() + 1) continue;
    if (mine(sfens[i]) != theirs[0]) ADD_FAILURE() << "  moves differ: poppy " << mine(sfens[i]) << "\n  fairy " << theirs[0];
    for (size_t c = 0; c < children.size(); ++c)
      if (mine(children[c]) != theirs[c + 1])
        ADD_FAILURE() << "  after " << pos.moveToUsi(moves[c]) << " (" << children[c] << "): poppy " << mine(children[c])
                      << "\n  fairy " << theirs[c + 1];
  }
  EXPECT_EQ(differing, 0);
}

}  // namespace poppy::testing
