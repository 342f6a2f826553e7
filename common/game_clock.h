// A game's clock for `poppy serve`, `poppy play` and `poppy match --tc`: main time for each side, then byoyomi
// (Japanese: once the main time is spent, every move must be made within the byoyomi period,
// which starts afresh each move) and/or a Fischer increment (added to the main time after each
// move). The running side is charged the time between start() and its move; a side flags when
// its main time and its byoyomi are both spent, and loses the game.
//
// Time is given in milliseconds from any fixed origin (the callers use a steady clock; the tests
// a counter), so nothing here sleeps or reads the time itself.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace poppy::common {

struct ClockSettings {
  int64_t mainMs = 0;       // each side's main time
  int64_t byoyomiMs = 0;    // per move once the main time is spent
  int64_t incrementMs = 0;  // added after each move (Fischer)
  bool enabled() const { return mainMs > 0 || byoyomiMs > 0 || incrementMs > 0; }
};

// "5m+30s" (increment), "10m/30s" (byoyomi), "90s", "1h/1m"; units s, m, h (default seconds);
// "none" or "" for no clock. Throws std::invalid_argument naming the text and what is wrong.
ClockSettings parseClock(const std::string& text);
// "5:00 + 30s byoyomi", "3:00 + 2s a move", "none".
std::string clockText(const ClockSettings& settings);
// "4:32", "0:09.4" below ten seconds, "1:02:03".
std::string formatClockMs(int64_t ms);

class GameClock {
 public:
  GameClock() = default;
  explicit GameClock(const ClockSettings& settings);

  const ClockSettings& settings() const { return settings_; }
  // Starts `side`'s clock at `nowMs` (the other stops without being charged).
  void start(int side, int64_t nowMs);
  // The running side moved at `nowMs`: its time is charged, then its increment added. Returns
  // false when it had flagged by then (the move came too late; the clock then stops at zero).
  bool moved(int64_t nowMs);
  // Stops the clock without charging anyone (the game ended by its rules).
  void stop() { running_ = -1; }

  int running() const { return running_; }  // -1: stopped
  // Main time left for `side` at `nowMs` (0 once in byoyomi); the running side's includes the
  // time it has used so far.
  int64_t mainLeftMs(int side, int64_t nowMs) const;
  // What is left of the current byoyomi period (the running side in byoyomi), else the full period.
  int64_t byoyomiLeftMs(int side, int64_t nowMs) const;
  // Whether `side` has run out of time at `nowMs`.
  bool flagged(int side, int64_t nowMs) const;
  // When the running side will flag, at the latest (nowMs + its main time + byoyomi).
  int64_t flagAtMs(int64_t nowMs) const;

 private:
  int64_t usedSoFar(int side, int64_t nowMs) const { return side == running_ ? nowMs - startedMs_ : 0; }

  ClockSettings settings_;
  std::array<int64_t, 2> mainMs_{0, 0};
  int running_ = -1;
  int64_t startedMs_ = 0;
};

}  // namespace poppy::common
