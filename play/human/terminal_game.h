// `poppy play`: a person against the engine in a terminal. The session reads lines from an
// istream and writes to an ostream (tests script it), keeps the position with its full history
// (undo is unmakeMove), asks play::Analyzer for the engine's moves and for hints, and writes the
// game as one JSONL record (selfplay/game_record.h) however the session ends.
//
// Recorded result and reason:
//   finished game   result sente/gote/draw, reason checkmate/repetition/perpetual_check/ply_cap/stalemate
//   person resigns  result = the engine's side,  reason "resign"
//   a flag falls    result = the other side,     reason "timeout" (with --clock)
//   quit, EOF, ^C   result "draw",                reason "unfinished" (nobody won; the reason
//                   says it was not played out, so no reader mistakes it for a real draw)
// The record's id is "play-YYYYMMDD-HHMMSS-human-sente" (or -gote): who played which side;
// "model" is the model file, or "rollout" when the engine had none.
#pragma once
#include <atomic>
#include <cstdint>
#include <ctime>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "game/position.h"
#include "mcts/evaluator.h"
#include "play/analyzer.h"
#include "play/human/board_text.h"
#include "common/game_clock.h"
#include "selfplay/game_record.h"

namespace poppy::play {

struct PlaySettings {
  game::VariantPtr variant;
  std::string startSfen;        // empty: the variant's start position
  game::Color human = 0;        // the person's side
  mcts::SearchParams search;    // the engine's search (playouts = the default budget)
  SearchLimits limits;          // per engine move and per hint
  int plyCap = 200;             // plies from the start position after which the game ends
  std::string modelName;        // for the record and the greeting; empty = rollout MCTS
  std::string savePath;         // JSONL file the game is appended to
  std::string gameId;           // record id; "play-<time>-human-<side>" when empty
  bool color = false;           // ANSI colours
  bool echoInput = false;       // repeat each line read after the prompt (input that is not a
                                // terminal, so a transcript shows what was typed)
  int hintMoves = 5;            // moves listed by `hint`
  int searchThreads = 1;        // threads searching the engine's moves (Analyzer::setThreads)
  uint64_t seed = 1;
  // Set from a signal handler (^C): stops a search and ends the session, which still saves.
  const std::atomic<bool>* interrupted = nullptr;
  // A clock for both sides (not enabled: none). The person's time runs from the prompt to the
  // move; the engine thinks within its own (play/engines/time_manager.h), and a side whose time runs
  // out loses. No take-backs on a clock.
  common::ClockSettings clock;
  std::function<int64_t()> nowMs;  // milliseconds, steady; empty: the steady clock (tests script it)
};

// "games/play-YYYYMMDD-HHMMSS.jsonl" for the given local time.
std::string defaultSavePath(std::time_t now);
// "play-YYYYMMDD-HHMMSS" for the given local time.
std::string timeStamp(std::time_t now);

// Parses a side name: "sente"/"black"/"b" -> 0, "gote"/"white"/"w" -> 1; -1 otherwise.
int parseSide(const std::string& text);

// Does the text have the shape of a USI move (2e2d, 2e2d+, 8h2b-, P*3c, +G*3c)? Legality aside.
bool looksLikeUsiMove(const std::string& text);

class TerminalGame {
 public:
  // evaluator may be null (rollout MCTS); it must outlive the game. Throws game::SfenError for a
  // bad start SFEN.
  TerminalGame(PlaySettings settings, mcts::Evaluator* evaluator, std::istream& in, std::ostream& out);

  // Plays until the game ends, the person resigns or quits, or the input ends; saves the record
  // (throws selfplay::GameRecordError when it cannot, after printing the moves) and returns it.
  selfplay::GameRecord run();

  const game::Position& position() const { return pos_; }
  const std::vector<std::string>& moves() const { return moves_; }

 private:
  enum class Step { kContinue, kResign, kQuit };

  Step humanTurn();
  Step handleLine(const std::string& line);
  void engineTurn();
  void playMove(game::Move m);
  void undo();
  void hint();
  void help();
  void listMoves();
  void rejectMove(const std::string& text, const std::string& why);
  std::string exampleMoves() const;
  void drawBoard();
  void announceOutcome(const game::Outcome& o);
  selfplay::GameRecord finish(const std::string& result, const std::string& reason);
  std::string sideName(game::Color c) const;
  std::string colorName(game::Color c) const { return c == 0 ? "sente" : "gote"; }
  bool interrupted() const { return settings_.interrupted && settings_.interrupted->load(); }
  int64_t now() const;
  bool timed() const { return settings_.clock.enabled(); }
  std::string clockLine() const;
  // After a move of `mover` at `nowMs`: charges its clock; false when its flag had fallen.
  bool chargeMove(int64_t nowMs);

  PlaySettings settings_;
  std::istream& in_;
  std::ostream& out_;
  game::Position pos_;
  std::string startSfen_;
  std::vector<std::string> moves_;  // USI, one per ply made since the start
  Analyzer analyzer_;
  bool flipped_ = false;
  bool boardShown_ = false;  // the current position was drawn since the last change
  common::GameClock clock_;
  game::Color flagged_ = -1;  // the side whose time ran out
};

}  // namespace poppy::play
