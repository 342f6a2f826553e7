// Scratch files for tests: a per-process temporary root (removed at exit when every test passed,
// so a failed test's files stay for inspection), whole-file reads and
// writes, and shell quoting for commands that tests run.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace poppy::testing {

// The root for this test program: TMPDIR/<prefix><pid>.
inline std::filesystem::path scratchRoot(const std::string& prefix) {
  return std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
}

// Registers the removal of the scratch root at the end of the test program: all of it when every
// test passed, and otherwise nothing, so that a failed test's files stay for inspection. (Each
// test removing its own files left hundreds of roots in TMPDIR from the tests that did not.)
inline ::testing::Environment* removeScratchRootAtExit(const std::string& prefix) {
  struct Remove : ::testing::Environment {
    explicit Remove(std::string p) : prefix(std::move(p)) {}
    void TearDown() override {
      if (::testing::UnitTest::GetInstance()->Failed()) return;
      std::error_code ec;
      std::filesystem::remove_all(scratchRoot(prefix), ec);
    }
    std::string prefix;
  };
  return ::testing::AddGlobalTestEnvironment(new Remove(prefix));
}

// An empty directory under the scratch root.
inline std::filesystem::path freshTempDir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path dir = scratchRoot(prefix) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void spit(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Single-quotes a word for /bin/sh.
inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The exit code of a std::system() status: the program's status, 128 + N for signal N, -1 when
// no shell could run.
inline int exitCodeOf(int status) {
  if (status == -1) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace poppy::testing
