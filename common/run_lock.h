// One writer per directory: an exclusive flock() on DIR/run.lock, held for the lock object's
// life. The file names its holder ("pid PID on host HOST"), so a second writer is refused at
// once with who holds it. The kernel drops a flock when its process dies, however it dies, so
// a lock file left by a killed process is simply taken over: no stale-lock guessing.
#pragma once
#include <stdexcept>
#include <string>

namespace poppy::common {

class DirectoryLockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DirectoryLock {
 public:
  // Takes the lock on `dir` (which must exist) or throws DirectoryLockError: held by another
  // writer (the message names its pid and host), or the lock file cannot be opened or written.
  explicit DirectoryLock(const std::string& dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Who holds the lock on `dir` now ("pid PID on host HOST"), or "" when no one does (or there is
// no lock file). Only looks: takes no lock that lasts and writes nothing.
std::string directoryLockHolder(const std::string& dir);

}  // namespace poppy::common
