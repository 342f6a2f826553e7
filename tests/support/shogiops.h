// Running lishogi's rules library shogiops (npm package shogiops 0.18.0, installed in
// tests/reference/shogiops by scripts/setup.sh) from tests: its scripts there (perft.mjs,
// chu_perft.mjs) are run with node, and what they print comes back as lines.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace poppy::testing {

inline const std::filesystem::path& shogiopsDir() {
  static const std::filesystem::path dir = std::filesystem::path(POPPY_SOURCE_DIR) / "tests" / "reference" / "shogiops";
  return dir;
}

// Single-quoted for /bin/sh.
inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `node SCRIPT ARGS` in shogiopsDir() with INPUT on stdin and returns its output lines.
// Fails the test (and returns nothing) naming what to install when node or the package is
// missing, or with the command and its output when it exits non-zero. ARGS is shell text:
// quote what needs it with shellQuote.
inline std::vector<std::string> runShogiopsScript(const std::string& script, const std::string& args,
                                                  const std::string& input = "") {
  if (std::system("command -v node > /dev/null 2>&1") != 0) {
    ADD_FAILURE() << "node is not installed: this test needs Node.js to run shogiops (scripts/setup.sh installs "
                     "nodejs and npm)";
    return {};
  }
  std::ifstream package(shogiopsDir() / "node_modules" / "shogiops" / "package.json");
  std::stringstream text;
  text << package.rdbuf();
  if (text.str().find("\"version\": \"0.18.0\"") == std::string::npos) {
    ADD_FAILURE() << "shogiops 0.18.0 is not installed in " << shogiopsDir().string()
                  << ": run scripts/setup.sh (it runs npm ci there)";
    return {};
  }
  const std::filesystem::path inputFile =
      std::filesystem::temp_directory_path() / ("poppy_shogiops_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(inputFile) << input;
  const std::string cmd = "node " + shellQuote((shogiopsDir() / script).string()) + " " + args + " < " +
                          shellQuote(inputFile.string()) + " 2>&1";
  FILE* out = popen(cmd.c_str(), "r");
  std::vector<std::string> lines;
  std::string all;
  if (out) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, out)) {
      all += buf;
      std::string line(buf);
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      lines.push_back(line);
    }
  }
  const int status = out ? pclose(out) : -1;
  std::filesystem::remove(inputFile);
  if (status != 0) {
    ADD_FAILURE() << cmd << " failed (status " << status << "):\n" << all;
    return {};
  }
  return lines;
}

}  // namespace poppy::testing
