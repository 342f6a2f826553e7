// The `poppy` executable end to end: perft output, --divide, --moves, --sfen, and clean errors
// (a message on stderr naming the bad input, a non-zero exit, no crash) for bad input.
// Every command runs under `timeout 30`, so a hang fails the test instead of blocking it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <set>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "selfplay/game_record.h"
#include "support/child_process.h"
#include "support/scratch_files.h"

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

namespace {

::testing::Environment* const kCleanup = poppy::testing::removeScratchRootAtExit("poppy_test_cli_");

struct CmdResult {
  int code = -1;  // exit status; 128 + N for signal N; 124 when `timeout` stopped it
  std::string out, err;
  std::string command;

  std::vector<std::string> outLines() const {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  std::string lastOutLine() const {
    auto lines = outLines();
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    return lines.empty() ? "" : lines.back();
  }
  std::string describe() const {
    return "command: " + command + "\nexit: " + std::to_string(code) + "\nstdout:\n" + out + "\nstderr:\n" + err;
  }
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs POPPY_BINARY with the given (already separate) arguments.
CmdResult poppy(const std::vector<std::string>& args) {
  static int serial = 0;
  const fs::path dir = fs::temp_directory_path() / ("poppy_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out = dir / ("out" + std::to_string(serial));
  const fs::path err = dir / ("err" + std::to_string(serial++));
  CmdResult r;
  r.command = "poppy";
  std::string cmd = "timeout -k 5 30 " + quote(POPPY_BINARY);
  for (const auto& a : args) {
    cmd += " " + quote(a);
    r.command += " " + quote(a);
  }
  cmd += " </dev/null >" + quote(out.string()) + " 2>" + quote(err.string());
  r.code = poppy::testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(out);
  r.err = slurp(err);
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  fs::remove(dir, ec);  // only when empty
  return r;
}

// The command ran to completion without a crash or hang and succeeded.
void expectSuccess(const CmdResult& r) {
  EXPECT_EQ(r.code, 0) << r.describe();
  EXPECT_THAT(r.err, Not(HasSubstr("error"))) << r.describe();
}

// The command failed cleanly: non-zero exit that is not a signal or a timeout, a message on
// stderr naming `needle`, nothing that looks like a crash, and no perft result.
void expectCleanError(const CmdResult& r, const std::string& needle) {
  EXPECT_NE(r.code, 0) << r.describe();
  EXPECT_NE(r.code, 124) << "timed out\n" << r.describe();
  EXPECT_LT(r.code, 124) << "killed by a signal?\n" << r.describe();
  EXPECT_THAT(r.err, HasSubstr(needle)) << r.describe();
  for (const char* crash : {"terminate", "Segmentation", "Aborted", "core dumped", "what():", "Assertion",
                            "std::", "St12out_of_range", "basic_string"})
    EXPECT_THAT(r.err, Not(HasSubstr(crash))) << r.describe();
  EXPECT_THAT(r.out, Not(HasSubstr("Nodes searched"))) << r.describe();
}

// The lines of a file a command wrote (a bench's CSV), in order; none for a missing file.
std::vector<std::string> linesOf(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const char* kMicroStart = "kbgs/p3/4/3P/SGBK b - 1";

TEST(CliPerft, MicroDepth3MatchesReference) {
  const CmdResult r = poppy({"perft", "--variant", "micro", "--depth", "3"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 767") << r.describe();  // docs/RULES.md
}

TEST(CliPerft, ReferenceCountsOfEveryVariantAtDepth2) {
  // docs/RULES.md, "Reference perft counts from the start position", column d2.
  const std::map<std::string, std::string> d2 = {{"micro", "80"},    {"minishogi", "181"}, {"kyoto", "137"},
                                                 {"judkins", "336"}, {"gorogoro", "250"},  {"tori", "288"},
                                                 {"shogi", "900"},   {"yari", "400"}, {"whale", "49"},
                                                 {"small", "400"},   {"quasi", "1024"}, {"cubic", "529"},
                                                 {"cubic8", "784"}, {"cannon", "2583"}, {"miburi", "900"}, {"annan", "784"}, {"unashogi", "369392"}, {"hand", "96721"}};
  for (const auto& [variant, count] : d2) {
    const CmdResult r = poppy({"perft", "--variant", variant, "--depth", "2"});
    expectSuccess(r);
    EXPECT_EQ(r.lastOutLine(), "Nodes searched: " + count) << r.describe();
  }
}

TEST(CliPerft, DefaultVariantIsMicroAndDepth0IsOneNode) {
  CmdResult r = poppy({"perft", "--depth", "1"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 9") << r.describe();
  r = poppy({"perft", "--variant", "micro", "--depth", "0"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 1") << r.describe();
}

// `move: count` lines of a --divide run.
std::map<std::string, long> divideLines(const CmdResult& r) {
  std::map<std::string, long> out;
  const std::regex line(R"(^(\S+): (\d+)$)");
  for (const auto& l : r.outLines()) {
    std::smatch m;
    if (std::regex_match(l, m, line)) {
      EXPECT_EQ(out.count(m[1]), 0u) << "move listed twice: " << l;
      out[m[1]] = std::stol(m[2]);
    }
  }
  return out;
}

TEST(CliPerft, DivideListsEveryStartMoveAndSumsToTheTotal) {
  const CmdResult r = poppy({"perft", "--variant", "micro", "--depth", "2", "--divide"});
  expectSuccess(r);
  const auto moves = divideLines(r);
  EXPECT_EQ(moves.size(), 9u) << r.describe();  // docs/RULES.md d1
  long sum = 0;
  for (const auto& [move, count] : moves) {
    EXPECT_GT(count, 0) << move;
    sum += count;
  }
  EXPECT_EQ(sum, 80) << r.describe();  // docs/RULES.md d2
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 80") << r.describe();
  EXPECT_EQ(moves.count("1d1c"), 1u) << "the pawn push 1d1c is a legal first move\n" << r.describe();
}

TEST(CliPerft, MovesOptionAgreesWithDivide) {
  const CmdResult divide = poppy({"perft", "--variant", "micro", "--depth", "3", "--divide"});
  expectSuccess(divide);
  const auto moves = divideLines(divide);
  ASSERT_EQ(moves.count("1d1c"), 1u) << divide.describe();
  EXPECT_EQ(divide.lastOutLine(), "Nodes searched: 767");

  const CmdResult after = poppy({"perft", "--variant", "micro", "--moves", "1d1c", "--depth", "2"});
  expectSuccess(after);
  EXPECT_EQ(after.lastOutLine(), "Nodes searched: " + std::to_string(moves.at("1d1c"))) << after.describe();
}

// After 1d1c 4b4c sente has these 11 moves, by hand from configs/variants/micro.yaml (sente moves
// up the board; board: gote K4a B3a G2a S1a, p4c; sente P1c, S4e G3e B2e K1e; no hands):
//   pawn 1c: 1b                          1
//   silver 4e (FfW): 4d, 3d              2
//   gold 3e (WfF): 4d, 3d, 2d            3   (4e and 2e hold its own pieces)
//   bishop 2e: 3d, 4c+ (takes the pawn and flips), 1d   3
//   king 1e: 1d, 2d (gote attacks neither)              2
// Nothing pins or checks: gote's bishop on 3a stops at the pawn on 1c. Fairy-Stockfish 11.1
// (`position startpos moves 1d1c 4b4c`, `go perft 1` in its micro) counts 11 too.
TEST(CliPerft, MovesOptionTakesSeveralMovesAndExtraSpaces) {
  const CmdResult r = poppy({"perft", "--variant", "micro", "--moves", "  1d1c   4b4c ", "--depth", "1"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 11") << r.describe();
}

TEST(CliPerft, SfenOption) {
  // The start position given explicitly.
  CmdResult r = poppy({"perft", "--variant", "micro", "--sfen", kMicroStart, "--depth", "3"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 767") << r.describe();

  // The position after 1d1c, given as SFEN, equals --moves 1d1c.
  const CmdResult viaMoves = poppy({"perft", "--variant", "micro", "--moves", "1d1c", "--depth", "3"});
  r = poppy({"perft", "--variant", "micro", "--sfen", "kbgs/p3/3P/4/SGBK w - 2", "--depth", "3"});
  expectSuccess(viaMoves);
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), viaMoves.lastOutLine()) << r.describe() << viaMoves.describe();

  // --sfen and --moves together.
  r = poppy({"perft", "--variant", "micro", "--sfen", kMicroStart, "--moves", "1d1c", "--depth", "3"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), viaMoves.lastOutLine()) << r.describe();

  // A position where sente is checkmated: no legal move, 0 leaves at depth 1.
  r = poppy({"perft", "--variant", "micro", "--sfen", "3k/4/4/1gg1/1gKg b - 1", "--depth", "1"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 0") << r.describe();
}

TEST(CliPerft, VariantGivenAsPath) {
  const CmdResult r =
      poppy({"perft", "--variant", std::string(POPPY_SOURCE_DIR) + "/configs/variants/micro.yaml", "--depth", "3"});
  expectSuccess(r);
  EXPECT_EQ(r.lastOutLine(), "Nodes searched: 767") << r.describe();
}

TEST(CliErrors, UnknownVariant) {
  const CmdResult r = poppy({"perft", "--variant", "nosuchvariant", "--depth", "1"});
  expectCleanError(r, "nosuchvariant");
  EXPECT_THAT(r.err, HasSubstr("micro")) << "should list the known variants\n" << r.describe();
}

TEST(CliErrors, EmptyVariantName) { expectCleanError(poppy({"perft", "--variant", "", "--depth", "1"}), "variant"); }

TEST(CliErrors, MissingVariantFile) {
  const CmdResult r = poppy({"perft", "--variant", "/no/such/dir/x.yaml", "--depth", "1"});
  expectCleanError(r, "/no/such/dir/x.yaml");
}

// Issue 39 (13): messages that named the wrong cause.
TEST(CliErrors, MessagesNameTheRealCause) {
  expectCleanError(poppy({"perft", "--variant", "/dev/zero", "--depth", "1"}), "/dev/zero: not a regular file");
  expectCleanError(poppy({"serve", "--host", "999.1.1.1", "--port", "0"}),
                   "cannot listen on 999.1.1.1:0: '999.1.1.1' is not a host name or address");
}

TEST(CliErrors, BrokenVariantFile) {
  const fs::path path = fs::temp_directory_path() / ("poppy_cli_broken_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "name: broken\nboard: {files: 0, ranks: 5}\n";
  const CmdResult r = poppy({"perft", "--variant", path.string(), "--depth", "1"});
  fs::remove(path);
  expectCleanError(r, path.string());
  EXPECT_THAT(r.err, HasSubstr("board.files")) << r.describe();
}

TEST(CliErrors, MalformedSfen) {
  for (const std::string sfen :
       {"kbgs/p3/4/3P/SGBX b - 1", "kbgs/p3/4/3P b - 1", "kbgs/p3/4/3P/SGBK x - 1", "kbgs/p3/4/3P/SGBK b Q 1",
        "kbgs/p3/4/3P/SGBK b - 0", "kbgs/p3/4/3P/SGBK", "99999999999999999999/p3/4/3P/SGBK b - 1", "garbage",
        "kbgs/p3/4/3P/SGBK b - 1 extra", "kbgs/p3/4/3P/SGBK b 99999999999P 1"}) {
    SCOPED_TRACE(sfen);
    expectCleanError(poppy({"perft", "--variant", "micro", "--sfen", sfen, "--depth", "1"}), sfen);
  }
}

TEST(CliErrors, IllegalMove) {
  // Start: gote k b g s on 4a..1a, p on 4b; sente P on 1d, S G B K on 4e..1e. The pawn cannot
  // jump to 1b nor flip without capturing, nothing is in hand, 2a is gote's gold, and the king
  // cannot step onto its own pawn.
  for (const std::string move : {"1d1b", "1d1c+", "1d1c-", "G*3c", "2a2b", "1e1d"}) {
    SCOPED_TRACE(move);
    const CmdResult r = poppy({"perft", "--variant", "micro", "--moves", move, "--depth", "1"});
    expectCleanError(r, move);
  }
  // The second move is illegal (the same side cannot move twice).
  const CmdResult r = poppy({"perft", "--variant", "micro", "--moves", "1d1c 1c1b", "--depth", "1"});
  expectCleanError(r, "1c1b");
}

TEST(CliErrors, UnparsableMove) {
  for (const std::string move :
       {"zz9", "1d", "1d1", "9z9z", "0a0b", "5a1a", "1d1cx", "P*", "*1c", "P*9z", "Q*1c", "\xc3\xa9\xc3\xa9"}) {
    SCOPED_TRACE(move);
    const CmdResult r = poppy({"perft", "--variant", "micro", "--moves", move, "--depth", "1"});
    expectCleanError(r, move);
  }
}

TEST(CliErrors, DepthOutOfRange) {
  for (const std::string depth : {"21", "-1", "1000000", "99999999999999999999"}) {
    SCOPED_TRACE(depth);
    const CmdResult r = poppy({"perft", "--variant", "micro", "--depth", depth});
    expectCleanError(r, "--depth");
    EXPECT_THAT(r.err, HasSubstr(depth)) << r.describe();
  }
  for (const std::string depth : {"three", "2.5", ""}) {
    SCOPED_TRACE(depth);
    expectCleanError(poppy({"perft", "--variant", "micro", "--depth", depth}), "--depth");
  }
}

TEST(CliErrors, MissingDepth) {
  expectCleanError(poppy({"perft", "--variant", "micro"}), "--depth");
  expectCleanError(poppy({"perft", "--variant", "micro", "--depth"}), "--depth");
}

TEST(CliErrors, UnknownOption) {
  expectCleanError(poppy({"perft", "--variant", "micro", "--depth", "1", "--bogus"}), "--bogus");
  expectCleanError(poppy({"perft", "--variant", "micro", "--depth", "1", "extra"}), "extra");
}

TEST(CliErrors, UnknownSubcommandIsNamed) { expectCleanError(poppy({"frobnicate"}), "frobnicate"); }

TEST(CliErrors, NoSubcommand) {
  const CmdResult none = poppy({});
  EXPECT_NE(none.code, 0) << none.describe();
  EXPECT_LT(none.code, 124) << none.describe();
  EXPECT_FALSE(none.err.empty()) << none.describe();
}

TEST(CliHelp, TopLevelHelpMentionsEverySubcommandAndOption) {
  const CmdResult r = poppy({"--help"});
  EXPECT_EQ(r.code, 0) << r.describe();
  const std::string text = r.out + r.err;
  for (const char* word : {"perft", "bench", "variants", "--help", "--help-all"})
    EXPECT_THAT(text, HasSubstr(word)) << r.describe();
}

// Every command's --help ends by naming its docs page, and the page exists (issue 42).
TEST(CliHelp, EveryCommandsHelpNamesItsDocumentationPage) {
  const std::vector<std::vector<std::string>> commands = {
      {"train"}, {"selfplay"}, {"gate"}, {"usi"},    {"play"},  {"serve"}, {"match"},  {"ladder"},
      {"openings", "tree"}, {"records", "export"}, {"report"}, {"bench", "nn"}, {"perft"}, {"variants"}, {"model", "info"}};
  const std::regex page(R"(Documentation: (docs/commands/[a-z]+\.md))");
  for (std::vector<std::string> args : commands) {
    args.push_back("--help");
    const CmdResult r = poppy(args);
    EXPECT_EQ(r.code, 0) << r.describe();
    std::smatch m;
    const std::string text = r.out;
    ASSERT_TRUE(std::regex_search(text, m, page)) << r.describe();
    EXPECT_TRUE(fs::exists(fs::path(POPPY_SOURCE_DIR) / m[1].str())) << m[1].str();
  }
}

TEST(CliHelp, PerftHelpMentionsEveryOption) {
  const CmdResult r = poppy({"perft", "--help"});
  EXPECT_EQ(r.code, 0) << r.describe();
  const std::string text = r.out + r.err;
  for (const char* option : {"--variant", "--sfen", "--moves", "--depth", "--divide", "--help"})
    EXPECT_THAT(text, HasSubstr(option)) << r.describe();
}

TEST(CliHelp, HelpAllMentionsPerftOptions) {
  const CmdResult r = poppy({"--help-all"});
  EXPECT_EQ(r.code, 0) << r.describe();
  for (const char* option : {"--variant", "--sfen", "--moves", "--depth", "--divide"})
    EXPECT_THAT(r.out + r.err, HasSubstr(option)) << r.describe();
}


// `uniform:PLAYOUTS` is the model player's search with a network that knows nothing: its exact
// game ends and mate search alone beat a random mover at micro shogi (20 of 20 in this run; the
// bound leaves room for a few draws or losses).
TEST(MatchCli, UniformSearchBeatsRandom) {
  const fs::path records = fs::temp_directory_path() / ("poppy_cli_uniform_" + std::to_string(::getpid()) + ".jsonl");
  const CmdResult r = poppy({"match", "--a", "uniform:64", "--b", "random", "--games", "20", "--parallel", "20",
                             "--records", records.string(), "--summary", records.string() + ".summary.json"});
  expectSuccess(r);
  const size_t at = r.out.find("score ");
  ASSERT_NE(at, std::string::npos) << r.describe();
  EXPECT_GE(std::stod(r.out.substr(at + 6)), 0.8) << r.describe();
  fs::remove(records);
  fs::remove(records.string() + ".summary.json");
}

// Chu's uniform players shuffle a piece back and forth under greedy play: every game of this
// match is a repetition draw (8 of 8 when this test was written). --repetition-contempt makes
// their searches score a move back to an earlier position below a draw, so the same games run
// on to the ply cap instead (8 of 8); the rules' fourfold repetition is untouched.
TEST(MatchCli, RepetitionContemptKeepsGreedyChuFromShuffling) {
  auto reasons = [](const std::string& contempt) {
    const fs::path records =
        fs::temp_directory_path() / ("poppy_cli_contempt_" + std::to_string(::getpid()) + ".jsonl");
    fs::remove(records);
    const CmdResult r = poppy({"match", "--variant", "chu", "--a", "uniform:16", "--b", "uniform:16", "--games", "8",
                               "--parallel", "8", "--opening-plies", "0", "--ply-cap", "200",
                               "--repetition-contempt", contempt, "--records", records.string(), "--summary", "none"});
    expectSuccess(r);
    std::map<std::string, int> count;
    const std::regex reason("\"reason\":\"([a-z_]+)\"");
    const std::string text = slurp(records);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), reason); it != std::sregex_iterator(); ++it)
      ++count[(*it)[1]];
    fs::remove(records);
    return count;
  };
  EXPECT_GE(reasons("0")["repetition"], 6);
  const auto withContempt = reasons("0.3");
  EXPECT_EQ(withContempt.count("repetition"), 0u);
  EXPECT_GE(withContempt.count("ply_cap") ? withContempt.at("ply_cap") : 0, 6);
}

TEST(CliErrors, RepetitionContemptOutOfRangeIsNamed) {
  const CmdResult r = poppy({"match", "--a", "random", "--b", "random", "--repetition-contempt", "1.5"});
  EXPECT_EQ(r.code, 2) << r.describe();
  expectCleanError(r, "--repetition-contempt");
}

TEST(CliProgress, IntoAFileProgressIsAFewWholeLines) {
  // 300 random games take well under a second: with stderr a file, the progress is the first
  // and the last line (a line every 5 s at most), never a \r-rewritten line per game.
  const fs::path records = fs::temp_directory_path() / ("poppy_cli_progress_" + std::to_string(::getpid()) + ".jsonl");
  const CmdResult r = poppy({"match", "--a", "random", "--b", "random", "--games", "300", "--parallel", "8",
                             "--records", records.string(), "--summary", records.string() + ".summary.json"});
  expectSuccess(r);
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.describe();
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 5) << r.describe();
  EXPECT_NE(r.err.find("300/300 games"), std::string::npos) << r.describe();
  fs::remove(records);
  fs::remove(records.string() + ".summary.json");
}

// Issue 39 (15): `poppy model info` reads a model's header. The expected values are
// micro-v3's card (models/micro/README.md): micro rules 1c01743b44857d55, 4 blocks x 32
// channels, value head 32 wide, 25,950 steps, generation 91.
TEST(CliModel, InfoSaysWhatAModelHoldsAndRefusesOtherFiles) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v3.model";
  const CmdResult r = poppy({"model", "info", model});
  expectSuccess(r);
  for (const char* needle : {"variant   micro, rules 1c01743b44857d55: the same as configs/variants/micro.yaml",
                             "4 blocks x 32 channels, value head 32 wide", "step 25950, saved as gen-0091",
                             "checksum OK"})
    EXPECT_THAT(r.out, HasSubstr(needle)) << r.describe();
  const CmdResult j = poppy({"model", "info", "--json", model});
  expectSuccess(j);
  const auto info = nlohmann::json::parse(j.out);
  EXPECT_EQ(info.at("variant"), "micro");
  EXPECT_EQ(info.at("blocks"), 4);
  EXPECT_EQ(info.at("channels"), 32);
  EXPECT_EQ(info.at("step"), 25950);

  // A damaged copy (one byte of the weights flipped) and a file that is no model: clear errors.
  const fs::path dir = fs::temp_directory_path() / ("poppy_cli_model_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string bytes = slurp(model);
  bytes[bytes.size() - 100] = char(bytes[bytes.size() - 100] ^ 0x10);
  const fs::path damaged = dir / "damaged.model";
  std::ofstream(damaged, std::ios::binary) << bytes;
  expectCleanError(poppy({"model", "info", damaged.string()}), damaged.string());
  const std::string readme = std::string(POPPY_SOURCE_DIR) + "/README.md";
  expectCleanError(poppy({"model", "info", readme}), readme + ": not a Poppy model file");
  expectCleanError(poppy({"model", "info", (dir / "absent.model").string()}), "absent.model");
  fs::remove_all(dir);
}

// --inference on every command that loads a model to search with: a bad value is a usage error
// naming it, before anything is loaded.
TEST(CliErrors, BadInferenceIsNamed) {
  const std::vector<std::vector<std::string>> commands = {
      {"usi"},
      {"play"},
      {"serve"},
      {"match", "--a", "random", "--b", "random"},
      {"ladder"},
      {"selfplay", "--model", "x.model"},
      {"gate", "--candidate", "a.model", "--best", "b.model"},
      {"openings", "tree"},
      {"openings", "book", "--out", "x.json"},
      {"openings", "history", "run"}};
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"--inference", "fast"});
    const CmdResult r = poppy(args);
    EXPECT_EQ(r.code, 2) << r.describe();
    expectCleanError(r, "unknown inference 'fast' (use auto, torch, eigen or int8)");
  }
}

// `poppy bench search` searches each position with each setting, leaf mate depth and thread
// count, prints one table row per combination and writes one CSV row per search (1 start + 2
// middle-game positions, 2 x 2 x 2 combinations: 24 rows); without --leaf-mate-plies, the
// play-time default (1).
TEST(CliBench, SearchBenchPrintsARowPerSettingAndWritesEverySearch) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v3.model";
  const std::string csv = (fs::temp_directory_path() / ("poppy_cli_bench_search_" + std::to_string(::getpid()) + ".csv")).string();
  fs::remove(csv);
  const CmdResult r = poppy({"bench", "search", "--model", model, "--inference", "torch,eigen", "--threads", "1,2",
                             "--leaf-mate-plies", "3,0", "--seconds", "0.05", "--positions", "2", "--csv", csv});
  expectSuccess(r);
  for (const char* inference : {"torch      ", "eigen      "})
    for (const char* leaf : {"3          ", "0          "})
      for (const char* threads : {"1 ", "2 "})
        EXPECT_THAT(r.out, HasSubstr(std::string(inference) + leaf + threads)) << r.describe();
  EXPECT_EQ(linesOf(csv).size(), size_t(1 + 24)) << "a header and one row per search";
  fs::remove(csv);
  const CmdResult byDefault = poppy({"bench", "search", "--model", model, "--inference", "eigen", "--threads", "1",
                                     "--seconds", "0.05", "--positions", "1", "--csv", csv});
  expectSuccess(byDefault);
  EXPECT_THAT(byDefault.out, HasSubstr("eigen      1          1 ")) << byDefault.describe();
  const CmdResult two = poppy({"bench", "search", "--model", model, "--leaf-mate-plies", "2", "--csv", csv});
  EXPECT_EQ(two.code, 2) << two.describe();
  EXPECT_THAT(two.err, HasSubstr("--leaf-mate-plies")) << two.describe();
  fs::remove(csv);
}

// `poppy bench train` for a two- and a four-player variant (yonin's value head has 5 outputs;
// the bare loop once shaped its targets as 3 and stopped with a LibTorch shape error): each prints
// both rates, in the layout the config's auto picks (both policy heads are dense: channels last),
// and writes one CSV row; `--layout` names another, and `both` compares the two; micro-aux.yaml's
// auxiliary heads are trained too.
TEST(CliBench, TrainBenchRunsForTwoAndFourPlayers) {
  const std::string csv = (fs::temp_directory_path() / ("poppy_cli_bench_train_" + std::to_string(::getpid()) + ".csv")).string();
  fs::remove(csv);
  auto bench = [&](const std::string& variant, std::vector<std::string> more) {
    std::vector<std::string> args = {"bench", "train", "--config", std::string(POPPY_SOURCE_DIR) + "/configs/train/" + variant + ".yaml",
                                     "--batch", "8", "--seconds", "0.05", "--csv", csv};
    args.insert(args.end(), more.begin(), more.end());
    const CmdResult r = poppy(args);
    expectSuccess(r);
    return r;
  };
  for (const std::string variant : {"micro", "yonin"}) {
    const CmdResult r = bench(variant, {});
    EXPECT_THAT(r.out, HasSubstr("batch 8, fp32, channels_last: trainer ")) << r.describe();
    EXPECT_THAT(r.out, HasSubstr("% of the bare forward+backward loop")) << r.describe();
  }
  EXPECT_THAT(bench("micro", {"--layout", "nchw"}).out, HasSubstr("batch 8, fp32, nchw: trainer "));
  const CmdResult both = bench("micro", {"--layout", "both"});
  EXPECT_THAT(both.out, HasSubstr("batch 8, fp32, nchw: trainer ")) << both.describe();
  EXPECT_THAT(both.out, HasSubstr("batch 8, fp32, channels_last: trainer ")) << both.describe();
  EXPECT_THAT(both.out, testing::ContainsRegex("channels_last = [0-9.]+x nchw's samples/s \\(auto picks channels_last here\\)"))
      << both.describe();
  const CmdResult refused = poppy({"bench", "train", "--layout", "nhwc"});
  EXPECT_EQ(refused.code, 2) << refused.describe();
  EXPECT_THAT(refused.err, HasSubstr("--layout: nhwc not in")) << refused.describe();

  const std::vector<std::string> rows = linesOf(csv);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_THAT(rows[0], testing::StartsWith("train,micro,8,"));
  EXPECT_THAT(rows[0], testing::EndsWith(",channels_last"));
  EXPECT_THAT(rows[1], testing::StartsWith("train,yonin,8,"));
  EXPECT_THAT(rows[2], testing::EndsWith(",nchw"));
  EXPECT_THAT(rows[3], testing::StartsWith("train-layouts,micro,8,"));
  // A config with auxiliary heads trains them in the trainer's steps; the bare loop says it runs
  // the policy and value only.
  const CmdResult aux = bench("micro-aux", {});
  EXPECT_THAT(aux.out, HasSubstr("4 blocks x 32 channels with auxiliary heads (trained)")) << aux.describe();
  EXPECT_THAT(aux.out, HasSubstr("batch 8, fp32, channels_last: trainer ")) << aux.describe();
  EXPECT_THAT(aux.out, HasSubstr("bare forward+backward (nchw, policy and value heads only)")) << aux.describe();
  fs::remove(csv);
}

// `poppy selfplay` with few playouts: every move a full search of that many (fewer than the
// fast searches' default 32 were refused with an internal message until 2026-11-26).
TEST(CliSelfplay, FewPlayoutsPlayAndWriteTheGames) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v3.model";
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "selfplay");
  const CmdResult r = poppy({"selfplay", "--model", model, "--games", "3", "--playouts", "8", "--parallel", "3",
                             "--workers", "1", "--out", (dir / "out").string()});
  expectSuccess(r);
  EXPECT_THAT(r.out, HasSubstr("wrote 3 games")) << r.describe();
  EXPECT_EQ(poppy::selfplay::readGameRecords((dir / "out" / "games.jsonl").string()).size(), 3u);
}

TEST(CliBench, SelfplayBenchRunsTheNetworksAsAsked) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v3.model";
  const std::string csv = (fs::temp_directory_path() / ("poppy_cli_bench_selfplay_" + std::to_string(::getpid()) + ".csv")).string();
  fs::remove(csv);
  for (const std::string inference : {"eigen", "torch"}) {
    const CmdResult r = poppy({"bench", "selfplay", "--model", model, "--games", "2", "--workers", "1", "--seconds",
                               "0.05", "--inference", inference, "--csv", csv});
    expectSuccess(r);
    EXPECT_THAT(r.out, HasSubstr("inference " + inference + ": 2 games")) << r.describe();
    EXPECT_THAT(r.out, HasSubstr("self-play network rate = ")) << r.describe();
  }
  const std::vector<std::string> rows = linesOf(csv);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0], testing::EndsWith(",tactics,1,eigen"));
  EXPECT_THAT(rows[1], testing::EndsWith(",tactics,1,torch"));
  EXPECT_NE(poppy({"bench", "selfplay", "--inference", "fast"}).code, 0);
  fs::remove(csv);
}

// A model plays with each inference setting (Eigen, LibTorch, or both by batch size).
TEST(CliInference, AModelPlaysWithEachSetting) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-v3.model";
  for (const std::string inference : {"eigen", "torch", "auto"}) {
    const CmdResult r = poppy({"match", "--a", "model:" + model + ":40", "--b", "random", "--games", "2", "--parallel",
                               "2", "--inference", inference, "--records", "none", "--summary", "none"});
    expectSuccess(r);
    EXPECT_THAT(r.out, HasSubstr("2 games")) << r.describe();
  }
}

// poppy records: a match's JSONL records out as KIF and CSA files, back in as JSONL, and the
// folder of KIF files read by `openings games` as the JSONL records are.
TEST(CliRecords, ExportImportAndOpeningsOfAFolder) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "records");
  const std::string records = (dir / "games.jsonl").string();
  expectSuccess(poppy({"match", "--variant", "shogi", "--a", "random", "--b", "random", "--games", "4", "--ply-cap", "60",
                       "--records", records, "--summary", "none"}));
  for (const char* format : {"kif", "csa"}) {
    const CmdResult ex = poppy({"records", "export", records, "--format", format, "--out", (dir / format).string()});
    expectSuccess(ex);
    EXPECT_THAT(ex.err, HasSubstr(std::string("wrote 4 ") + format + " files")) << ex.describe();
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir / format)) files.push_back(e.path().string());
    ASSERT_EQ(files.size(), 4u);
    std::vector<std::string> args = {"records", "import"};
    args.insert(args.end(), files.begin(), files.end());
    args.insert(args.end(), {"--out", (dir / (std::string(format) + ".jsonl")).string()});
    const CmdResult im = poppy(args);
    expectSuccess(im);
    EXPECT_THAT(im.err, HasSubstr("appended 4 game(s)")) << im.describe();
  }
  // The opening lines of the folder of KIF files are those of the JSONL records.
  const CmdResult fromJsonl = poppy({"openings", "games", records, "--depth", "2"});
  const CmdResult fromKif = poppy({"openings", "games", (dir / "kif").string(), "--depth", "2"});
  expectSuccess(fromJsonl);
  expectSuccess(fromKif);
  EXPECT_EQ(fromKif.out, fromJsonl.out);
  // Chu cannot be written as KIF: every game is skipped with the reason, and the command fails.
  const std::string chu = (dir / "chu.jsonl").string();
  expectSuccess(poppy({"match", "--variant", "chu", "--a", "random", "--b", "random", "--games", "1", "--ply-cap", "4",
                       "--records", chu, "--summary", "none"}));
  const CmdResult refused = poppy({"records", "export", chu, "--out", (dir / "chu").string()});
  EXPECT_EQ(refused.code, 2) << refused.describe();
  EXPECT_THAT(refused.err, HasSubstr("variant 'chu' has a board larger than 9x9")) << refused.describe();
  // A KIF file with an illegal move names the file, the line and the move.
  poppy::testing::spit(dir / "bad.kif", "手合割：平手\n手数----指手---------消費時間--\n   1 ７五歩(77)\n");
  const CmdResult bad = poppy({"records", "import", (dir / "bad.kif").string(), "--out", (dir / "bad.jsonl").string()});
  EXPECT_EQ(bad.code, 2) << bad.describe();
  EXPECT_THAT(bad.err, HasSubstr("bad.kif:3: move 1")) << bad.describe();
  EXPECT_FALSE(fs::exists(dir / "bad.jsonl"));
}

