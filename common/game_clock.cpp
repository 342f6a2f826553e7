#include "common/game_clock.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

namespace poppy::common {
namespace {

// "30s", "5m", "1h", "90" (seconds), "1.5m" -> milliseconds.
int64_t durationMs(const std::string& text, const std::string& whole) {
  if (text.empty()) throw std::invalid_argument("clock \"" + whole + "\": a time is missing");
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("clock \"" + whole + "\": \"" + text + "\" is not a time (as 30s, 5m or 1h)");
  }
  const std::string unit = text.substr(used);
  double scale = 1000;
  if (unit == "m" || unit == "min") scale = 60000;
  else if (unit == "h") scale = 3600000;
  else if (!unit.empty() && unit != "s") throw std::invalid_argument("clock \"" + whole + "\": unknown unit \"" + unit + "\" (s, m or h)");
  if (!(value >= 0) || value > 100 * 3600) throw std::invalid_argument("clock \"" + whole + "\": \"" + text + "\" is out of range");
  return int64_t(value * scale + 0.5);
}

}  // namespace

ClockSettings parseClock(const std::string& raw) {
  std::string text;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  ClockSettings s;
  if (text.empty() || text == "none") return s;
  const size_t plus = text.find('+'), slash = text.find('/');
  if (plus != std::string::npos && slash != std::string::npos)
    throw std::invalid_argument("clock \"" + raw + "\": give an increment (+) or a byoyomi (/), not both");
  const size_t split = plus != std::string::npos ? plus : slash;
  s.mainMs = durationMs(text.substr(0, split), raw);
  if (split != std::string::npos) {
    const int64_t extra = durationMs(text.substr(split + 1), raw);
    (plus != std::string::npos ? s.incrementMs : s.byoyomiMs) = extra;
  }
  if (!s.enabled()) throw std::invalid_argument("clock \"" + raw + "\": no time at all (use \"none\" for no clock)");
  return s;
}

std::string formatClockMs(int64_t ms) {
  ms = std::max<int64_t>(0, ms);
  char buf[32];
  const int64_t seconds = ms / 1000;
  if (seconds >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(seconds / 3600), (long long)(seconds / 60 % 60),
                  (long long)(seconds % 60));
  } else if (seconds >= 10) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)(seconds / 60), (long long)(seconds % 60));
  } else {
    std::snprintf(buf, sizeof buf, "0:%02lld.%lld", (long long)seconds, (long long)(ms % 1000 / 100));
  }
  return buf;
}

std::string clockText(const ClockSettings& s) {
  if (!s.enabled()) return "none";
  std::string out = formatClockMs(s.mainMs);
  auto secs = [](int64_t ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gs", double(ms) / 1000);
    return std::string(buf);
  };
  if (s.byoyomiMs > 0) out += " + " + secs(s.byoyomiMs) + " byoyomi";
  if (s.incrementMs > 0) out += " + " + secs(s.incrementMs) + " a move";
  return out;
}

GameClock::GameClock(const ClockSettings& settings) : settings_(settings), mainMs_{settings.mainMs, settings.mainMs} {}

void GameClock::start(int side, int64_t nowMs) {
  running_ = side;
  startedMs_ = nowMs;
}

bool GameClock::moved(int64_t nowMs) {
  if (running_ < 0) return true;
  const int side = running_;
  const bool late = flagged(side, nowMs);
  const int64_t used = nowMs - startedMs_;
  // Main time first; byoyomi covers what is beyond it for this move only.
  mainMs_[side] = std::max<int64_t>(0, mainMs_[side] - used);
  if (!late) mainMs_[side] += settings_.incrementMs;
  running_ = -1;
  return !late;
}

int64_t GameClock::mainLeftMs(int side, int64_t nowMs) const {
  return std::max<int64_t>(0, mainMs_[side] - usedSoFar(side, nowMs));
}

int64_t GameClock::byoyomiLeftMs(int side, int64_t nowMs) const {
  const int64_t beyondMain = usedSoFar(side, nowMs) - mainMs_[side];
  return std::clamp<int64_t>(settings_.byoyomiMs - std::max<int64_t>(0, beyondMain), 0, settings_.byoyomiMs);
}

bool GameClock::flagged(int side, int64_t nowMs) const {
  return usedSoFar(side, nowMs) > mainMs_[side] + settings_.byoyomiMs;
}

int64_t GameClock::flagAtMs(int64_t nowMs) const {
  if (running_ < 0) return nowMs;
  return startedMs_ + mainMs_[running_] + settings_.byoyomiMs;
}

}  // namespace poppy::common
