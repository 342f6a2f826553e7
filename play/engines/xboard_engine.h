// Poppy as an XBoard (CECP, protocol version 2) engine, for chu: `poppy xboard` reads XBoard's
// commands on stdin and answers on stdout, so a person can play Poppy in XBoard (`xboard -variant
// chu -fcp "build/poppy xboard"`) and HaChu can play it (`poppy match --a xboard:"poppy xboard"`).
// Moves are written as HaChu and XBoard write chu (play/engines/xboard_notation.h). Kept free of
// LibTorch: the command hands it an evaluator (or none: the rollout search).
//
// The engine thinks on the thread that reads the commands: a move is searched to its budget
// (`st`, the clock from `time`/`level`, else the playouts), then the next command is read. That
// keeps it simple; `?` (move now) is accepted and has nothing left to cut short.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "game/position.h"
#include "mcts/evaluator.h"
#include "play/analyzer.h"

namespace poppy::play {

struct XboardEngineOptions {
  int64_t playouts = 800;          // per move when no time is given
  int threads = 1;                 // search threads sharing one tree (with a network)
  double repetitionContempt = 0.3; // chu's greedy play shuffles into repetition draws without it
  int64_t overheadMs = 50;         // kept in hand per move for the GUI and the pipes
};

// CECP's `level MPS BASE INC`: MPS moves per time control (0: the whole game), BASE minutes or
// minutes:seconds, INC seconds added after each move (fractions allowed). nullopt: not three such
// numbers.
struct XboardLevel {
  int movesPerSession = 0;
  int64_t baseMs = 0, incrementMs = 0;
};
std::optional<XboardLevel> parseXboardLevel(const std::string& text);

// Moves the side to move still has to make before its next time control (`level`'s MPS) at game
// ply `ply` (each side has made ply / 2 moves then); 0 when the level has no moves per session.
int movesToTimeControl(int movesPerSession, int ply);

// Milliseconds to think with `clockMs` on the clock: the USI engine's clock rule
// (play/engines/time_manager.h), spread over the moves left to the time control when there is one.
int64_t xboardMoveBudgetMs(int64_t clockMs, int64_t incrementMs, int movesToGo, int64_t overheadMs);

class XboardEngine {
 public:
  // variant: chu (the one variant with an XBoard name, play/engines/xboard_notation.h); evaluator may be
  // null (the rollout search); it must outlive the engine.
  XboardEngine(std::ostream& out, game::VariantPtr variant, mcts::Evaluator* evaluator, XboardEngineOptions options);

  // Reads commands until `quit` or the end of the input.
  void run(std::istream& in);
  // One command line; false after `quit`.
  bool handle(const std::string& line);

  const game::Position& position() const { return pos_; }
  bool forceMode() const { return force_; }

 private:
  void send(const std::string& line);
  void newGame();
  void userMove(const std::string& text);
  void think();                 // searches, plays and sends its move
  void reportGameEnd();         // the result line, when the game is over
  void takeBack(int plies);     // undo (1), remove (2)
  double moveSeconds() const;   // this move's budget from st / the clock; 0: by playouts

  std::ostream& out_;
  game::VariantPtr variant_;
  mcts::Evaluator* evaluator_;
  XboardEngineOptions options_;
  std::unique_ptr<Analyzer> analyzer_;
  game::Position pos_;
  bool force_ = false;
  game::Color engineSide_ = 1;  // after `new` the engine plays the second player (XBoard's black)
  bool over_ = false;
  // Time: `st` seconds a move, or the clock (`time`, `otim` in centiseconds; `level`'s base
  // time until the first `time`, its increment and its moves per time control).
  int64_t secondsPerMove_ = 0;
  int64_t clockCs_ = -1, incrementMs_ = 0;
  int movesPerSession_ = 0;
};

}  // namespace poppy::play