// poppy match --resume: a match stopped after 4 of 10 games goes on with the 6 it lacks, numbered
// after the games it has (colours still alternate by game number), and the summary counts all 10.
// Four players (yonin): A in one seat, B in the other three, A's seat going round; the summary
// gives A's wins, draws and share in place of an Elo difference, and the records name the seats.
TEST(CliMatch, FourPlayerMatchSeatsAInOneSeat) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "yonin");
  const std::string records = (dir / "r.jsonl").string(), summary = (dir / "s.json").string();
  const CmdResult r = poppy({"match", "--variant", "yonin", "--a", "uniform:8", "--b", "uniform:8", "--games", "8",
                             "--parallel", "8", "--ply-cap", "80", "--opening-plies", "80", "--records", records,
                             "--summary", summary});
  expectSuccess(r);
  EXPECT_THAT(r.out, HasSubstr("uniform:8 in one seat vs uniform:8 in the other 3: 8 games")) << r.describe();
  const auto s = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(s.at("games").get<int>(), 8);
  EXPECT_EQ(s.at("players").get<int>(), 4);
  EXPECT_EQ(s.at("wins_a").get<int>() + s.at("wins_b").get<int>() + s.at("draws").get<int>(), 8);
  EXPECT_NEAR(s.at("share_a").get<double>(),
              (s.at("wins_a").get<int>() + s.at("draw_points_a").get<double>()) / 8.0, 1e-9);
  EXPECT_EQ(s.at("settings").at("gumbel_actions").get<int>(), 0);  // PUCT unless --gumbel-actions
  const auto games = poppy::selfplay::readGameRecords(records);
  ASSERT_EQ(games.size(), 8u);
  std::set<std::string> seats;
  for (const auto& g : games) {
    const int number = std::stoi(g.id.substr(g.id.find_last_not_of("0123456789") + 1));
    const char* const names[] = {"south", "west", "north", "east"};
    EXPECT_THAT(g.model, HasSubstr(std::string("uniform:8 as ") + names[number % 4])) << g.id;
    seats.insert(g.model);
  }
  EXPECT_EQ(seats.size(), 4u);
  // Two-player options and players are refused by name: no engine plays yonin.
  expectCleanError(poppy({"match", "--variant", "yonin", "--a", "uniform:8", "--b", "usi:/bin/cat", "--games", "2",
                          "--records", "none", "--summary", "none"}),
                   "--b usi:/bin/cat: yonin has 4 players, which no engine plays");
  expectCleanError(poppy({"match", "--variant", "yonin", "--a", "uniform:8", "--b", "uniform:8", "--resume",
                          "--records", records}),
                   "--resume is for two-player matches (yonin has 4 players)");
}

