// The client side of USI: runs any USI engine (Fairy-Stockfish, YaneuraOu, `poppy usi`, ...) as a
// child process (play/engines/engine_process.h) and asks it for moves, so `poppy match` can play against
// it: usi -> usiok, setoption ..., isready -> readyok (within startTimeoutSeconds), and per game
// isready -> readyok, usinewgame; per move `position sfen START moves ...` and
// `go [nodes N] [movetime MS]` (in a timed match `go btime B wtime W [byoyomi Y | binc I winc I]`),
// then everything up to `bestmove` is read (info lines and other chatter are skipped). A move
// that takes longer than movetime + grace (the mover's time left + grace on a clock;
// moveTimeoutSeconds without either) is a timeout: the process group is killed.
//
// An engine that lists UCI_Variant as a combo without the variant to be set is refused at the
// handshake (Fairy-Stockfish would silently stay on shogi). Positions and moves are sent in the
// engine's notation and its bestmove is read back in Poppy's (play/engines/usi_notation.h: Fairy-Stockfish
// names micro shogi's pieces by their other face).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "play/engines/engine_process.h"
#include "play/engines/usi_notation.h"
#include "selfplay/match.h"

namespace poppy::play {

// The engine could not be started or did not complete the handshake; the message names the
// command and says what happened (exit status, last lines of its stderr).
class UsiError : public EngineError {
 public:
  using EngineError::EngineError;
};

struct UsiProcessConfig {
  std::string command;  // a shell command line
  std::vector<std::pair<std::string, std::string>> options;  // setoption NAME value VALUE, in order
  // Poppy's variant name. Unless options set UCI_Variant, it is sent for every variant but shogi
  // (with Fairy-Stockfish's name: kyoto -> kyotoshogi).
  std::string variant = "shogi";
  int64_t nodes = 0;       // go nodes N (0: not sent)
  int64_t movetimeMs = 0;  // go movetime MS (0: not sent); with neither limit, movetime 1000
  double graceSeconds = 1.0;          // a move may take movetime + grace
  double moveTimeoutSeconds = 60.0;   // the limit of a move without movetime
  double startTimeoutSeconds = 30.0;  // usiok and each readyok
  // The engine's notation; kAuto: Fairy-Stockfish's for an engine whose "id name" says
  // Fairy-Stockfish, else Poppy's.
  NotationKind notation = NotationKind::kAuto;
};

// One engine process. Not thread-safe; one instance per game slot.
class UsiProcess {
 public:
  // Starts the engine and completes the handshake; throws UsiError.
  explicit UsiProcess(UsiProcessConfig config);
  ~UsiProcess();  // quit, then kill what is left of the process group
  UsiProcess(const UsiProcess&) = delete;
  UsiProcess& operator=(const UsiProcess&) = delete;

  const std::string& name() const { return name_; }  // from "id name", else the command
  bool alive() const { return process_ && process_->alive(); }
  // The UCI_Variant values the engine listed (a combo option), empty when it listed none.
  const std::vector<std::string>& variants() const { return variants_; }

  // isready -> readyok, usinewgame. Throws UsiError (the engine is then killed).
  void newGame();
  // The engine's move for the game so far, all in the engine's notation (a forfeit when it fails).
  // After a timeout or a crash the engine is dead (alive() false). With a clock (a timed match),
  // `go btime B wtime W` and `byoyomi Y` or `binc I winc I` instead of movetime, and the move may
  // take the mover's time left plus the grace.
  selfplay::MoveChoice go(const std::string& startSfen, const std::vector<std::string>& moves,
                          const selfplay::ClockReading* clock = nullptr, int mover = 0);
  void gameOver(int result);  // gameover win / lose / draw (nothing when dead)

 private:
  using Read = EngineProcess::Read;
  void start();
  // Waits for a line starting with `token`; throws UsiError naming `what` on EOF or timeout.
  void expect(const std::string& token, const std::string& what);
  void kill();

  UsiProcessConfig config_;
  std::string name_;
  std::unique_ptr<EngineProcess> process_;
  std::vector<std::string> variants_;
};

// A match player backed by a UsiProcess. A dead engine (crash, timeout) is replaced by a fresh
// process at the next game; if that fails too, the player forfeits its games ("crash"). Speaks
// the engine's notation (config.notation, resolved by the engine's name when it starts).
class UsiPlayer : public selfplay::MovePlayer {
 public:
  explicit UsiPlayer(UsiProcessConfig config);  // starts the engine: throws UsiError
  void newGame(const game::Position& start) override;
  selfplay::MoveChoice choose(const selfplay::GameSoFar& game) override;
  void gameOver(int result) override;
  const UsiNotation& notation() const { return notation_; }

 private:
  void startEngine();

  UsiProcessConfig config_;
  std::unique_ptr<UsiProcess> engine_;
  UsiNotation notation_;
  std::string startFailure_;  // why the engine could not be (re)started for this game
};

// One UsiPlayer per game slot.
selfplay::MovePlayerFactory usiPlayerFactory(const UsiProcessConfig& config);

}  // namespace poppy::play
