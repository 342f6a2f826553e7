// `poppy play --variant yonin`: a person in one seat of a four-player game, the engine in the
// other three. Reads lines from an istream and writes to an ostream (tests script it), draws the
// board from the person's seat (play/human/four_player_board_text.h), and writes the game as one
// JSONL record (selfplay/game_record.h) however the session ends.
//
// The engine searches each of its moves with the four-player search (mcts/player_scores.h): the
// model's network when one is given, else the uniform network (equal priors, every position a
// draw among the players still in), which sees the game ends in its tree only. A player put in
// check moves next, so the person's turns come when the rules say; once the person is mated,
// the engine plays the game out and the result is announced.
//
// Recorded result: the winning seat (south/west/north/east) or "draw"; reason as self-play's
// ("second_checkmate", "ply_cap", ...), or "unfinished" (result "draw") when the person quits,
// the input ends or ^C stops the session. Commands: a USI move, `moves`, `board`, `undo` (back
// to the person's previous turn), `help`, `quit`.
#pragma once
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "mcts/evaluator.h"
#include "play/human/terminal_game.h"
#include "selfplay/game_record.h"

namespace poppy::play {

class FourPlayerGame {
 public:
  // settings.human is the person's seat (0 south .. 3 east); settings.clock must be off.
  // evaluator may be null (the uniform network). Throws game::SfenError for a bad start SFEN,
  // std::invalid_argument for a clock.
  FourPlayerGame(PlaySettings settings, mcts::Evaluator* evaluator, std::istream& in, std::ostream& out);

  selfplay::GameRecord run();
  const game::Position& position() const { return pos_; }

 private:
  enum class Step { kContinue, kQuit };
  Step humanTurn();
  void engineTurn();
  void playMove(game::Move m);
  void undo();
  void help();
  void drawBoard();
  selfplay::GameRecord finish(const std::string& result, const std::string& reason);
  bool interrupted() const { return settings_.interrupted && settings_.interrupted->load(); }

  PlaySettings settings_;
  std::unique_ptr<mcts::Evaluator> uniform_;  // when no model is given
  mcts::Evaluator* evaluator_;
  std::istream& in_;
  std::ostream& out_;
  game::Position pos_;
  std::string startSfen_;
  std::vector<std::string> moves_;
  std::vector<game::Color> movers_;  // who made each move (turns jump to a player in check)
  uint64_t searches_ = 0;
  bool boardShown_ = false;
};

}  // namespace poppy::play
