// How long `poppy usi` thinks about one move: from the `go` command's clock (btime/wtime,
// binc/winc, byoyomi), a fixed `movetime`, a node count, or an open-ended analysis. The rule is
// that the engine never loses on time: every budget stays below the time the engine actually
// has for this move, less a margin for the GUI's and the network's latency (MoveOverhead).
//
//   sudden death / Fischer:  min(remaining/20 + increment*0.8, remaining - overhead)
//   byoyomi:                 remaining/20 + byoyomi*0.9 - overhead, at most
//                            remaining + byoyomi*0.9 - overhead
//   movetime:                movetime - overhead
// A budget that would fall below a few milliseconds (almost no time left) becomes a fraction of
// what is left instead, so an answer still comes before the flag falls.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace poppy::play {

// The limits of one `go` command, in milliseconds. A clock may be negative (a GUI that counts
// its own lag), so "not given" is a separate value.
struct GoLimits {
  static constexpr int64_t kNotGiven = std::numeric_limits<int64_t>::min();
  int64_t btime = kNotGiven, wtime = kNotGiven;  // time left on sente's / gote's clock
  int64_t binc = 0, winc = 0;      // Fischer increment per move
  int64_t byoyomi = 0;             // per-move time once (or as well as) the main time is spent
  int64_t movetime = kNotGiven;    // think exactly this long
  int64_t nodes = 0;               // playouts (0: not given)
  bool infinite = false;           // until `stop`
  bool ponder = false;             // thinking on the opponent's time: until `stop` or `ponderhit`
  std::vector<std::string> searchMoves;  // `searchmoves`: only these moves (USI text); empty: all
};

struct TimeSettings {
  // Latency of the GUI, the network and the process, per move. 30 ms: on this project's 2-core
  // machine under full load `go movetime 200` with no overhead answered at most 8 ms late (150
  // moves of micro-v4, docs/commands/play.md), so 30 keeps a 3x margin and spends 85% of a 200 ms move.
  int64_t overheadMs = 30;
  int movesHorizon = 20;         // the share of the remaining time one move may take: 1/20
  double incrementShare = 0.8;   // the share of the increment spent on this move
  double byoyomiShare = 0.9;     // byoyomi less 10%: the GUI counts it to the millisecond
  int64_t minimumMs = 10;        // below this, a search is not worth starting
};

// What the search may spend. seconds == 0 means no time limit; playouts == 0 means no node limit.
struct MoveBudget {
  double seconds = 0;
  int64_t playouts = 0;
  bool infinite = false;  // search until stopped (go infinite, go ponder)
  bool timed = false;     // seconds comes from a clock or movetime
};

// side: 0 for sente (btime/binc), 1 for gote (wtime/winc).
MoveBudget moveBudget(const GoLimits& go, int side, const TimeSettings& settings);

// The clock part alone: milliseconds to think with `remaining` on the clock, the given increment
// and byoyomi. Always below remaining + byoyomi (the hard limit) when that is positive.
int64_t clockBudgetMs(int64_t remaining, int64_t increment, int64_t byoyomi, const TimeSettings& settings);

}  // namespace poppy::play
