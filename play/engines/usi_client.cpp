#include "play/engines/usi_client.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace poppy::play {
namespace {

// The score of a USI `info` line in centipawns from the engine's view: `score cp X`, or
// `score mate N` as selfplay::kMateScoreCp less the plies to the mate (negative when the engine
// is mated; `mate +` and `mate -` without a count as the largest); none without a score (and
// none from `info string`, whose text is free).
std::optional<int> usiScoreCp(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string word; in >> word;) w.push_back(word);
  if (w.size() < 2 || w[0] != "info" || w[1] == "string") return std::nullopt;
  for (size_t i = 1; i + 2 < w.size(); ++i) {
    if (w[i] != "score") continue;
    const std::string& kind = w[i + 1];
    const std::string& value = w[i + 2];
    try {
      if (kind == "cp") return std::stoi(value);
      if (kind == "mate") {
        const bool mated = value[0] == '-';
        const int plies = value == "+" || value == "-" ? 0 : std::abs(std::stoi(value));
        return mated ? -(selfplay::kMateScoreCp - plies) : selfplay::kMateScoreCp - plies;
      }
    } catch (const std::exception&) {
      // a garbled score is no score
    }
    return std::nullopt;
  }
  return std::nullopt;
}

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) { return EngineProcess::after(seconds); }
std::string secondsText(double seconds) { return EngineProcess::secondsText(seconds); }

std::string firstWord(const std::string& line) {
  std::istringstream in(line);
  std::string w;
  in >> w;
  return w;
}

// Fairy-Stockfish 11.1 names its variant option UCI_Variant in USI mode too; current builds name
// it USI_Variant there (and still take "setoption name UCI_Variant").
bool isVariantOption(const std::string& name) { return name == "UCI_Variant" || name == "USI_Variant"; }

// The values of "option name UCI_Variant type combo default shogi var a var b ...", or nothing
// for another line; `optionName` gets the option's name (UCI_Variant or USI_Variant).
std::vector<std::string> variantComboValues(const std::string& line, std::string& optionName) {
  std::istringstream in(line);
  std::string w, name, type, kind;
  in >> w >> name;
  if (w != "option" || name != "name") return {};
  in >> name >> type >> kind;
  if (!isVariantOption(name) || type != "type" || kind != "combo") return {};
  optionName = name;
  std::vector<std::string> values;
  while (in >> w)
    if (w == "var" && in >> w) values.push_back(w);
  return values;
}

std::string listText(const std::vector<std::string>& words, size_t most) {
  std::string s;
  for (size_t i = 0; i < words.size() && i < most; ++i) s += (i ? ", " : "") + words[i];
  if (words.size() > most) s += ", ... (" + std::to_string(words.size()) + " in all)";
  return s;
}

}  // namespace

UsiProcess::UsiProcess(UsiProcessConfig config) : config_(std::move(config)) {
  name_ = config_.command;
  start();
}

UsiProcess::~UsiProcess() {
  if (alive()) {
    try {
      process_->send("quit");
    } catch (const EngineError&) {
    }
    // A moment to exit by itself, then the group is killed either way (children of scripts).
    process_->stop(std::chrono::milliseconds(500));
  }
}