// The yardstick of a four-player game without an engine: rollout MCTS in one seat against random
// movers in the other three (its searches of the games at once, a thread each); the summary
// names the simulations as its nodes per move.
TEST(CliMatch, FourPlayerRolloutAgainstRandomMovers) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "yonin_rollout");
  const std::string records = (dir / "r.jsonl").string(), summary = (dir / "s.json").string();
  const CmdResult r = poppy({"match", "--variant", "yonin", "--a", "rollout:20", "--b", "random", "--games", "4",
                             "--parallel", "4", "--ply-cap", "60", "--records", records, "--summary", summary});
  expectSuccess(r);
  EXPECT_THAT(r.out, HasSubstr("rollout:20 in one seat vs random in the other 3: 4 games")) << r.describe();
  const auto s = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(s.at("wins_a").get<int>() + s.at("wins_b").get<int>() + s.at("draws").get<int>(), 4);
  EXPECT_EQ(s.at("settings").at("a_nodes").get<int>(), 20);
  EXPECT_EQ(s.at("settings").at("b_nodes").get<int>(), 0);
  const auto games = poppy::selfplay::readGameRecords(records);
  ASSERT_EQ(games.size(), 4u);
  for (const auto& g : games) {
    EXPECT_THAT(g.model, HasSubstr("rollout:20 as ")) << g.id;
    EXPECT_FALSE(g.moves.empty()) << g.id;
    EXPECT_LE(g.moves.size(), 60u) << g.id;
  }
}

