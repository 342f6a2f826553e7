// What `poppy ladder` reports: its rungs (the engine's limit per rung), the table on stdout, and
// ladder.json and ladder.svg. A rung is one match of the player (A) against the engine (B) at
// one engine limit; the figures are the player's. ladder.json (written atomically, also while
// the ladder runs):
//   {"format": "poppy-ladder", "version": 1, "finished": true, "variant": "micro",
//    "player": {"spec": "model:m.model", "playouts": 0, "movetime_ms": 200,
//               "search": {"cpuct": 1.5, "fpu_reduction": 0.25, "policy_temperature": 1}},
//    "engine": {"command": "fairy-stockfish", "name": "Fairy-Stockfish 11.1 LB 64",
//               "notation": "fairy", "options": {"Threads": "1"}},
//    "openings": "configs/openings/micro.txt", "openings_count": 50, "games_per_rung": 100,
//    "settings": {"parallel": 8, "ply_cap": 200, "seed": 1, "grace_ms": 1000},
//    "rungs_planned": ["nodes:100", ...],
//    "rungs": [{"rung": "nodes:1000", "engine_nodes": 1000, "engine_movetime_ms": 0,
//               "one_game_at_a_time": true, "parallel": 1, "finished": true,
//               "games_wanted": 100, "games": 100, "wins": 20, "draws": 3, "losses": 77,
//               "score": 0.215, "score_low": 0.146, "score_high": 0.305,
//               "elo": -225.9, "elo_low": -307.6, "elo_high": -143.5,
//               "forfeits": {"player": {}, "engine": {"illegal_move": 1}},
//               "reasons": {"checkmate": 96, ...}, "average_plies": 41.2,
//               "seconds": 612.3, "records": "games-nodes1000.jsonl"}, ...]}
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "selfplay/match.h"

namespace poppy::report {

// One rung: the engine's limit per move.
struct LadderRung {
  int64_t nodes = 0;       // go nodes N
  int64_t movetimeMs = 0;  // go movetime MS
  int depth = 0;           // an XBoard engine's `sd N`
  std::string name() const;  // "nodes:1000", "movetime:200", "depth:2"
  std::string fileStem() const;  // "nodes1000", "movetime200", "depth2"
};

// "nodes:100,nodes:1000,movetime:200" (or "depth:1,depth:2" for an XBoard engine); a bare
// "movetime" is movetime:defaultMovetimeMs (the player's). Throws std::invalid_argument naming the
// bad rung (also for a rung given twice).
std::vector<LadderRung> parseRungs(const std::string& text, int64_t defaultMovetimeMs);

struct LadderInfo {
  std::string variant;
  std::string player;  // the Poppy player's spec (model:PATH, rollout:300, ...)
  int64_t playerPlayouts = 0, playerMovetimeMs = 0;
  // A model player's PUCT settings, written as the player's "search" (a tuning run tells its
  // ladders apart by them); null for other players.
  nlohmann::ordered_json playerSearch;
  std::string engineCommand, engineName, notation;
  std::vector<std::pair<std::string, std::string>> engineOptions;
  std::string openings;  // file, or empty for the start position
  int openingsCount = 0;
  int gamesPerRung = 0;
  int parallel = 0;  // games at once on rungs where nobody is timed
  int plyCap = 0;
  uint64_t seed = 0;
  int64_t graceMs = 0;
  std::vector<LadderRung> rungs;  // planned, in order
};

struct LadderRungResult {
  LadderRung rung;
  bool oneGameAtATime = false;  // a timed player is in it
  int parallel = 1;
  int gamesWanted = 0;
  selfplay::MatchResult result;  // A = the player, B = the engine
  double seconds = 0;
  bool finished = false;
  std::string records;  // the rung's JSONL file, relative to the ladder's directory
};

nlohmann::ordered_json ladderJson(const LadderInfo& info, const std::vector<LadderRungResult>& rungs, bool finished);
// The score per rung with its 95% interval as error bars, and a line at 0.5 (deterministic).
std::string ladderSvg(const LadderInfo& info, const std::vector<LadderRungResult>& rungs);
// The table printed at the end: one line per rung, with a header.
std::string ladderTable(const std::vector<LadderRungResult>& rungs);

}  // namespace poppy::report