void UsiProcess::start() {
  try {
    process_ = std::make_unique<EngineProcess>(config_.command);
  } catch (const EngineError& e) {
    throw UsiError("usi:" + config_.command + ": " + e.what());
  }

  try {
    process_->send("usi");
    const auto deadline = after(config_.startTimeoutSeconds);
    std::string line;
    std::string variantOption = "UCI_Variant";  // the name the engine lists, for the refusal below
    for (;;) {
      const Read r = process_->readLine(line, deadline);
      if (r == Read::kTimeout) throw UsiError("no 'usiok' within " + secondsText(config_.startTimeoutSeconds));
      if (r == Read::kEof) throw UsiError("the engine " + process_->deathNote() + " before 'usiok'");
      if (line == "usiok") break;
      if (line.rfind("id name ", 0) == 0) name_ = line.substr(8);
      if (auto values = variantComboValues(line, variantOption); !values.empty()) variants_ = std::move(values);
    }
    auto offered = [&](const std::string& v) { return std::find(variants_.begin(), variants_.end(), v) != variants_.end(); };
    // Fairy-Stockfish's name, or Poppy's where the engine lists that one instead (`poppy usi`
    // lists kyoto, not kyotoshogi); an explicit UCI_Variant option wins. Shogi is named too
    // when the engine lists variants: a current Fairy-Stockfish's USI mode starts on minishogi,
    // and one built without largeboards=yes has no shogi at all. An engine that lists none
    // is a plain shogi engine, told nothing for shogi.
    std::string variant = config_.variant == "shogi" && variants_.empty() ? "" : fairyVariantName(config_.variant);
    if (!variant.empty() && !offered(variant) && offered(config_.variant)) variant = config_.variant;
    bool variantGiven = false;
    for (const auto& [name, value] : config_.options) {
      if (!isVariantOption(name)) continue;
      variant = value;
      variantGiven = true;
    }
    // An engine that lists its variants but not this one would play another game (Fairy-Stockfish
    // ignores an unknown UCI_Variant and stays on its default).
    if (!variant.empty() && !variants_.empty() && !offered(variant))
      throw UsiError("the engine (" + name_ + ") does not know the variant '" + variant + "'" +
                     (variant != config_.variant ? " (Poppy's " + config_.variant + ")" : "") +
                     " (its " + variantOption + " offers " + listText(variants_, 12) + ")" +
                     (name_.find("Fairy-Stockfish") != std::string::npos
                          ? "; Fairy-Stockfish plays boards above 8x8 (shogi, chu, ...) only when built with "
                            "`make build largeboards=yes`"
                          : ""));
    for (const auto& [name, value] : config_.options) process_->send("setoption name " + name + " value " + value);
    if (!variantGiven && !variant.empty()) process_->send("setoption name UCI_Variant value " + variant);
    process_->send("isready");
    expect("readyok", "'readyok' after the options");
  } catch (const EngineError& e) {
    kill();
    throw UsiError("usi:" + config_.command + ": " + e.what());
  }
}

void UsiProcess::expect(const std::string& token, const std::string& what) {
  const auto deadline = after(config_.startTimeoutSeconds);
  std::string line;
  for (;;) {
    const Read r = process_->readLine(line, deadline);
    if (r == Read::kTimeout) throw UsiError("no " + what + " within " + secondsText(config_.startTimeoutSeconds));
    if (r == Read::kEof) throw UsiError("the engine " + process_->deathNote() + " before " + what);
    if (firstWord(line) == token) return;
  }
}

void UsiProcess::kill() {
  if (process_) process_->kill();
}

void UsiProcess::newGame() {
  try {
    if (!alive()) throw UsiError("the engine is not running");
    process_->send("isready");
    expect("readyok", "'readyok' before a new game");
    process_->send("usinewgame");
  } catch (const EngineError& e) {
    kill();
    throw UsiError("usi:" + config_.command + ": " + e.what());
  }
}

