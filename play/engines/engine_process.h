// Another program run as a child process over pipes, line by line: what the USI client
// (play/engines/usi_client.h) and the XBoard client (play/engines/xboard_client.h) share.
//
// The program is started as `/bin/sh -c "exec COMMAND"` in its own process group (so a killed
// script takes its children along). SIGPIPE is ignored in this process (a dead engine's pipe then
// fails with EPIPE) and restored to the default in the child. Its stderr is read alongside its
// stdout and the last lines are kept, so that a crash can be reported with its last words.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <deque>
#include <stdexcept>
#include <string>

namespace poppy::play {

// The engine could not be started, or a line could not be written to it; the message says why.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class EngineProcess {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Read { kLine, kEof, kTimeout };

  // Starts the program; throws EngineError (pipe or fork failure; a command that does not exist
  // shows up as an early EOF, with its exit status in deathNote()).
  explicit EngineProcess(const std::string& command);
  ~EngineProcess();  // kills what is left of the process group
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  bool alive() const { return pid_ > 0; }
  // Writes line + "\n"; throws EngineError when the engine is gone (naming how it ended).
  void send(const std::string& line);
  // The next line of its stdout (without the newline), or EOF, or the deadline passed.
  Read readLine(std::string& line, Clock::time_point deadline);
  // "exited with status N" / "was killed by signal N (...)", plus its last stderr lines.
  std::string deathNote();
  // Waits up to `wait` for the engine to exit by itself (after a quit command), then kills the
  // process group either way.
  void stop(std::chrono::milliseconds wait);
  void kill();

  static Clock::time_point after(double seconds);
  static std::string secondsText(double seconds);  // "1.50 s"

 private:
  void drainStderr();

  pid_t pid_ = -1;
  int toEngine_ = -1, fromEngine_ = -1, engineErr_ = -1;
  std::string outBuffer_, errBuffer_;
  std::deque<std::string> stderrTail_;  // the engine's last stderr lines
};

}  // namespace poppy::play
