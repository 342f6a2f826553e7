// A progress line on stderr for long commands. On a terminal it is rewritten in place (at most
// ten times a second); into a pipe or a file it becomes one full line every few seconds, so
// logs stay short (`poppy bench selfplay | cat` once wrote thousands of updates).
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

namespace poppy::common {

class ProgressLine {
 public:
  // Writes to `out` (stderr), treated as a terminal when isatty says so.
  explicit ProgressLine(std::FILE* out = stderr, double pipeSeconds = 5.0);
  // The same with the terminal question answered by the caller (tests).
  ProgressLine(std::FILE* out, bool terminal, double pipeSeconds);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Shows `text` if enough time has passed since the last one shown; `last` shows it anyway
  // (the final figures). Time is counted from construction, or given in seconds (tests).
  void update(const std::string& text, bool last = false);
  void update(const std::string& text, bool last, double seconds);
  // Ends a line left open on a terminal (also done by the destructor). Idempotent.
  void finish();

 private:
  std::FILE* out_;
  bool terminal_;
  double interval_;
  double lastShown_ = -1e300;
  std::string lastText_;  // the last line shown: not written twice into a pipe or file
  bool open_ = false;  // a terminal line without its newline yet
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace poppy::common