// Issue 39 (14): SIGTERM stops a match once the next game ends, with the summary written on the
// way out: it counts every game in the records (a stopped match once left 100 records and a
// summary of 65), and --resume plays the rest.
TEST(CliMatch, SigtermWritesTheSummaryOfEveryRecordedGame) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "sigterm_match");
  const std::string records = (dir / "r.jsonl").string(), summary = (dir / "s.json").string();
  const std::vector<std::string> args = {"match", "--a", "uniform:16", "--b", "uniform:16", "--games", "400",
                                         "--parallel", "1", "--records", records, "--summary", summary};
  const pid_t pid = poppy::testing::startChild(POPPY_BINARY, args, dir / "out.txt", dir / "err.txt");
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (poppy::testing::completeLines(records).size() < 5 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(poppy::testing::completeLines(records).size(), 5u) << slurp(dir / "err.txt");
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(dir / "err.txt");
  const std::string out = slurp(dir / "out.txt");
  EXPECT_THAT(out, HasSubstr("interrupted after ")) << out;
  EXPECT_THAT(out, HasSubstr("--resume")) << out;
  const size_t played = poppy::testing::completeLines(records).size();
  EXPECT_LT(played, 400u);
  const auto s = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(s.at("games").get<size_t>(), played) << "the summary lags the records";
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  resume[6] = std::to_string(played + 2);  // --games: two more than were played (one game at a time: ids 0..played-1)
  const CmdResult more = poppy(resume);
  expectSuccess(more);
  EXPECT_EQ(poppy::testing::completeLines(records).size(), played + 2);
  EXPECT_EQ(nlohmann::json::parse(slurp(summary)).at("games").get<size_t>(), played + 2);
}

