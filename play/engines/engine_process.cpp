#include "play/engines/engine_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace poppy::play {
namespace {

constexpr size_t kStderrLines = 5;

void ignoreSigpipeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, nullptr);
  });
}

}  // namespace

EngineProcess::Clock::time_point EngineProcess::after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string EngineProcess::secondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

EngineProcess::EngineProcess(const std::string& command) {
  ignoreSigpipeOnce();
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw EngineError(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    throw EngineError(std::string("pipe: ") + std::strerror(errno));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    throw EngineError(std::string("pipe: ") + std::strerror(errno));
  }
  const std::string shellCommand = "exec " + command;
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    throw EngineError(std::string("fork: ") + std::strerror(errno));
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
}

EngineProcess::~EngineProcess() { kill(); }

void EngineProcess::stop(std::chrono::milliseconds wait) {
  if (pid_ > 0) {
    const auto deadline = Clock::now() + wait;
    siginfo_t info{};
    while (Clock::now() < deadline) {
      info.si_pid = 0;
      if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) break;
      ::usleep(5000);
    }
  }
  kill();
}

void EngineProcess::send(const std::string& line) {
  if (pid_ <= 0) throw EngineError("the engine is not running");
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(toEngine_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      // The engine is gone (it may have died before reading a line): say how, not just EPIPE.
      if (errno == EPIPE) throw EngineError("cannot write '" + line + "': the engine " + deathNote());
      throw EngineError("cannot write '" + line + "' to the engine: " + std::strerror(errno));
    }
    done += size_t(n);
  }
}

void EngineProcess::drainStderr() {
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

EngineProcess::Read EngineProcess::readLine(std::string& line, Clock::time_point deadline) {
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

std::string EngineProcess::deathNote() {
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

void EngineProcess::kill() {
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

}  // namespace poppy::play
