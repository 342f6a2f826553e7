#include "play/usi_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <sstream>

namespace poppy::play {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kStderrLines = 5;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void ignoreSigpipeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
  });
}

std::string firstWord(const std::string& line) {
  std::istringstream in(line);
  std::string w;
  in >> w;
  return w;
}

std::string secondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// The values of "option name UCI_Variant type combo default shogi var a var b ...", or nothing
// for another line.
std::vector<std::string> variantComboValues(const std::string& line) {
  std::istringstream in(line);
  std::string w, name, type, kind;
  in >> w >> name;
  if (w != "option" || name != "name") return {};
  in >> name >> type >> kind;
  if (name != "UCI_Variant" || type != "type" || kind != "combo") return {};
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
  if (pid_ > 0) {
    try {
      send("quit");
    } catch (const UsiError&) {
    }
    // Give it a moment to exit by itself, then kill the group either way (children of scripts).
    const auto deadline = Clock::now() + std::chrono::milliseconds(500);
    siginfo_t info{};
    while (Clock::now() < deadline) {
      info.si_pid = 0;
      if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) break;
      ::usleep(5000);
    }
  }
  kill();
}

void UsiProcess::start() {
  ignoreSigpipeOnce();
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw UsiError("usi:" + config_.command + ": pipe: " + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    throw UsiError("usi:" + config_.command + ": pipe: " + std::strerror(errno));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    throw UsiError("usi:" + config_.command + ": pipe: " + std::strerror(errno));
  }
  const std::string shellCommand = "exec " + config_.command;
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    throw UsiError("usi:" + config_.command + ": fork: " + std::strerror(errno));
  }
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    setpgid(0, 0);
    struct sigaction sa {};
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execl("/bin/sh", "sh", "-c", shellCommand.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that kill(-pid) works however the race goes
  pid_ = pid;
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  toEngine_ = in[1];
  fromEngine_ = out[0];
  engineErr_ = err[0];
  outBuffer_.clear(), errBuffer_.clear(), stderrTail_.clear();

  try {
    send("usi");
    const auto deadline = after(config_.startTimeoutSeconds);
    std::string line;
    for (;;) {
      const Read r = readLine(line, deadline);
      if (r == Read::kTimeout) throw UsiError("no 'usiok' within " + secondsText(config_.startTimeoutSeconds));
      if (r == Read::kEof) throw UsiError("the engine " + deathNote() + " before 'usiok'");
      if (line == "usiok") break;
      if (line.rfind("id name ", 0) == 0) name_ = line.substr(8);
      if (auto values = variantComboValues(line); !values.empty()) variants_ = std::move(values);
    }
    auto offered = [&](const std::string& v) { return std::find(variants_.begin(), variants_.end(), v) != variants_.end(); };
    // Fairy-Stockfish's name, or Poppy's where the engine lists that one instead (`poppy usi`
    // lists kyoto, not kyotoshogi); an explicit UCI_Variant option wins.
    std::string variant = config_.variant == "shogi" ? "" : fairyVariantName(config_.variant);
    if (!variant.empty() && !offered(variant) && offered(config_.variant)) variant = config_.variant;
    for (const auto& [name, value] : config_.options)
      if (name == "UCI_Variant") variant = value;
    // An engine that lists its variants but not this one would play another game (Fairy-Stockfish
    // ignores an unknown UCI_Variant and stays on shogi).
    if (!variant.empty() && !variants_.empty() && !offered(variant))
      throw UsiError("the engine (" + name_ + ") does not know the variant '" + variant + "' (its UCI_Variant offers " +
                     listText(variants_, 12) + ")");
    bool variantSet = false;
    for (const auto& [name, value] : config_.options) {
      send("setoption name " + name + " value " + value);
      variantSet |= name == "UCI_Variant";
    }
    if (!variantSet && !variant.empty()) send("setoption name UCI_Variant value " + variant);
    send("isready");
    expect("readyok", "'readyok' after the options");
  } catch (const UsiError& e) {
    kill();
    throw UsiError("usi:" + config_.command + ": " + e.what());
  }
}

void UsiProcess::send(const std::string& line) {
  if (pid_ <= 0) throw UsiError("the engine is not running");
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(toEngine_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      // The engine is gone (it may have died before reading a line): say how, not just EPIPE.
      if (errno == EPIPE) throw UsiError("cannot write '" + line + "': the engine " + deathNote());
      throw UsiError("cannot write '" + line + "' to the engine: " + std::strerror(errno));
    }
    done += size_t(n);
  }
}

void UsiProcess::drainStderr() {
  char buf[4096];
  const ssize_t n = ::read(engineErr_, buf, sizeof buf);
  if (n <= 0) {
    if (n == 0) ::close(engineErr_), engineErr_ = -1;
    return;
  }
  errBuffer_.append(buf, size_t(n));
  size_t nl;
  while ((nl = errBuffer_.find('\n')) != std::string::npos) {
    std::string l = errBuffer_.substr(0, nl);
    errBuffer_.erase(0, nl + 1);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.empty()) continue;
    stderrTail_.push_back(l);
    if (stderrTail_.size() > kStderrLines) stderrTail_.pop_front();
  }
  if (errBuffer_.size() > 4096) errBuffer_.erase(0, errBuffer_.size() - 4096);
}