// Issue 45: small, quasi, cubic, cannon and miburi shogi through the commands (USI in test_usi.cpp, the web page's
// variant list in test_serve.cpp): a match with records, the openings of those records, and a
// training iteration that writes its first generation.
TEST(CliSeedVariants, SeedShogiVariantsPlayThroughTheCommands) {
  for (const std::string variant : {"small", "quasi", "cubic", "cannon", "miburi", "annan", "unashogi", "hand"}) {
    SCOPED_TRACE(variant);
    const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", variant + "_commands");
    const std::string records = (dir / "games.jsonl").string();
    expectSuccess(poppy({"match", "--variant", variant, "--a", "uniform:8", "--b", "random", "--games", "2", "--ply-cap",
                         "60", "--records", records, "--summary", "none"}));
    EXPECT_EQ(poppy::testing::completeLines(records).size(), 2u);
    const CmdResult openings = poppy({"openings", "games", records, "--depth", "2"});
    expectSuccess(openings);
    EXPECT_THAT(openings.out, HasSubstr("2 games")) << openings.describe();
    std::ofstream((dir / "c.yaml").string())
        << "variant: " << variant
        << "\nnetwork: {blocks: 1, channels: 8, value_hidden: 8}\n"
           "selfplay: {games_per_iteration: 2, parallel_games: 2, playouts: 8, ply_cap: 40}\n"
           "training: {steps_per_iteration: 2, batch_size: 16, min_samples: 1, threads: 1}\n"
           "gate: {games: 0}\nrun: {iterations: 1}\n";
    const CmdResult train = poppy({"train", "--config", (dir / "c.yaml").string(), "--run-dir", (dir / "run").string()});
    expectSuccess(train);
    EXPECT_TRUE(fs::exists(dir / "run" / "models" / "gen-0001.model")) << train.describe();
  }
}

