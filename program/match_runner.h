// One match as `poppy match` plays it (players, games, records, summary, progress, result
// line), for `poppy match` itself and for the reference matches of `poppy report`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "program/match_setup.h"
#include "game/variant.h"
#include "nn/encoder.h"

namespace poppy::program {

struct MatchRunArgs {
  SideArgs a, b;
  std::string variant = "micro", records, summary, openings;
  PlayerSettings players;
  int games = 100, parallel = 32, plyCap = 200, openingPlies = 2, threads = 1;
  uint64_t seed = 1;
  bool resume = false;  // continue the match whose games are in `records`
  // --sprt ELO0 ELO1 [ALPHA BETA]: stop as soon as the SPRT (report/match_statistics.h) decides;
  // `games` is then the most the match may play. Empty: no SPRT.
  std::vector<double> sprt;
  int sprtMinPairs = 10;  // --sprt-min-pairs: the pairs before the SPRT may decide
  // --tc: both sides' clock (common/game_clock.h notation: "10s+0.1s", "1m/1s"); usi: players
  // only, without --movetime. Empty: none.
  std::string clock;
  // --resign MOVES:CP, --draw FROM:MOVES:CP, --resign-two-sided (selfplay/adjudication.h). Empty: none.
  std::string resign, draw;
  bool resignTwoSided = false;
};

// Plays the match; `gamesGiven`: --games was given (with --openings the default is two games
// per opening; with --sprt, kSprtDefaultGames). Empty records/summary: "match-A-vs-B" files; "none": no file. Throws on bad
// players, files or openings.
void runMatchCommand(MatchRunArgs o, bool gamesGiven);

// The most games an SPRT match plays without --games (fastchess's habit of a large cap).
constexpr int kSprtDefaultGames = 20000;

// More than two players (yonin; program/seat_match_runner.cpp): A in one seat, B in the others,
// A's seat going round; network players only; no --resume or --openings.
void runSeatMatchCommand(const MatchRunArgs& o, const game::VariantPtr& variant, const nn::Encoder& encoder);

}  // namespace poppy::program
