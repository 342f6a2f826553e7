// The `poppy` executable does not link LibTorch (issue 16, item 11): commands that use no
// network never load the network module, and those that do name the module when it is missing.
// Each case points POPPY_NETWORK_MODULE at a file that does not exist: a command that still
// works cannot have loaded LibTorch.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/scratch_files.h"

namespace fs = std::filesystem;
using poppy::testing::shellQuote;
using poppy::testing::slurp;

namespace {

::testing::Environment* const kCleanup = poppy::testing::removeScratchRootAtExit("poppy_module_test");

// This test's scratch directory, emptied when the test ends.
class NetworkModule : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = poppy::testing::freshTempDir("poppy_module_test", ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

struct CommandResult {
  int code = -1;
  std::string out, err;
};

// Runs `poppy ARGS` (arguments already quoted) with stdin from `input`; with `withoutModule` the
// network module cannot be found.
CommandResult poppy(const fs::path& dir, const std::string& args, bool withoutModule, const std::string& input = "") {
  static int serial = 0;
  const std::string id = std::to_string(serial++);
  const fs::path in = dir / ("in" + id), out = dir / ("out" + id), err = dir / ("err" + id);
  poppy::testing::spit(in, input);
  std::string cmd = withoutModule ? "POPPY_NETWORK_MODULE=" + shellQuote((dir / "missing/libpoppy_network.so").string()) + " "
                                  : std::string();
  cmd += "timeout -k 5 60 " + shellQuote(POPPY_BINARY) + " " + args + " <" + shellQuote(in.string()) + " >" +
         shellQuote(out.string()) + " 2>" + shellQuote(err.string());
  CommandResult r;
  r.code = poppy::testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const std::string kModel = shellQuote(std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v2.model");

TEST_F(NetworkModule, ExecutableDoesNotLinkLibTorch) {
  const fs::path list = dir_ / "ldd.txt";
  const std::string cmd = "ldd " + shellQuote(POPPY_BINARY) + " >" + shellQuote(list.string()) + " 2>&1";
  ASSERT_EQ(poppy::testing::exitCodeOf(std::system(cmd.c_str())), 0) << slurp(list);
  const std::string libs = slurp(list);
  EXPECT_NE(libs.find("libc.so"), std::string::npos) << "ldd listed nothing useful:\n" << libs;
  EXPECT_EQ(libs.find("libtorch"), std::string::npos) << libs;
  EXPECT_EQ(libs.find("libc10"), std::string::npos) << libs;
  EXPECT_TRUE(fs::exists(fs::path(POPPY_BINARY).parent_path() / "libpoppy_network.so"))
      << "the module is built beside the executable";
}

TEST_F(NetworkModule, CommandsWithoutANetworkNeverLoadIt) {
  CommandResult r = poppy(dir_, "variants", true);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("micro"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rules "), std::string::npos) << "each variant with its rules fingerprint:\n" << r.out;

  // Micro shogi perft 2 from the start is 80 (docs/RULES.md's table, from independent engines).
  r = poppy(dir_, "perft --variant micro --depth 2", true);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("80"), std::string::npos) << r.out;

  r = poppy(dir_, "usi --model none", true, "usi\nisready\nposition startpos\ngo nodes 30\nquit\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("bestmove "), std::string::npos) << r.out;

  r = poppy(dir_, "match --variant micro --a rollout:20 --b random --games 2 --records none --summary none", true);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST_F(NetworkModule, CommandsWithANetworkNameTheMissingModule) {
  const std::string missing = (dir_ / "missing/libpoppy_network.so").string();
  for (const std::string& args :
       {"usi --model " + kModel, std::string("usi"),  // no --model: the shipped model, which needs the module too
        "match --variant micro --a model:" + kModel + ":8 --b random --games 2 --records none --summary none",
        "train --config " + shellQuote(std::string(POPPY_SOURCE_DIR) + "/configs/train/micro.yaml") + " --run-dir " +
            shellQuote((dir_ / "run").string())}) {
    SCOPED_TRACE(args);
    const CommandResult r = poppy(dir_, args, true, "quit\n");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("network module"), std::string::npos) << r.err;
  }
  // The same model with the module in place plays.
  const CommandResult ok = poppy(dir_, "usi --model " + kModel, false, "usi\nisready\nposition startpos\ngo nodes 30\nquit\n");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("bestmove "), std::string::npos) << ok.out;
}

}  // namespace