// A config with a base (`base: FILE`, common/yaml_layers.h) and --set settings trains with the
// base's settings under its own and --set's over both, and the run directory keeps the merged
// settings: config.yaml stands alone, so the run resumes, reports and feeds actors without the base.
TEST(CliTrain, ConfigWithABaseTrainsAndTheRunKeepsTheMergedSettings) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "config_base");
  poppy::testing::spit(dir / "base.yaml",
                       "variant: micro\nnetwork: {blocks: 1, channels: 8, value_hidden: 8}\n"
                       "selfplay: {games_per_iteration: 2, parallel_games: 2, playouts: 8, ply_cap: 40}\n"
                       "training: {steps_per_iteration: 2, batch_size: 16, min_samples: 1, threads: 1}\n"
                       "gate: {games: 0}\nrun: {iterations: 1}\n");
  poppy::testing::spit(dir / "child.yaml", "base: base.yaml\ntraining: {steps_per_iteration: 3}\n");
  // A bad --set is refused before the run directory is made.
  const CmdResult refused = poppy({"train", "--config", (dir / "child.yaml").string(), "--run-dir", (dir / "run").string(),
                                   "--set", "selfplay.playouts=0"});
  expectCleanError(refused, "key 'selfplay.playouts' (from --set): 0 is out of range");
  EXPECT_FALSE(fs::exists(dir / "run"));
  const CmdResult train = poppy({"train", "--config", (dir / "child.yaml").string(), "--run-dir", (dir / "run").string(),
                                 "--set", "selfplay.playouts=6", "--set", "seed=5"});
  expectSuccess(train);
  EXPECT_TRUE(fs::exists(dir / "run" / "models" / "gen-0001.model")) << train.describe();
  const YAML::Node kept = YAML::LoadFile((dir / "run" / "config.yaml").string());
  EXPECT_FALSE(kept["base"]) << "config.yaml still names its base";
  EXPECT_EQ(kept["training"]["steps_per_iteration"].as<int>(), 3);  // the child's
  EXPECT_EQ(kept["training"]["batch_size"].as<int>(), 16);          // the base's
  EXPECT_EQ(kept["selfplay"]["playouts"].as<int>(), 6);             // --set's
  EXPECT_EQ(kept["selfplay"]["ply_cap"].as<int>(), 40);             // the base's, beside it
  EXPECT_EQ(kept["seed"].as<int>(), 5);
  // The run trained the child's 3 steps: its steps event says so.
  EXPECT_THAT(slurp(dir / "run" / "train.log"), HasSubstr("train done: 3 steps")) << train.describe();
}

// A four-player training config must leave the two-player tools off; each is named.
TEST(CliTrain, FourPlayerConfigRefusesTwoPlayerSettings) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "yonin_train");
  std::string config = slurp(std::string(POPPY_SOURCE_DIR) + "/configs/train/yonin.yaml");
  const std::string key = "root_value_weight: 0";
  ASSERT_NE(config.find(key), std::string::npos);
  config.replace(config.find(key), key.size(), "root_value_weight: 0.5");
  std::ofstream((dir / "c.yaml").string()) << config;
  const CmdResult r = poppy({"train", "--config", (dir / "c.yaml").string(), "--run-dir", (dir / "run").string()});
  expectCleanError(r, "training.root_value_weight is for two players (yonin has 4 players); set it to 0");
}

// training.mirror for a variant whose game a mirror changes (tori's quails are each other's
// mirror images): refused before the run directory is made, the piece named.
TEST(CliTrain, MirrorIsRefusedWhereItWouldChangeTheGame) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "tori_mirror");
  std::ofstream((dir / "c.yaml").string()) << "variant: tori\ntraining: {mirror: true}\n";
  const CmdResult r = poppy({"train", "--config", (dir / "c.yaml").string(), "--run-dir", (dir / "run").string()});
  expectCleanError(r, "training.mirror: tori: the left quail (fRrbBlbF) does not move as its own mirror image; set it to false");
  EXPECT_FALSE(fs::exists(dir / "run"));
}

