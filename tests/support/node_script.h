// Running an npm package's script with node from a test (the references of
// tests/reference/: shogiops, ffish), and what it prints coming back as lines.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace poppy::testing {

// Single-quoted for /bin/sh.
inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// An npm package a test runs as its reference: tests/reference/DIR, with `package` at `version`
// installed there by scripts/setup.sh (npm ci).
struct NodeReference {
  std::string dir;      // under tests/reference
  std::string package;  // npm package name
  std::string version;
  std::filesystem::path path() const {
    return std::filesystem::path(POPPY_SOURCE_DIR) / "tests" / "reference" / dir;
  }
};

// Runs `node SCRIPT ARGS` in the reference's directory with INPUT on stdin and returns its
// output lines. Fails the test (and returns nothing) naming what to install when node or the
// package is missing, or with the command and its output when it exits non-zero. ARGS is
// shell text: quote what needs it with shellQuote.
inline std::vector<std::string> runNodeScript(const NodeReference& ref, const std::string& script,
                                              const std::string& args, const std::string& input = "") {
  if (std::system("command -v node > /dev/null 2>&1") != 0) {
    ADD_FAILURE() << "node is not installed: this test needs Node.js to run " << ref.package
                  << " (scripts/setup.sh installs nodejs and npm)";
    return {};
  }
  std::ifstream package(ref.path() / "node_modules" / ref.package / "package.json");
  std::stringstream text;
  text << package.rdbuf();
  if (text.str().find("\"version\": \"" + ref.version + "\"") == std::string::npos) {
    ADD_FAILURE() << ref.package << " " << ref.version << " is not installed in " << ref.path().string()
                  << ": run scripts/setup.sh (it runs npm ci there)";
    return {};
  }
  const std::filesystem::path inputFile = std::filesystem::temp_directory_path() /
                                          ("poppy_" + ref.dir + "_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(inputFile) << input;
  // stderr goes to a file of its own, not into the lines compared: a warning node prints (a
  // loaded machine, a deprecation) must not shift a reference's answers.
  const std::filesystem::path errorFile = std::filesystem::path(inputFile).replace_extension(".err");
  const std::string cmd = "node " + shellQuote((ref.path() / script).string()) + " " + args + " < " +
                          shellQuote(inputFile.string()) + " 2> " + shellQuote(errorFile.string());
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
  std::stringstream errors;
  errors << std::ifstream(errorFile).rdbuf();
  std::filesystem::remove(inputFile);
  std::filesystem::remove(errorFile);
  if (status != 0) {
    ADD_FAILURE() << cmd << " failed (status " << status << "):\n" << all << errors.str();
    return {};
  }
  if (!errors.str().empty()) std::cout << "[ node stderr ] " << errors.str();
  return lines;
}

}  // namespace poppy::testing
