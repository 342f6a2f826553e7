// What `poppy match` reports: the progress line on stderr, the default file names, and the
// summary JSON that plots read. The summary (written atomically, also while the match runs):
//   {"format": "poppy-match-summary", "version": 1, "finished": true, "variant": "micro",
//    "a": {"player": "rollout:200", "nodes": 0, "movetime_ms": 0, "book": ""}, "b": {...},
//    "games_wanted": 200, "games": 200, "wins": 120, "draws": 10, "losses": 70,
//    "score": 0.625, "elo": 88.7, "elo_low": 40.1, "elo_high": 139.3,
//    "a_as_sente": {"wins":, "draws":, "losses":}, "a_as_gote": {...},
//    "reasons": {"checkmate": 180, "ply_cap": 20, ...},
//    "forfeits": {"a": {"timeout": 1}, "b": {"illegal_move": 2}},
//    "pentanomial": [3, 10, 40, 30, 17] (pairs of colour-swapped games by A's points in the pair:
//    0, 0.5, 1, 1.5, 2; report/match_statistics.h), "los": 0.998 (likelihood of superiority),
//    "sprt": {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, "llr": 2.97, "lower": -2.94,
//             "upper": 2.94, "verdict": "H1 accepted"} (with --sprt only),
//    "average_plies": 41.3, "seconds": 63.2, "games_per_hour": 11392,
//    "openings": "file or empty", "openings_count": 0, "records": "match-....jsonl", "settings": {...}}
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "report/match_statistics.h"
#include "selfplay/match.h"

namespace poppy::report {

struct MatchSideInfo {
  std::string player;  // the description as given (model:..., usi:..., ...)
  int64_t nodes = 0;
  int64_t movetimeMs = 0;
  std::string book;
};

struct MatchInfo {
  std::string variant;
  MatchSideInfo a, b;
  int gamesWanted = 0;
  int parallel = 0;
  int plyCap = 0;
  uint64_t seed = 0;
  std::string openings;  // file, or empty
  int openingsCount = 0;
  std::string records;   // file, or empty
  int resumedGames = 0;  // games kept from an earlier session (--resume): not played in `seconds`
  // Model players' search tactics (program/match_setup.h).
  bool tactics = true;
  int leafMatePlies = 3, rootMatePlies = 5;
  int openingPlies = 0;   // model players' first moves sampled by visits
  int gumbelActions = 0;  // model players' Gumbel root (0: PUCT), which replaces the sampling
  std::string idPrefix;   // the records' ids are idPrefix + game number: pairs are games 2k, 2k+1
  std::optional<SprtSettings> sprt;  // --sprt, or none
  std::string clock;  // --tc as common::clockText says it ("1:00 + 1s byoyomi"), or empty: none
  std::string adjudication;  // --resign and --draw as given ("resign 3:1000 two-sided, draw 40:8:10"), or empty
};

// A file-name-safe short name of a player description: model:runs/x/gen-0042.model:128 ->
// "gen-0042-128", rollout:1000 -> "rollout1000", usi:/usr/games/fairy-stockfish ... ->
// "fairy-stockfish", random -> "random".
std::string shortPlayerName(const std::string& description);
// "match-<a>-vs-<b>": the default stem of the records (.jsonl) and summary (.summary.json) files.
std::string defaultMatchFileStem(const std::string& a, const std::string& b);

// The games that ended by each reason ("checkmate", "ply_cap", "illegal_move", ...).
std::map<std::string, int> endReasons(const selfplay::MatchResult& result);
// The games A (sideA) or B lost by a forfeit (resign, illegal move, timeout, crash), per reason.
std::map<std::string, int> forfeitsOf(const selfplay::MatchResult& result, bool sideA);
// The games either side lost by a forfeit: forfeitsOf's counts for A and B together.
int forfeitCount(const selfplay::MatchResult& result);
// The average game length in plies (0 without games).
double averagePlies(const selfplay::MatchResult& result);

nlohmann::ordered_json matchSummary(const MatchInfo& info, const selfplay::MatchResult& result, double seconds,
                                    bool finished);
// Atomic (common::writeFileAtomically); throws common::FileError naming the file.
void writeMatchSummary(const std::string& path, const MatchInfo& info, const selfplay::MatchResult& result,
                       double seconds, bool finished);

// What the readers of a summary (reference matches, tournament pairs) take from it.
struct MatchSummaryTotals {
  std::string a, b;  // the players as the summary names them
  int games = 0, wins = 0, draws = 0, losses = 0;  // A's
  double elo = 0, eloLow = 0, eloHigh = 0;         // A's, with the 95% interval
  bool finished = false;  // false: the match was stopped (its figures so far)
  double pointsA() const { return wins + 0.5 * draws; }
};
// Reads a summary written by writeMatchSummary. Throws std::runtime_error saying what is wrong
// (unreadable, not JSON, not a poppy match summary, a field missing); the caller names the file.
MatchSummaryTotals readMatchSummary(const std::string& path);

// "37/200 games  +20 =5 -12  score 0.608  Elo +76 (95%: +12 to +145)  2.1 games/s  1m18s left"
// The rate and time left count only the games played in `seconds` (not the `resumedGames` kept
// from an earlier session). With `gamesAtOnce` games played side by side, the ones still being
// played count as half done (see the .cpp).
std::string progressLine(const selfplay::MatchResult& soFar, int wanted, double seconds, int resumedGames = 0,
                         int gamesAtOnce = 1);
// "A vs B: 200 games, +120 =10 -70, score 0.625, Elo +89 (95%: +40 to +139)"
std::string resultLine(const selfplay::MatchResult& r, const std::string& a, const std::string& b);
// "pairs (A's points 0, 0.5, 1, 1.5, 2): 3 10 40 30 17; LOS 99.8%"
std::string pairsLine(const selfplay::MatchResult& r, const std::string& idPrefix);
// "LLR 1.23 (-2.94, 2.94)": the SPRT so far, for the progress line.
std::string sprtProgressText(const SprtStatus& st);
// "SPRT [0, 10] alpha 0.05 beta 0.05: LLR 2.97 (-2.94, 2.94), H1 accepted after 312 games"
std::string sprtLine(const SprtStatus& st, const SprtSettings& s, int games);

}  // namespace poppy::report