// Ctrl-C during self-play is a request to stop (common/stop_signal.h): the run saves its state,
// says how to go on and exits 0; no second signal is needed and none of its files is lost.
TEST(CliTrain, CtrlCStopsARunCleanlyAndSaysHowToGoOn) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "ctrl_c");
  const std::string config = (dir / "tiny.yaml").string(), log = (dir / "train.log").string();
  const std::string runDir = (dir / "run").string();
  std::ofstream(config) << "variant: micro\ndevice: cpu\nseed: 7\n"
                           "network: {blocks: 1, channels: 8, value_hidden: 8}\n"
                           "selfplay: {games_per_iteration: 100000, parallel_games: 8, playouts: 8, threads: 1}\n"
                           "training: {batch_size: 32, steps_per_iteration: 4, min_samples: 20, threads: 1}\n"
                           "gate: {games: 0}\nrun: {iterations: 1}\n";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the child: poppy train, its output into the log
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::execl(POPPY_BINARY, POPPY_BINARY, "train", "--config", config.c_str(), "--run-dir", runDir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Once self-play has begun (its first progress line), Ctrl-C.
  const auto waitFor = [&](const std::function<bool()>& done) {  // up to 60 s; done() called until true
    for (int i = 0; i < 600; ++i) {
      if (done()) return true;
      ::usleep(100 * 1000);
    }
    return false;
  };
  const bool started = waitFor([&] { return slurp(log).find("selfplay") != std::string::npos; });
  EXPECT_TRUE(started) << slurp(log);
  ::kill(pid, SIGINT);
  int status = 0;
  const bool ended = waitFor([&] { return ::waitpid(pid, &status, WNOHANG) == pid; });
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL() << "poppy train did not stop within 60 s of Ctrl-C:\n" << slurp(log);
  }
  ASSERT_TRUE(WIFEXITED(status)) << slurp(log);
  EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(log);
  EXPECT_THAT(slurp(log), HasSubstr("interrupted; run again with the same --run-dir to continue"));
  EXPECT_TRUE(fs::exists(fs::path(runDir) / "state.json"));
  EXPECT_TRUE(fs::exists(fs::path(runDir) / "models" / "gen-0000.model"));
}

// --tc: a clock that does not parse, a player that cannot play on one, and two time limits
// are refused by name before anything is played.
TEST(CliMatch, ClocksAreRefusedWhereTheyCannotApply) {
  const std::string engine = "usi:" + std::string(POPPY_BINARY) + " usi --model none";
  expectCleanError(poppy({"match", "--a", engine, "--b", engine, "--tc", "5q", "--records", "none", "--summary", "none"}),
                   "--tc: ");
  expectCleanError(poppy({"match", "--a", "random", "--b", engine, "--tc", "1m", "--records", "none", "--summary", "none"}),
                   "--tc: player 'random' cannot play on a clock");
  expectCleanError(poppy({"match", "--a", engine, "--b", engine, "--tc", "1m", "--movetime-b", "100", "--records", "none",
                          "--summary", "none"}),
                   "--tc and --movetime-b are two time limits");
  // xboard: players take CECP's clock, a main time and a whole-second increment: no byoyomi.
  const std::string hachu = "xboard:/usr/games/hachu";
  expectCleanError(poppy({"match", "--variant", "chu", "--a", hachu, "--b", hachu, "--tc", "1m/10s", "--records", "none",
                          "--summary", "none"}),
                   "--tc 1m/10s for player 'xboard:/usr/games/hachu': CECP's clock (level) has no byoyomi");
  expectCleanError(poppy({"match", "--variant", "chu", "--a", hachu, "--b", hachu, "--tc", "1m+0.5s", "--records", "none",
                          "--summary", "none"}),
                   "increment in whole seconds");
}

TEST(CliMatch, ResumeKeepsTheGamesPlayedAndPlaysTheRest) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "resume");
  const std::string records = (dir / "r.jsonl").string(), summary = (dir / "s.json").string();
  const std::vector<std::string> base = {"match", "--variant", "micro", "--a", "rollout:20", "--b", "random",
                                         "--records", records, "--summary", summary};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return poppy(args);
  };
  expectSuccess(with({"--games", "4"}));
  const CmdResult resumed = with({"--games", "10", "--resume"});
  expectSuccess(resumed);
  EXPECT_THAT(resumed.err, HasSubstr("resuming: 4 of 10 games already played")) << resumed.describe();
  std::set<std::string> ids;
  int even = 0;
  for (const auto& r : poppy::selfplay::readGameRecords(records)) {
    ids.insert(r.id);
    even += (r.id.back() - '0') % 2 == 0;
    EXPECT_EQ(r.model, (r.id.back() - '0') % 2 == 0 ? "rollout:20 vs random" : "random vs rollout:20") << r.id;
  }
  EXPECT_EQ(ids.size(), 10u);
  EXPECT_EQ(even, 5);
  EXPECT_THAT(slurp(summary), HasSubstr("\"games\": 10"));
  // The summary's rate counts the six games this session played, not the four it kept.
  const auto s = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(s.at("resumed_games"), 4);
  EXPECT_EQ(s.at("settings").at("leaf_mate_plies"), 1);  // the play-time defaults (mcts/play_time_search.h)
  EXPECT_EQ(s.at("settings").at("root_mate_plies"), 5);
  EXPECT_NEAR(s.at("games_per_hour").get<double>(), 6 * 3600.0 / s.at("seconds").get<double>(), 1e-6);
  // Nothing left to play: the summary stays; other players are refused by name.
  expectSuccess(with({"--games", "10", "--resume"}));
  const CmdResult other = poppy({"match", "--variant", "micro", "--a", "rollout:30", "--b", "random", "--games", "10",
                                 "--records", records, "--resume"});
  EXPECT_EQ(other.code, 2) << other.describe();
  EXPECT_THAT(other.err, HasSubstr("not this match")) << other.describe();
  // The mate searches of the big variants' configs (leaf 1, root 3) and the search's root
  // (--gumbel-actions) reach the summary; a leaf search of 2 plies (mates are odd) and a
  // negative number of Gumbel moves are refused.
  const std::string small = (dir / "small.json").string();
  expectSuccess(poppy({"match", "--variant", "micro", "--a", "uniform:8", "--b", "random", "--games", "2",
                       "--leaf-mate-plies", "1", "--root-mate-plies", "3", "--gumbel-actions", "4", "--summary",
                       small, "--records", "none"}));
  const auto settings = nlohmann::json::parse(slurp(small)).at("settings");
  EXPECT_EQ(settings.at("leaf_mate_plies"), 1);
  EXPECT_EQ(settings.at("root_mate_plies"), 3);
  EXPECT_EQ(settings.at("gumbel_actions"), 4);
  EXPECT_EQ(settings.at("opening_plies"), 2);  // the default, which Gumbel's root makes moot
  const CmdResult negativeGumbel = poppy({"match", "--variant", "micro", "--a", "uniform:8", "--b", "random",
                                          "--gumbel-actions", "-1"});
  EXPECT_EQ(negativeGumbel.code, 2) << negativeGumbel.describe();
  EXPECT_THAT(negativeGumbel.err, HasSubstr("--gumbel-actions")) << negativeGumbel.describe();
  const CmdResult twoPlies = poppy({"match", "--variant", "micro", "--a", "uniform:8", "--b", "random", "--games", "2",
                                "--leaf-mate-plies", "2"});
  EXPECT_EQ(twoPlies.code, 2) << twoPlies.describe();
  EXPECT_THAT(twoPlies.err, HasSubstr("--leaf-mate-plies")) << twoPlies.describe();
  // The same declared settings on `usi` (mcts/search_options.h): refused with the flag named.
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--leaves-per-tree", "0"}, {"--cpuct", "0"}, {"--policy-temperature", "x"}}) {
    const CmdResult usi = poppy({"usi", flag, value});
    EXPECT_EQ(usi.code, 2) << usi.describe();
    EXPECT_THAT(usi.err, HasSubstr(flag)) << usi.describe();
  }
}

