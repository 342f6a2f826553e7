#include "play/engines/time_manager.h"

#include <algorithm>

namespace poppy::play {

int64_t clockBudgetMs(int64_t remaining, int64_t increment, int64_t byoyomi, const TimeSettings& s) {
  remaining = std::max<int64_t>(0, remaining);
  increment = std::max<int64_t>(0, increment);
  byoyomi = std::max<int64_t>(0, byoyomi);
  const int64_t overhead = std::max<int64_t>(0, s.overheadMs);
  // The flag falls after remaining + byoyomi: a Fischer increment only arrives after the move.
  const int64_t hard = remaining + byoyomi;
  const int64_t byoyomiPart = int64_t(double(byoyomi) * s.byoyomiShare);
  // The most this move may take: all of the main time and the byoyomi less its 10% and the latency.
  // (and never all of it, even with no latency configured).
  const int64_t safe = std::min(remaining + byoyomiPart - overhead, hard - 1);
  if (safe < s.minimumMs) return hard / 4;  // almost flagged: answer fast, well inside what is left
  const int64_t target = remaining / std::max(1, s.movesHorizon) + int64_t(double(increment) * s.incrementShare) +
                         std::max<int64_t>(0, byoyomiPart - overhead);
  return std::clamp(target, std::min(s.minimumMs, safe), safe);
}

MoveBudget moveBudget(const GoLimits& go, int side, const TimeSettings& s) {
  MoveBudget b;
  b.infinite = go.infinite || go.ponder;
  b.playouts = std::max<int64_t>(0, go.nodes);
  int64_t ms = -1;
  if (go.movetime != GoLimits::kNotGiven) {
    // Exactly the time asked for, less the latency; a movetime shorter than the latency gets a
    // quarter of itself rather than nothing.
    ms = go.movetime - std::max<int64_t>(0, s.overheadMs);
    if (ms < s.minimumMs) ms = std::max<int64_t>(0, go.movetime / 4);
  } else {
    const int64_t remaining = side == 0 ? go.btime : go.wtime;
    const int64_t increment = side == 0 ? go.binc : go.winc;
    if (remaining != GoLimits::kNotGiven || go.byoyomi > 0) ms = clockBudgetMs(remaining, increment, go.byoyomi, s);
  }
  if (ms >= 0) {
    b.timed = true;
    // No time at all: one playout, answered at once (seconds must stay > 0, 0 means unlimited).
    if (ms == 0) b.playouts = 1;
    b.seconds = std::max<double>(double(ms), 0.1) / 1000.0;
  }
  return b;
}

}  // namespace poppy::play
