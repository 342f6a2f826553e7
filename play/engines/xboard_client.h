// The client side of XBoard's protocol (CECP, "protocol version 2"): runs an XBoard engine such as
// HaChu (H.G. Muller's chu engine, Debian package `hachu`) as a child process
// (play/engines/engine_process.h), so `poppy match` and `poppy ladder` can play it as `xboard:COMMAND`.
//
// Start: `xboard`, `protover 2`, then the engine's `feature` lines up to `feature done=1` (within
// startTimeoutSeconds; an engine that sends no `done` is given 2 s, as the protocol says). An
// engine whose `feature variants="..."` lacks the variant is refused by name. Per game: `new`,
// `variant V`, `memory MB` (HaChu builds no move list without it), `force`, `post` (thinking
// output, whose scores adjudication reads), `ping N` -> `pong N`.
// Per move of the engine: the moves played since it last moved, each as `usermove MOVE` (in
// force mode, so it does not answer them), `ping` (an `Illegal move` reply to one of them means
// the engine's rules refuse a move Poppy's allow), the limit (`sd DEPTH`, or `st S` with `time`
// and `otim`), `go`, and lines up to `move MOVE` (HaChu writes a lion's two legs as two `move`
// lines, the first ending in a comma), then `force` again.
//
// Games start from the variant's start position only (HaChu's `setboard` is unreliable: it
// crashes on a side-to-move field and may then play illegal moves), with the opening's moves
// sent as moves. A move the engine plays that Poppy's rules forbid, or a move of Poppy's the
// engine refuses, ends the game as selfplay::kRuleDisagreement (a draw, named in the record), not
// as a forfeit: HaChu's rules differ from lishogi's in places (docs/RULES.md, "Chu shogi").
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/game_clock.h"
#include "play/engines/engine_process.h"
#include "selfplay/match.h"

namespace poppy::play {

class XboardError : public EngineError {
 public:
  using EngineError::EngineError;
};

struct XboardConfig {
  std::string command;  // a shell command line
  std::vector<std::pair<std::string, std::string>> options;  // `option NAME=VALUE`, in order
  std::string variant = "chu";  // Poppy's name (play/engines/xboard_notation.h maps it)
  int depth = 0;                // `sd DEPTH` (0: not sent)
  int64_t movetimeMs = 0;       // whole seconds: `st S` with `time`/`otim`; with neither limit, 1 s
  int memoryMb = 64;            // `memory MB`
  double graceSeconds = 1.0;          // a timed move may take movetime + grace
  double moveTimeoutSeconds = 60.0;   // the limit of a move searched to a depth
  double startTimeoutSeconds = 30.0;  // the features and each pong
};

// Throws XboardError unless the limits are ones XBoard's protocol can say (a movetime in whole
// seconds) and the variant has an XBoard name.
void checkXboardConfig(const XboardConfig& config);

// Empty when a match clock (--tc) can be told to an XBoard engine: CECP's `level 0 BASE INC` has
// a main time and a whole-second increment but no byoyomi; otherwise why not.
std::string xboardClockRefusal(const common::ClockSettings& clock);

// The score of a CECP thinking-output line ("ply score time nodes pv...", sent after `post`), in
// centipawns from the engine's view, as the engine writes it; nothing for any other line. The
// last such line before `move` is the move's score (MoveChoice::scoreCp), which `poppy match
// --resign` and `--draw` adjudicate on (selfplay/adjudication.h).
std::optional<int> xboardScoreCp(const std::string& line);

// One engine process. Not thread-safe; one instance per game slot.
class XboardProcess {
 public:
  // Starts the engine and reads its features; throws XboardError.
  explicit XboardProcess(XboardConfig config);
  ~XboardProcess();  // quit, then kill what is left of the process group
  XboardProcess(const XboardProcess&) = delete;
  XboardProcess& operator=(const XboardProcess&) = delete;

  const std::string& name() const { return name_; }  // from `feature myname`, else the command
  bool alive() const { return process_ && process_->alive(); }
  const std::vector<std::string>& variants() const { return variants_; }

  // new, variant, memory, force, ping. Throws XboardError (the engine is then killed).
  void newGame();
  // The engine's move in the game so far (Poppy's USI in MoveChoice::usi, the engine's text in
  // engineText), or a forfeit, or kRuleDisagreement. `moves` are Poppy's USI moves from the
  // variant's start; `pos` is the position after them. `clock`: a timed match's readings (the
  // engine is told `level 0 BASE INC` at its first move of a game, then `time` and `otim` before
  // each; it may think until its time is spent, plus the grace), or nullptr.
  selfplay::MoveChoice go(const game::Position& pos, const std::vector<std::string>& moves,
                          const std::vector<std::string>& xboardMoves, const selfplay::ClockReading* clock = nullptr);
  void gameOver(int engineResult, bool engineIsSente);

 private:
  using Read = EngineProcess::Read;
  void start();
  void send(const std::string& line) { process_->send(line); }
  // ping N and wait for pong N; the lines before it are returned (an `Illegal move` among them).
  std::vector<std::string> sync(const std::string& what);
  void kill();

  XboardConfig config_;
  std::string name_;
  std::unique_ptr<EngineProcess> process_;
  std::vector<std::string> variants_;
  int pings_ = 0;
  std::vector<std::string> sent_;  // the game's moves the engine has, in its notation
  bool levelSent_ = false;         // this game's `level` (a timed match)
};

// A match player backed by an XboardProcess; a dead engine is replaced at the next game, as
// UsiPlayer does (play/engines/usi_client.h).
class XboardPlayer : public selfplay::MovePlayer {
 public:
  explicit XboardPlayer(XboardConfig config);  // starts the engine: throws XboardError
  void newGame(const game::Position& start) override;
  selfplay::MoveChoice choose(const selfplay::GameSoFar& game) override;
  void gameOver(int result) override;

 private:
  void startEngine();

  XboardConfig config_;
  std::unique_ptr<XboardProcess> engine_;
  std::string startFailure_;
  bool engineIsSente_ = false;
};

// One XboardPlayer per game slot.
selfplay::MovePlayerFactory xboardPlayerFactory(const XboardConfig& config);

}  // namespace poppy::play
