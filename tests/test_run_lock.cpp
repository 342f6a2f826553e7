// common/run_lock.h: one writer per run directory. Locks are flock()s on DIR/run.lock, which
// conflict between open files even within one process, so one process can play both writers;
// a killed holder is a forked child.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/run_lock.h"

namespace fs = std::filesystem;
using poppy::common::DirectoryLock;
using poppy::common::DirectoryLockError;

namespace {

fs::path freshDir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("poppy_run_lock_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message of the DirectoryLockError that locking `dir` throws ("" if it does not throw).
std::string refusal(const fs::path& dir) {
  try {
    DirectoryLock second(dir.string());
  } catch (const DirectoryLockError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DirectoryLock, ASecondWriterIsRefusedWithTheHoldersPidUntilReleased) {
  const fs::path dir = freshDir("second");
  {
    const DirectoryLock first(dir.string());
    const std::string me = "pid " + std::to_string(::getpid()) + " on host ";
    EXPECT_EQ(slurp(dir / "run.lock").rfind(me, 0), 0u) << slurp(dir / "run.lock");
    const std::string msg = refusal(dir);
    EXPECT_NE(msg.find(dir.string() + " is in use by " + me), std::string::npos) << msg;
  }
  EXPECT_EQ(refusal(dir), "");  // released with the first lock
  fs::remove_all(dir);
}

TEST(DirectoryLock, TheHolderCanBeAskedWithoutTakingTheLock) {
  const fs::path dir = freshDir("holder");
  EXPECT_EQ(poppy::common::directoryLockHolder(dir.string()), "") << "no lock file";
  {
    const DirectoryLock held(dir.string());
    EXPECT_EQ(poppy::common::directoryLockHolder(dir.string()).rfind("pid " + std::to_string(::getpid()) + " on host ", 0),
              0u);
    EXPECT_EQ(poppy::common::directoryLockHolder(dir.string()).find('\n'), std::string::npos);
  }
  const std::string before = slurp(dir / "run.lock");
  EXPECT_EQ(poppy::common::directoryLockHolder(dir.string()), "") << "released";
  EXPECT_EQ(slurp(dir / "run.lock"), before) << "asking writes nothing";
  fs::remove_all(dir);
}

TEST(DirectoryLock, AKilledHoldersLockIsTakenOver) {
  const fs::path dir = freshDir("killed");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      const DirectoryLock held(dir.string());
      (void)!::write(ready[1], "x", 1);
      ::pause();  // held until killed
    } catch (...) {
    }
    ::_exit(1);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_NE(refusal(dir).find("in use by pid " + std::to_string(child)), std::string::npos);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  // The lock file is still there, naming the dead process; the lock itself died with it.
  EXPECT_EQ(slurp(dir / "run.lock").rfind("pid " + std::to_string(child), 0), 0u);
  {
    const DirectoryLock taken(dir.string());
    EXPECT_EQ(slurp(dir / "run.lock").rfind("pid " + std::to_string(::getpid()), 0), 0u);
  }
  ::close(ready[0]);
  ::close(ready[1]);
  fs::remove_all(dir);
}

TEST(DirectoryLock, AMissingDirectoryIsNamed) {
  const fs::path dir = fs::temp_directory_path() / "poppy_run_lock_no_such_dir" / "run";
  const std::string msg = [&] {
    try {
      DirectoryLock lock(dir.string());
    } catch (const DirectoryLockError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_NE(msg.find((dir / "run.lock").string()), std::string::npos) << msg;
}