UsiProcess::Read UsiProcess::readLine(std::string& line, Clock::time_point deadline) {
  for (;;) {
    const size_t nl = outBuffer_.find('\n');
    if (nl != std::string::npos) {
      line = outBuffer_.substr(0, nl);
      outBuffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return Read::kLine;
    }
    if (fromEngine_ < 0) return Read::kEof;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Read::kTimeout;
    pollfd fds[2] = {{fromEngine_, POLLIN, 0}, {engineErr_, POLLIN, 0}};
    const int n = ::poll(fds, engineErr_ >= 0 ? 2 : 1, int(std::min<int64_t>(left, 1000)));
    if (n < 0 && errno != EINTR) return Read::kEof;
    if (n <= 0) continue;
    if (engineErr_ >= 0 && fds[1].revents) drainStderr();
    if (fds[0].revents) {
      char buf[4096];
      const ssize_t got = ::read(fromEngine_, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(fromEngine_);
        fromEngine_ = -1;
        continue;  // returns what is left of the buffer, then EOF
      }
      outBuffer_.append(buf, size_t(got));
      // A runaway line without a newline must not grow without bound.
      if (outBuffer_.size() > (1u << 20) && outBuffer_.find('\n') == std::string::npos) outBuffer_.clear();
    }
  }
}

void UsiProcess::expect(const std::string& token, const std::string& what) {
  const auto deadline = after(config_.startTimeoutSeconds);
  std::string line;
  for (;;) {
    const Read r = readLine(line, deadline);
    if (r == Read::kTimeout) throw UsiError("no " + what + " within " + secondsText(config_.startTimeoutSeconds));
    if (r == Read::kEof) throw UsiError("the engine " + deathNote() + " before " + what);
    if (firstWord(line) == token) return;
  }
}

std::string UsiProcess::deathNote() {
  std::string note = "stopped answering";
  if (pid_ > 0) {
    // Its output closed: it is exiting. Wait a little for the status.
    const auto deadline = Clock::now() + std::chrono::milliseconds(1000);
    siginfo_t info{};
    while (Clock::now() < deadline) {
      info.si_pid = 0;
      if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
        if (info.si_code == CLD_EXITED) note = "exited with status " + std::to_string(info.si_status);
        else note = "was killed by signal " + std::to_string(info.si_status) + " (" + strsignal(info.si_status) + ")";
        break;
      }
      ::usleep(2000);
    }
  }
  while (engineErr_ >= 0) {  // collect its last words
    pollfd fd{engineErr_, POLLIN, 0};
    if (::poll(&fd, 1, 50) <= 0) break;
    drainStderr();
  }
  if (!stderrTail_.empty()) {
    note += " (its stderr: ";
    for (size_t i = 0; i < stderrTail_.size(); ++i) note += (i ? " | " : "") + stderrTail_[i];
    note += ")";
  }
  return note;
}

void UsiProcess::kill() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // the group: the engine and anything it started
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  for (int* fd : {&toEngine_, &fromEngine_, &engineErr_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

void UsiProcess::newGame() {
  try {
    send("isready");
    expect("readyok", "'readyok' before a new game");
    send("usinewgame");
  } catch (const UsiError& e) {
    kill();
    throw UsiError("usi:" + config_.command + ": " + e.what());
  }
}

selfplay::MoveChoice UsiProcess::go(const std::string& startSfen, const std::vector<std::string>& moves) {
  selfplay::MoveChoice choice;
  std::string position = "position sfen " + startSfen;
  if (!moves.empty()) {
    position += " moves";
    for (const auto& m : moves) position += " " + m;
  }
  int64_t movetime = config_.movetimeMs;
  if (config_.nodes <= 0 && movetime <= 0) movetime = 1000;
  std::string goLine = "go";
  if (config_.nodes > 0) goLine += " nodes " + std::to_string(config_.nodes);
  if (movetime > 0) goLine += " movetime " + std::to_string(movetime);
  const double limit = movetime > 0 ? movetime / 1000.0 + config_.graceSeconds : config_.moveTimeoutSeconds;
  try {
    send(position);
    send(goLine);
  } catch (const UsiError& e) {
    choice.failure = "crash";
    choice.detail = std::string("could not send the position: ") + e.what() + "; the engine " + deathNote();
    kill();
    return choice;
  }
  const auto deadline = after(limit);
  std::string line;
  for (;;) {
    const Read r = readLine(line, deadline);
    if (r == Read::kTimeout) {
      choice.failure = "timeout";
      choice.detail = "no bestmove within " + secondsText(limit) + " ('" + goLine + "')";
      kill();
      return choice;
    }
    if (r == Read::kEof) {
      choice.failure = "crash";
      choice.detail = "the engine " + deathNote() + " before bestmove ('" + goLine + "')";
      kill();
      return choice;
    }
    if (firstWord(line) != "bestmove") continue;  // info lines and other chatter
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
  if (pid_ <= 0) return;
  try {
    send(std::string("gameover ") + (result > 0 ? "win" : result < 0 ? "lose" : "draw"));
  } catch (const UsiError&) {
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
  if (!notation_.translates()) return engine_->go(game.startSfen, game.moves);
  selfplay::MoveChoice choice = engine_->go(
      notation_.sfen(game.startSfen), notation_.moves(game.pos.variantPtr(), game.startSfen, game.moves));
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
