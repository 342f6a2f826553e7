#include "common/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace poppy::common {
namespace {

std::string errnoText() { return std::strerror(errno); }

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "an unknown host";
  return name;
}

// What the lock file says about its holder, trimmed to one short line.
std::string holderOf(int fd) {
  char text[256] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string s = n > 0 ? std::string(text, size_t(n)) : std::string();
  if (const size_t end = s.find('\n'); end != std::string::npos) s.resize(end);
  return s.empty() ? "another process (it has not written its name yet)" : s;
}

}  // namespace

DirectoryLock::DirectoryLock(const std::string& dir) : path_(dir + "/run.lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw DirectoryLockError(path_ + ": cannot open the lock file: " + errnoText());
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? holderOf(fd_) : std::string();
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw DirectoryLockError(dir + " is in use by " + holder + " (lock file " + path_ +
                               "); stop that process first, or use another directory");
    throw DirectoryLockError(path_ + ": cannot lock: " + std::strerror(err));
  }
  const std::string me = "pid " + std::to_string(::getpid()) + " on host " + hostName() + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != ssize_t(me.size())) {
    const std::string e = errnoText();
    ::close(fd_);
    fd_ = -1;
    throw DirectoryLockError(path_ + ": cannot write the holder's name: " + e);
  }
}

std::string directoryLockHolder(const std::string& dir) {
  const std::string path = dir + "/run.lock";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  // A shared lock is refused while a writer holds its exclusive one; given, it is dropped at once.
  std::string holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) holder = errno == EWOULDBLOCK ? holderOf(fd) : "";
  ::close(fd);
  return holder;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock; the file stays (its content is only a hint)
}

}  // namespace poppy::common
