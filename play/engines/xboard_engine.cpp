#include "play/engines/xboard_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <istream>
#include <ostream>
#include <sstream>

#include "mcts/play_time_search.h"
#include "play/engines/time_manager.h"
#include "play/engines/xboard_notation.h"

namespace poppy::play {

std::optional<XboardLevel> parseXboardLevel(const std::string& text) {
  std::istringstream words(text);
  std::string mps, base, inc, extra;
  if (!(words >> mps >> base >> inc) || (words >> extra)) return std::nullopt;
  auto number = [](const std::string& t, double& v) {
    char* end = nullptr;
    v = std::strtod(t.c_str(), &end);
    return !t.empty() && *end == 0 && std::isfinite(v) && v >= 0;
  };
  XboardLevel level;
  double moves = 0, minutes = 0, seconds = 0, increment = 0;
  if (!number(mps, moves) || moves != std::floor(moves) || moves > 10000) return std::nullopt;
  const size_t colon = base.find(':');
  if (colon == std::string::npos) {
    if (!number(base, minutes)) return std::nullopt;
  } else if (!number(base.substr(0, colon), minutes) || !number(base.substr(colon + 1), seconds) || seconds >= 60) {
    return std::nullopt;
  }
  if (!number(inc, increment) || minutes > 100000 || increment > 100000) return std::nullopt;
  level.movesPerSession = int(moves);
  level.baseMs = int64_t(std::llround((minutes * 60 + seconds) * 1000));
  level.incrementMs = int64_t(std::llround(increment * 1000));
  return level;
}

int movesToTimeControl(int movesPerSession, int ply) {
  if (movesPerSession <= 0) return 0;
  return movesPerSession - (std::max(0, ply) / 2) % movesPerSession;
}

int64_t xboardMoveBudgetMs(int64_t clockMs, int64_t incrementMs, int movesToGo, int64_t overheadMs) {
  TimeSettings settings;
  settings.overheadMs = overheadMs;
  // With a control ahead, the clock is spread over the moves to it (one spare, so the last move
  // before the control never spends everything); without one, over the usual horizon.
  if (movesToGo > 0) settings.movesHorizon = std::min(settings.movesHorizon, movesToGo + 1);
  return clockBudgetMs(clockMs, incrementMs, 0, settings);
}
namespace {

// Plies the search looks ahead before calling a line a draw (as the USI engine's horizon).
constexpr int kSearchHorizonPlies = 200;

std::string reasonText(game::EndReason r) {
  switch (r) {
    case game::EndReason::kNoLegalMove: return "no legal move";
    case game::EndReason::kRepetition: return "repetition";
    case game::EndReason::kPerpetualCheck: return "perpetual check";
    case game::EndReason::kRoyalsCaptured: return "king captured";
    case game::EndReason::kBareKing: return "bare king";
    case game::EndReason::kBareKings: return "bare kings";
    case game::EndReason::kChecks: return "checks given";
    case game::EndReason::kPerpetualAttack: return "perpetual attack";
    default: return "game over";
  }
}

}  // namespace

XboardEngine::XboardEngine(std::ostream& out, game::VariantPtr variant, mcts::Evaluator* evaluator,
                           XboardEngineOptions options)
    : out_(out), variant_(std::move(variant)), evaluator_(evaluator), options_(options), pos_(variant_) {
  mcts::SearchParams params = mcts::playTimeSearchParams();
  params.playouts = int(std::min<int64_t>(options_.playouts, Analyzer::kMaxPlayouts));
  params.repetitionContempt = float(options_.repetitionContempt);
  analyzer_ = std::make_unique<Analyzer>(variant_, evaluator_, params);
  analyzer_->setThreads(options_.threads);
  analyzer_->setTreeReuse(true);
}

void XboardEngine::send(const std::string& line) { out_ << line << std::endl; }

void XboardEngine::run(std::istream& in) {
  for (std::string line; std::getline(in, line);)
    if (!handle(line)) return;
}

void XboardEngine::newGame() {
  pos_ = game::Position(variant_);
  force_ = false;
  engineSide_ = 1;
  over_ = false;
  secondsPerMove_ = 0;
}

void XboardEngine::takeBack(int plies) {
  for (int i = 0; i < plies; ++i) pos_.unmakeMove();
  over_ = pos_.outcome(0).over();
}

bool XboardEngine::handle(const std::string& rawLine) {
  std::istringstream in(rawLine);
  std::string cmd;
  if (!(in >> cmd)) return true;
  std::string rest;
  std::getline(in, rest);
  rest.erase(0, rest.find_first_not_of(' '));
  auto number = [&](int64_t& target) {
    try {
      const long long v = std::stoll(rest);
      if (v < 0) throw std::invalid_argument("negative");
      target = v;
    } catch (const std::exception&) {
      send("Error (not a number): " + rawLine);
    }
  };

  if (cmd == "quit") return false;
  if (cmd == "protover") {
    send("feature myname=\"Poppy\" variants=\"" + xboardVariantName(variant_->name) +
         "\" usermove=1 setboard=0 ping=1 sigint=0 sigterm=0 colors=0 memory=0 done=1");
  } else if (cmd == "new") {
    newGame();
  } else if (cmd == "variant") {
    if (rest != xboardVariantName(variant_->name)) send("Error (unknown variant): " + rest);
  } else if (cmd == "force") {
    force_ = true;
  } else if (cmd == "go") {
    force_ = false;
    engineSide_ = pos_.sideToMove();
    think();
  } else if (cmd == "playother") {
    force_ = false;
    engineSide_ = 1 - pos_.sideToMove();
  } else if (cmd == "usermove") {
    userMove(rest);
  } else if (cmd == "ping") {
    send("pong " + rest);
  } else if (cmd == "st") {
    number(secondsPerMove_);
    clockCs_ = -1;
  } else if (cmd == "time") {
    number(clockCs_);
  } else if (cmd == "level") {
    // The clock itself comes with `time` before each move; BASE starts it for interfaces that
    // send no `time` before the first one.
    if (const auto level = parseXboardLevel(rest)) {
      movesPerSession_ = level->movesPerSession;
      incrementMs_ = level->incrementMs;
      clockCs_ = level->baseMs / 10;
      secondsPerMove_ = 0;
    } else {
      send("Error (bad level: expected MPS BASE INC, e.g. 40 5 0 or 0 2:30 10): " + rawLine);
    }
  } else if (cmd == "undo" || cmd == "remove") {
    const int back = cmd == "undo" ? 1 : 2;
    if (pos_.gamePly() < back) send("Error (no move to take back): " + cmd);
    else takeBack(back);
  } else if (cmd == "result") {
    force_ = true;
    over_ = true;
  } else if (cmd == "xboard" || cmd == "accepted" || cmd == "rejected" || cmd == "otim" || cmd == "sd" ||
             cmd == "hard" || cmd == "easy" || cmd == "post" || cmd == "nopost" || cmd == "computer" ||
             cmd == "random" || cmd == "memory" || cmd == "cores" || cmd == "name" || cmd == "rating" ||
             cmd == "ics" || cmd == "?" || cmd == "." || cmd == "option") {
    // Nothing to do: `sd` has no meaning for a search counted in playouts, `?` finds no search
    // running, and the others are courtesies.
  } else {
    send("Error (unknown command): " + cmd);
  }
  return true;
}

void XboardEngine::userMove(const std::string& text) {
  if (over_) {
    send("Illegal move (the game is over): " + text);
    return;
  }
  const game::Move m = moveFromXboard(pos_, text);
  if (m.isNone()) {
    send("Illegal move: " + text);
    return;
  }
  pos_.makeMove(m);
  reportGameEnd();
  if (!over_ && !force_ && pos_.sideToMove() == engineSide_) think();
}

double XboardEngine::moveSeconds() const {
  const double overhead = options_.overheadMs / 1000.0;
  if (secondsPerMove_ > 0) return std::max(0.01, double(secondsPerMove_) - overhead);
  if (clockCs_ < 0) return 0;
  const int toGo = movesToTimeControl(movesPerSession_, pos_.gamePly());
  return std::max(0.01, xboardMoveBudgetMs(clockCs_ * 10, incrementMs_, toGo, options_.overheadMs) / 1000.0);
}

void XboardEngine::think() {
  if (over_) return;
  game::MoveList legal;
  pos_.generateLegal(legal);
  if (legal.size() == 0) {
    reportGameEnd();
    return;
  }
  SearchLimits limits;
  limits.seconds = moveSeconds();
  if (limits.seconds == 0) limits.playouts = options_.playouts;
  if (legal.size() == 1) limits.playouts = 1, limits.seconds = 0;
  mcts::SearchParams params = analyzer_->params();
  params.plyCap = pos_.gamePly() + kSearchHorizonPlies;
  analyzer_->setParams(params);
  Analysis a = analyzer_->analyze(pos_, limits);
  const game::Move m = a.moves.empty() ? legal[0] : a.moves.front().move;
  // XBoard's thinking output: ply, score (centipawns), time (centiseconds), nodes, PV.
  if (!a.moves.empty()) {
    std::ostringstream post;
    post << a.moves.front().pv.size() << " " << a.centipawns() << " " << int64_t(a.seconds * 100) << " " << a.playouts
         << " " << xboardMove(pos_, m);
    send(post.str());
  }
  send("move " + xboardMove(pos_, m));
  // Our own count of the clock, which the next `time` replaces (XBoard sends one before every
  // move; without it the clock still runs down, and a control's new time is not added).
  if (clockCs_ >= 0 && secondsPerMove_ == 0)
    clockCs_ = std::max<int64_t>(0, clockCs_ - int64_t(a.seconds * 100) - options_.overheadMs / 10 + incrementMs_ / 10);
  pos_.makeMove(m);
  reportGameEnd();
}

void XboardEngine::reportGameEnd() {
  const game::Outcome o = pos_.outcome(0);
  if (!o.over() || over_) return;
  over_ = true;
  // XBoard's "white" moves first: sente.
  const std::string result = o.draw() ? "1/2-1/2" : o.winner == 0 ? "1-0" : "0-1";
  send(result + " {" + reasonText(o.reason) + "}");
}

}  // namespace poppy::play
