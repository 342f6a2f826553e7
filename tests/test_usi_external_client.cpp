// `poppy usi` driven by a USI client that Poppy did not write: OpenShogiLib's UsiProxy (Debian's
// libosl-dev), through tests/support/osl_usi_game.cpp, plays build/poppy-usi-shogi (the program a
// GUI registers, no arguments) against itself, and OpenShogiLib's own rules check every move.
// Then the same client against a scripted engine that answers an illegal move, to show that the
// check can fail.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

namespace fs = std::filesystem;

const char* kScratch = "poppy_test_usi_external_client_";
::testing::Environment* const kCleanup = testing::removeScratchRootAtExit(kScratch);

struct ClientRun {
  int exitCode = -1;
  std::vector<std::string> out;
  std::string err;
};

#ifdef POPPY_OSL_USI_GAME
ClientRun runClient(const std::string& engine, int plies, int byoyomiMs, const fs::path& dir) {
  const fs::path out = dir / "client.out", err = dir / "client.err";
  const pid_t pid = testing::startChild(POPPY_OSL_USI_GAME, {engine, std::to_string(plies), std::to_string(byoyomiMs)},
                                        out, err);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {testing::exitCodeOf(status), testing::completeLines(out), testing::slurp(err)};
}
#endif

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)

TEST(UsiExternalClient, OpenShogiLibPlaysAGameWithPoppyUsiShogi) {
#ifndef POPPY_OSL_USI_GAME
  FAIL() << "OpenShogiLib (libosl-dev) or the Boost headers (libboost-dev) were not found when the tests were "
            "configured: scripts/setup.sh installs both; then configure the build again";
#else
  const fs::path dir = testing::freshTempDir(kScratch, "game");
  // build/poppy-usi-shogi: `poppy usi --variant shogi`, the program a standard-shogi GUI starts with no
  // arguments. Shogi has no shipped model, so it searches with rollouts: the moves are ordinary
  // shogi moves of every kind, chosen quickly.
  const std::string engine = (fs::path(POPPY_BINARY).parent_path() / "poppy-usi-shogi").string();
  ASSERT_TRUE(fs::exists(engine)) << engine << " is missing (the poppy target makes it)";
  const int plies = 40;
  const ClientRun run = runClient(engine, plies, 100, dir);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  // One line a ply, each a move OpenShogiLib generated among the legal ones, until the game ends.
  const std::regex plyLine(R"(ply (\d+) ([1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]) value -?\d+)");
  int played = 0;
  for (const std::string& line : run.out) {
    if (line.rfind("game over", 0) == 0) break;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, plyLine)) << "unexpected line: " << line;
    EXPECT_EQ(std::stoi(m[1]), played);
    ++played;
  }
  EXPECT_GE(played, 20) << "the game ended early: " << run.out.back();
  // The protocol as the client saw it (OpenShogiLib writes its side of the session to stderr).
  EXPECT_NE(run.err.find("< usiok"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("< readyok"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("> go byoyomi 100"), std::string::npos) << run.err;
#endif
}

#endif  // POPPY_BINARY

#ifdef POPPY_OSL_USI_GAME
TEST(UsiExternalClient, TheClientRefusesAnIllegalMove) {
  // A scripted engine that answers every search with 5a5b: gote's king, but sente is to move.
  const fs::path dir = testing::freshTempDir(kScratch, "illegal");
  const fs::path script = dir / "illegal-engine.sh";
  testing::spit(script,
                "#!/bin/sh\n"
                "while read -r line; do\n"
                "  case \"$line\" in\n"
                "    usi) echo 'id name Illegal'; echo usiok ;;\n"
                "    isready) echo readyok ;;\n"
                "    go*) echo 'bestmove 5a5b' ;;\n"
                "    quit) exit 0 ;;\n"
                "  esac\n"
                "done\n");
  fs::permissions(script, fs::perms::owner_all);
  const ClientRun run = runClient(script.string(), 4, 50, dir);
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_TRUE(run.out.empty());
}
#endif

}  // namespace
}  // namespace poppy
