#include "play/engines/xboard_client.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "play/engines/xboard_notation.h"

namespace poppy::play {
namespace {

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The key=value pairs of a `feature` line; values may be quoted ("chu,shogi").
std::vector<std::pair<std::string, std::string>> features(const std::string& line) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = line.find(' ');
  while (i != std::string::npos && i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const size_t eq = line.find('=', i);
    if (eq == std::string::npos) break;
    const std::string key = line.substr(i, eq - i);
    std::string value;
    size_t end;
    if (eq + 1 < line.size() && line[eq + 1] == '"') {
      end = line.find('"', eq + 2);
      if (end == std::string::npos) end = line.size();
      value = line.substr(eq + 2, end - eq - 2);
      ++end;
    } else {
      end = line.find(' ', eq + 1);
      if (end == std::string::npos) end = line.size();
      value = line.substr(eq + 1, end - eq - 1);
    }
    out.emplace_back(key, value);
    i = end;
  }
  return out;
}

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

bool allDigits(const std::string& s, size_t from = 0) {
  return s.size() > from && std::all_of(s.begin() + long(from), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<int> xboardScoreCp(const std::string& line) {
  std::istringstream in(line);
  std::string ply, score, time, nodes;
  if (!(in >> ply >> score >> time >> nodes)) return std::nullopt;
  const bool signedScore = !score.empty() && (score[0] == '-' || score[0] == '+');
  if (!allDigits(ply) || !allDigits(score, signedScore ? 1 : 0) || !allDigits(time) || !allDigits(nodes))
    return std::nullopt;
  if (score.size() > 12) return std::nullopt;  // no engine's score
  const long long value = std::stoll(score);
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) return std::nullopt;
  return int(value);
}

std::string xboardClockRefusal(const common::ClockSettings& clock) {
  if (clock.byoyomiMs > 0) return "CECP's clock (level) has no byoyomi: give a main time and an increment, like 5m+2s";
  if (clock.incrementMs % 1000 != 0) return "CECP's level takes an increment in whole seconds";
  if (clock.mainMs % 1000 != 0 || clock.mainMs <= 0) return "CECP's level takes a main time in whole seconds, above zero";
  return "";
}

void checkXboardConfig(const XboardConfig& c) {
  if (c.command.find_first_not_of(' ') == std::string::npos)
    throw XboardError("xboard: needs a command, e.g. xboard:hachu");
  if (xboardVariantName(c.variant).empty())
    throw XboardError("xboard: players play chu only (HaChu's shogi has no drops); not " + c.variant);
  if (c.movetimeMs % 1000 != 0)
    throw XboardError("xboard: a movetime must be whole seconds (XBoard's `st` counts seconds), not " +
                      std::to_string(c.movetimeMs) + " ms");
  if (c.depth < 0) throw XboardError("xboard: a depth must be positive");
}

XboardProcess::XboardProcess(XboardConfig config) : config_(std::move(config)) {
  name_ = config_.command;
  start();
}

XboardProcess::~XboardProcess() {
  if (alive()) {
    try {
      send("quit");
    } catch (const EngineError&) {
    }
    process_->stop(std::chrono::milliseconds(500));
  }
}

void XboardProcess::kill() {
  if (process_) process_->kill();
}

void XboardProcess::start() {
  const std::string label = "xboard:" + config_.command + ": ";
  try {
    process_ = std::make_unique<EngineProcess>(config_.command);
    send("xboard");
    send("protover 2");
    // Features until `done=1`; without any `done`, the protocol's 2 s, and `done=0` asks for
    // more time (up to the start timeout).
    auto deadline = EngineProcess::after(2.0);
    std::string line;
    for (bool done = false; !done;) {
      const Read r = process_->readLine(line, deadline);
      if (r == Read::kTimeout) break;
      if (r == Read::kEof) throw XboardError("the engine " + process_->deathNote() + " before its features");
      if (!startsWith(line, "feature ")) continue;
      for (const auto& [key, value] : features(line)) {
        if (key == "myname") name_ = value;
        if (key == "variants") variants_ = splitCommas(value);
        if (key == "done" && value == "0") deadline = EngineProcess::after(config_.startTimeoutSeconds);
        if (key == "done" && value == "1") done = true;
      }
    }
    const std::string variant = xboardVariantName(config_.variant);
    if (!variants_.empty() && std::find(variants_.begin(), variants_.end(), variant) == variants_.end()) {
      std::string offered;
      for (const auto& v : variants_) offered += (offered.empty() ? "" : ", ") + v;
      throw XboardError("the engine (" + name_ + ") does not play '" + variant + "' (its variants: " + offered + ")");
    }
    for (const auto& [name, value] : config_.options) send("option " + name + "=" + value);
    newGame();
  } catch (const EngineError& e) {
    kill();
    throw XboardError(label + e.what());
  }
}

std::vector<std::string> XboardProcess::sync(const std::string& what) {
  const std::string token = std::to_string(++pings_);
  send("ping " + token);
  const auto deadline = EngineProcess::after(config_.startTimeoutSeconds);
  std::vector<std::string> lines;
  std::string line;
  for (;;) {
    const Read r = process_->readLine(line, deadline);
    if (r == Read::kTimeout)
      throw XboardError("no 'pong " + token + "' " + what + " within " + EngineProcess::secondsText(config_.startTimeoutSeconds));
    if (r == Read::kEof) throw XboardError("the engine " + process_->deathNote() + " " + what);
    if (line == "pong " + token) return lines;
    lines.push_back(line);
  }
}

void XboardProcess::newGame() {
  try {
    if (!alive()) throw XboardError("the engine is not running");
    send("new");
    send("variant " + xboardVariantName(config_.variant));
    send("memory " + std::to_string(config_.memoryMb));
    send("force");
    send("post");
    sync("after 'new'");
    sent_.clear();
    levelSent_ = false;
  } catch (const EngineError& e) {
    kill();
    throw XboardError(e.what());
  }
}

selfplay::MoveChoice XboardProcess::go(const game::Position& pos, const std::vector<std::string>& moves,
                                       const std::vector<std::string>& xboardMoves, const selfplay::ClockReading* clock) {
  selfplay::MoveChoice choice;
  auto crash = [&](const std::string& what) {
    choice.failure = "crash";
    choice.detail = what + "; the engine " + (process_ ? process_->deathNote() : std::string("is not running"));
    kill();
    return choice;
  };
  const bool continues = sent_.size() <= xboardMoves.size() && std::equal(sent_.begin(), sent_.end(), xboardMoves.begin());
  int64_t movetime = config_.movetimeMs;
  if (config_.depth <= 0 && movetime <= 0 && !clock) movetime = 1000;
  const int mover = pos.sideToMove();
  const int64_t ownMs = clock ? (mover == 0 ? clock->senteMs : clock->goteMs) : 0;
  const int64_t otherMs = clock ? (mover == 0 ? clock->goteMs : clock->senteMs) : 0;
  try {
    if (!alive()) throw XboardError("the engine is not running");
    if (!continues) newGame();
    for (size_t i = sent_.size(); i < xboardMoves.size(); ++i) send("usermove " + xboardMoves[i]);
    for (const std::string& line : sync("after the moves")) {
      if (!startsWith(line, "Illegal move")) continue;
      // Which of them: the engine names it after the colon.
      choice.failure = selfplay::kRuleDisagreement;
      choice.detail = "refused a move Poppy's rules allow ('" + line + "'; the game so far in Poppy's USI:";
      for (const auto& m : moves) choice.detail += " " + m;
      choice.detail += ")";
      newGame();  // its state no longer follows the game
      return choice;
    }
    sent_ = xboardMoves;
    if (clock) {
      // The whole main time is the engine's at its first move of the game: BASE as M:SS.
      if (!levelSent_) {
        const int64_t s = ownMs / 1000;
        send("level 0 " + std::to_string(s / 60) + ":" + (s % 60 < 10 ? "0" : "") + std::to_string(s % 60) + " " +
             std::to_string(clock->incrementMs / 1000));
        levelSent_ = true;
      }
      send("time " + std::to_string(ownMs / 10));
      send("otim " + std::to_string(otherMs / 10));
      if (config_.depth > 0) send("sd " + std::to_string(config_.depth));
    } else if (config_.depth > 0) {
      send("sd " + std::to_string(config_.depth));
    } else {
      const int64_t seconds = movetime / 1000, centis = movetime / 10;
      send("st " + std::to_string(seconds));
      send("time " + std::to_string(centis));
      send("otim " + std::to_string(centis));
    }
    send("go");
  } catch (const EngineError& e) {
    return crash(std::string("could not send the game: ") + e.what());
  }
  const double limit = clock              ? clock->moverLeftMs(mover) / 1000.0 + config_.graceSeconds
                       : config_.depth > 0 ? config_.moveTimeoutSeconds
                                           : movetime / 1000.0 + config_.graceSeconds;
  const auto deadline = EngineProcess::after(limit);
  const bool engineIsSente = mover == 0;
  std::string line, text;
  for (;;) {
    const Read r = process_->readLine(line, deadline);
    if (r == Read::kTimeout) {
      choice.failure = "timeout";
      choice.detail = "no move within " + EngineProcess::secondsText(limit);
      kill();
      return choice;
    }
    if (r == Read::kEof) return crash("it ended before its move");
    if (const auto score = xboardScoreCp(line)) choice.scoreCp = score;  // the last one before `move` counts
    if (startsWith(line, "move ")) {
      text += line.substr(5);
      if (!text.empty() && text.back() == ',') continue;  // HaChu's first leg of a lion move
      break;
    }
    if (startsWith(line, "resign") || startsWith(line, "1-0") || startsWith(line, "0-1") || startsWith(line, "1/2-1/2")) {
      // CECP's `resign` is a resignation. A result claimed without a move is not taken at its
      // word: HaChu's evaluation overflows when it is far ahead, and it then claims the game
      // for either side (`1-0 {resign}` or `0-1 {resign}` whatever its colour) in positions
      // Poppy's rules see as going on. Such a game stops as a rule disagreement.
      const bool resigned = line == "resign";
      choice.failure = resigned ? "resign" : selfplay::kRuleDisagreement;
      choice.detail = resigned ? std::string("resigned")
                               : "claimed '" + line + "' (" + (engineIsSente ? "sente" : "gote") +
                                     " to move) without a move, which Poppy's rules do not see here";
      try {
        send("force");
      } catch (const EngineError&) {
      }
      return choice;
    }
  }
  try {
    send("force");  // it must not think on, or answer the next usermove by itself
  } catch (const EngineError& e) {
    return crash(std::string("could not stop it after its move: ") + e.what());
  }
  choice.engineText = text;
  const game::Move m = moveFromXboard(pos, text);
  if (m.isNone()) {
    choice.failure = selfplay::kRuleDisagreement;
    choice.detail = "played '" + text + "', which Poppy's rules do not allow here";
    newGame();
    return choice;
  }
  choice.usi = pos.moveToUsi(m);
  sent_.push_back(xboardMove(pos, m));
  return choice;
}

void XboardProcess::gameOver(int engineResult, bool engineIsSente) {
  if (!alive()) return;
  // XBoard's result is from the first player's (sente's, XBoard's "white") side.
  const bool senteWon = (engineResult > 0) == engineIsSente;
  const std::string result = engineResult == 0 ? "1/2-1/2" : senteWon ? "1-0" : "0-1";
  try {
    send("result " + result + " {Poppy's verdict}");
    send("force");
  } catch (const EngineError&) {
    // A dead engine is noticed at the next command.
  }
}

XboardPlayer::XboardPlayer(XboardConfig config) : config_(std::move(config)) {
  checkXboardConfig(config_);
  startEngine();
}

void XboardPlayer::startEngine() {
  engine_.reset();
  engine_ = std::make_unique<XboardProcess>(config_);
}

void XboardPlayer::newGame(const game::Position& start) {
  startFailure_.clear();
  try {
    if (start.sfen() != game::Position(start.variantPtr()).sfen())
      throw XboardError("xboard: players start from the variant's start position only (HaChu's setboard is "
                        "unreliable): give openings as 'startpos moves ...'");
    if (!engine_ || !engine_->alive()) startEngine();
    else engine_->newGame();
  } catch (const XboardError& e) {
    engine_.reset();
    startFailure_ = std::string("could not (re)start the engine: ") + e.what();
  }
}

selfplay::MoveChoice XboardPlayer::choose(const selfplay::GameSoFar& game) {
  if (!startFailure_.empty() || !engine_ || !engine_->alive()) {
    selfplay::MoveChoice c;
    c.failure = "crash";
    c.detail = startFailure_.empty() ? "the engine is not running" : startFailure_;
    return c;
  }
  engineIsSente_ = game.pos.sideToMove() == 0;
  // The game's moves in the engine's notation, each rendered in the position it was played in.
  std::vector<std::string> xboardMoves;
  game::Position p = game::Position::fromSfen(game.pos.variantPtr(), game.startSfen);
  for (const std::string& usi : game.moves) {
    const game::Move m = p.parseUsi(usi);
    xboardMoves.push_back(xboardMove(p, m));
    p.makeMove(m);
  }
  return engine_->go(game.pos, game.moves, xboardMoves, game.clock);
}

void XboardPlayer::gameOver(int result) {
  if (engine_) engine_->gameOver(result, engineIsSente_);
}

selfplay::MovePlayerFactory xboardPlayerFactory(const XboardConfig& config) {
  checkXboardConfig(config);
  return [config](int) { return std::make_unique<XboardPlayer>(config); };
}

}  // namespace poppy::play