// poppy tournament: every pair plays its match into the folder, the table ranks the players,
// tournament.json has each pair's points from its match summary; run again, nothing is replayed.
TEST(Tournament, EveryPairPlaysOnceAndTheTableAddsUp) {
  const fs::path dir = poppy::testing::freshTempDir("poppy_test_cli_", "tournament");
  const std::vector<std::string> args = {"tournament", "--player", "random", "--player", "rollout:8", "--player",
                                         "random", "--games", "2", "--parallel", "2", "--out", dir.string()};
  const CmdResult first = poppy(args);
  ASSERT_EQ(first.code, 0) << first.describe();
  EXPECT_THAT(first.out, HasSubstr("rank player"));
  const nlohmann::json t = nlohmann::json::parse(poppy::testing::slurp(dir / "tournament.json"));
  ASSERT_EQ(t.at("pairs").size(), 3u);
  ASSERT_EQ(t.at("players").size(), 3u);
  EXPECT_EQ(t.at("players")[2].at("name"), "random-3") << "two players of one name are told apart";
  EXPECT_DOUBLE_EQ(t.at("players")[0].at("elo").get<double>(), 0.0);
  for (const auto& pair : t.at("pairs")) {
    EXPECT_EQ(pair.at("games"), 2);
    const nlohmann::json m = nlohmann::json::parse(poppy::testing::slurp(pair.at("summary").get<std::string>()));
    EXPECT_DOUBLE_EQ(pair.at("points_a").get<double>(), m.at("wins").get<int>() + 0.5 * m.at("draws").get<int>());
  }
  const CmdResult again = poppy(args);
  ASSERT_EQ(again.code, 0) << again.describe();
  EXPECT_THAT(again.err, HasSubstr("pair 3 of 3 (rollout8 against random-3): already played")) << again.err;
  EXPECT_THAT(again.err, Not(HasSubstr("of 3: "))) << "a finished pair is not played again";
  const CmdResult one = poppy({"tournament", "--player", "random", "--out", dir.string()});
  EXPECT_EQ(one.code, 2) << one.describe();
  EXPECT_THAT(one.err, HasSubstr("at least two players"));
  fs::remove_all(dir);
}

TEST(CliErrors, UsageErrorsExitWithTwo) {
  // CLI11's own codes (104 for a bad number, 105 for a failed check, 109 for an unknown option)
  // are all usage errors: one exit code, 2, for every command.
  for (const auto& args : std::vector<std::vector<std::string>>{{"train", "--iterations", "abc"},
                                                                 {"perft", "--depth", "-3"},
                                                                 {"match", "--a", "random", "--b", "random", "--nosuch"}}) {
    const CmdResult r = poppy(args);
    EXPECT_EQ(r.code, 2) << r.describe();
    EXPECT_FALSE(r.err.empty()) << r.describe();
  }
  EXPECT_EQ(poppy({"perft", "--help"}).code, 0);
}

// scripts/setup.sh --play installs what the poppy command needs and builds no tests; the full
// set-up adds the tests' packages. Its --dry-run says which packages and which build, and stops.
// `cmake --install`: PREFIX/bin/poppy with its network module and the GUI links, the data in
// PREFIX/share/poppy, which the installed command reads before the source tree (a variant that
// only the installed copy has is found by it, not by the build's poppy).
TEST(Install, TheInstalledCommandReadsItsOwnData) {
  const fs::path prefix = poppy::testing::freshTempDir("poppy_test_cli_", "install");
  const std::string build = fs::path(POPPY_BINARY).parent_path().string();
  const std::string cmd = "cmake --install " + poppy::testing::shellQuote(build) + " --prefix " +
                          poppy::testing::shellQuote(prefix.string()) + " > /dev/null 2>&1";
  ASSERT_EQ(poppy::testing::exitCodeOf(std::system(cmd.c_str())), 0) << cmd;
  for (const char* file : {"bin/poppy", "bin/libpoppy_network.so", "share/poppy/models/shipped.yaml",
                           "share/poppy/configs/variants/micro.yaml", "share/poppy/web/index.html",
                           "share/poppy/scripts/poppy_model.py"})
    EXPECT_TRUE(fs::exists(prefix / file)) << file;
  EXPECT_EQ(fs::read_symlink(prefix / "bin/poppy-usi"), "poppy");
  // A variant only the installed data has.
  std::string micro = poppy::testing::slurp(prefix / "share/poppy/configs/variants/micro.yaml");
  micro.replace(micro.find("name: micro"), 11, "name: installedmicro");
  poppy::testing::spit(prefix / "share/poppy/configs/variants/installedmicro.yaml", micro);
  const std::string installed = (prefix / "bin/poppy").string();
  const std::string perft = " perft --variant installedmicro --depth 2 2>&1";
  FILE* p = popen(("cd / && " + poppy::testing::shellQuote(installed) + perft).c_str(), "r");
  std::string out;
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_EQ(p ? poppy::testing::exitCodeOf(pclose(p)) : -1, 0) << out;
  EXPECT_THAT(out, HasSubstr("Nodes searched"));
  const CmdResult fromBuild = poppy({"perft", "--variant", "installedmicro", "--depth", "2"});
  EXPECT_NE(fromBuild.code, 0) << "the build's poppy reads the source tree, not the installed copy";
  // Its shipped models are the installed ones.
  FILE* usi = popen(("cd / && printf 'quit\\n' | " + poppy::testing::shellQuote(installed) + " usi 2>&1").c_str(), "r");
  std::string said;
  while (usi && std::fgets(buf, sizeof buf, usi)) said += buf;
  if (usi) pclose(usi);
  // micro's entry of the shipped list ("micro: micro/FILE.model"), under the prefix.
  const std::string shipped = poppy::testing::slurp(fs::path(POPPY_SOURCE_DIR) / "models/shipped.yaml");
  const size_t at = shipped.find("\nmicro: ");
  ASSERT_NE(at, std::string::npos) << shipped;
  const std::string microModel = shipped.substr(at + 8, shipped.find('\n', at + 1) - at - 8);
  EXPECT_THAT(said, HasSubstr((prefix / "share/poppy/models" / microModel).string())) << said;
  fs::remove_all(prefix);
}

TEST(SetupScript, PlayOnlyLeavesOutTheTestsAndTheirReferences) {
  auto run = [](const std::string& args) {
    const std::string cmd = "timeout -k 5 60 " + std::string(POPPY_SOURCE_DIR) + "/scripts/setup.sh " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string text;
    char buf[512];
    while (p && std::fgets(buf, sizeof buf, p)) text += buf;
    const int code = p ? poppy::testing::exitCodeOf(pclose(p)) : -1;
    return std::pair{code, text};
  };
  const auto [playCode, play] = run("--play --dry-run");
  ASSERT_EQ(playCode, 0) << play;
  const std::string playPackages = play.substr(0, play.find('\n'));
  for (const char* needed : {"libtorch-dev", "libyaml-cpp-dev", "libcli11-dev", "libcpp-httplib-dev"})
    EXPECT_THAT(playPackages, HasSubstr(needed)) << play;
  for (const char* testOnly : {"libgtest-dev", "fairy-stockfish", "hachu", "chromium", "nodejs", "clang", "openmpi",
                               "python3-torch", "python3-zstandard"})
    EXPECT_THAT(playPackages, Not(HasSubstr(testOnly))) << play;
  EXPECT_THAT(play, HasSubstr("-DPOPPY_BUILD_TESTS=OFF"));
  EXPECT_THAT(play, Not(HasSubstr("npm references")));

  const auto [fullCode, full] = run("--dry-run");
  ASSERT_EQ(fullCode, 0) << full;
  for (const char* package : {"libtorch-dev", "libgtest-dev", "fairy-stockfish", "hachu", "chromium", "python3-torch",
                              "python3-onnx", "python3-numpy", "python3-zstandard", "python3-xxhash"})
    EXPECT_THAT(full.substr(0, full.find('\n')), HasSubstr(package)) << full;
  EXPECT_THAT(full, Not(HasSubstr("POPPY_BUILD_TESTS=OFF")));

  const auto [badCode, bad] = run("--bogus");
  EXPECT_EQ(badCode, 2);
  EXPECT_THAT(bad, HasSubstr("unknown option '--bogus'"));
}

}  // namespace