selfplay::MoveChoice UsiProcess::go(const std::string& startSfen, const std::vector<std::string>& moves,
                                    const selfplay::ClockReading* clock, int mover) {
  selfplay::MoveChoice choice;
  std::string position = "position sfen " + startSfen;
  if (!moves.empty()) {
    position += " moves";
    for (const auto& m : moves) position += " " + m;
  }
  int64_t movetime = config_.movetimeMs;
  if (config_.nodes <= 0 && movetime <= 0 && !clock) movetime = 1000;
  std::string goLine = "go";
  if (clock) {
    goLine += " btime " + std::to_string(clock->senteMs) + " wtime " + std::to_string(clock->goteMs);
    if (clock->byoyomiMs > 0) goLine += " byoyomi " + std::to_string(clock->byoyomiMs);
    if (clock->incrementMs > 0)
      goLine += " binc " + std::to_string(clock->incrementMs) + " winc " + std::to_string(clock->incrementMs);
  }
  if (config_.nodes > 0) goLine += " nodes " + std::to_string(config_.nodes);
  if (movetime > 0) goLine += " movetime " + std::to_string(movetime);
  const double limit = clock         ? clock->moverLeftMs(mover) / 1000.0 + config_.graceSeconds
                       : movetime > 0 ? movetime / 1000.0 + config_.graceSeconds
                                      : config_.moveTimeoutSeconds;
  try {
    if (!alive()) throw EngineError("the engine is not running");
    process_->send(position);
    process_->send(goLine);
  } catch (const EngineError& e) {
    choice.failure = "crash";
    choice.detail = std::string("could not send the position: ") + e.what() + "; the engine " +
                    (process_ ? process_->deathNote() : std::string("is not running"));
    kill();
    return choice;
  }
  const auto deadline = after(limit);
  std::string line;
  for (;;) {
    const Read r = process_->readLine(line, deadline);
    if (r == Read::kTimeout) {
      choice.failure = "timeout";
      choice.detail = "no bestmove within " + secondsText(limit) + " ('" + goLine + "')";
      kill();
      return choice;
    }
    if (r == Read::kEof) {
      choice.failure = "crash";
      choice.detail = "the engine " + process_->deathNote() + " before bestmove ('" + goLine + "')";
      kill();
      return choice;
    }
    if (firstWord(line) == "info") {
      if (const auto score = usiScoreCp(line)) choice.scoreCp = score;  // the last one before bestmove counts
      continue;
    }
    if (firstWord(line) != "bestmove") continue;  // other chatter
    std::istringstream in(line);
    std::string word, move;
    in >> word >> move;
    if (move == "resign") {
      choice.failure = "resign";
      choice.detail = "resigned";
    } else if (move == "win") {
      choice.failure = "illegal_move";
      choice.detail = "declared a win ('bestmove win'), which matches do not adjudicate";
    } else if (move.empty()) {
      choice.failure = "illegal_move";
      choice.detail = "sent 'bestmove' without a move";
    } else {
      choice.usi = move;
    }
    return choice;
  }
}

void UsiProcess::gameOver(int result) {
  if (!alive()) return;
  try {
    process_->send(std::string("gameover ") + (result > 0 ? "win" : result < 0 ? "lose" : "draw"));
  } catch (const EngineError&) {
    // A dead engine is noticed at the next command.
  }
}

UsiPlayer::UsiPlayer(UsiProcessConfig config) : config_(std::move(config)) { startEngine(); }

void UsiPlayer::startEngine() {
  engine_.reset();  // kills the old process before a fresh one starts
  engine_ = std::make_unique<UsiProcess>(config_);
  notation_ = UsiNotation(resolveNotation(config_.notation, engine_->name()), config_.variant);
}

void UsiPlayer::newGame(const game::Position&) {
  startFailure_.clear();
  try {
    if (!engine_ || !engine_->alive()) startEngine();
    engine_->newGame();
  } catch (const UsiError& e) {
    engine_.reset();
    startFailure_ = std::string("could not (re)start the engine: ") + e.what();
  }
}

selfplay::MoveChoice UsiPlayer::choose(const selfplay::GameSoFar& game) {
  if (!startFailure_.empty() || !engine_ || !engine_->alive()) {
    selfplay::MoveChoice c;
    c.failure = "crash";
    c.detail = startFailure_.empty() ? "the engine is not running" : startFailure_;
    return c;
  }
  const int mover = game.pos.sideToMove();
  if (!notation_.translates()) return engine_->go(game.startSfen, game.moves, game.clock, mover);
  selfplay::MoveChoice choice =
      engine_->go(notation_.sfen(game.startSfen), notation_.moves(game.pos.variantPtr(), game.startSfen, game.moves),
                  game.clock, mover);
  if (choice.failure.empty()) {
    choice.engineText = choice.usi;
    choice.usi = notation_.fromEngine(game.pos, choice.usi);
  }
  return choice;
}

void UsiPlayer::gameOver(int result) {
  if (engine_) engine_->gameOver(result);
}

selfplay::MovePlayerFactory usiPlayerFactory(const UsiProcessConfig& config) {
  return [config](int) { return std::make_unique<UsiPlayer>(config); };
}

}  // namespace poppy::play
