// What self-play actually played (`poppy openings games RUN_DIR`): the most frequent opening
// lines (the first N plies of each game) in a run's game records, overall or per generation
// (the records' "model" field: `poppy train` writes the generation of the best model that played,
// "gen-0003"), and how each line scored.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "selfplay/game_record.h"

namespace poppy::play {

struct OpeningLineStats {
  std::string start;               // the start SFEN of these games
  std::vector<std::string> moves;  // the first plies (fewer when the games ended sooner)
  int64_t games = 0;
  int64_t senteWins = 0, draws = 0, goteWins = 0;
  double senteScore() const { return games ? (double(senteWins) + 0.5 * double(draws)) / double(games) : 0.5; }
};

struct OpeningGroup {
  std::string model;  // the records' "model" value; "all" when not grouped by generation
  int64_t games = 0;
  int64_t distinctLines = 0;
  int64_t senteWins = 0, draws = 0, goteWins = 0;
  std::vector<OpeningLineStats> lines;  // the `top` most played, most played first
};

struct OpeningStats {
  int depth = 4;
  int top = 10;
  bool byGeneration = false;
  int64_t games = 0;
  std::vector<OpeningGroup> groups;  // generation order ("gen-0002" before "gen-0010"), then first seen
};

// Throws std::invalid_argument for depth < 1 or top < 1. Lines with equal counts are ordered by
// their moves, so the output does not depend on the record order.
OpeningStats openingStats(const std::vector<selfplay::GameRecord>& records, int depth, int top, bool byGeneration);

std::string openingStatsText(const OpeningStats& stats);
// {"format": "poppy-opening-stats", "version": 1, "depth", "top", "by_generation", "games",
//  "groups": [{"model", "games", "distinct_lines", "sente_wins", "draws", "gote_wins",
//              "lines": [{"start", "moves", "games", "sente_wins", "draws", "gote_wins",
//                         "sente_score"}]}]}
std::string openingStatsJson(const OpeningStats& stats);

}  // namespace poppy::play
