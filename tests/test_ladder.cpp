// `poppy ladder`: rungs (parsing and errors), its JSON, table and chart on a hand-made result,
// and the command end to end on a tiny budget against the real Fairy-Stockfish (micro shogi in
// Fairy-Stockfish's notation), with its errors for a missing engine, an engine that does not
// know the variant, an output directory that already holds a ladder, and an engine that forfeits
// every game of a rung.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "game/variant_loader.h"
#include "report/ladder_report.h"
#include "selfplay/game_record.h"
#include "support/fairy_stockfish.h"
#include "support/scratch_files.h"
#include "support/script_engine.h"
#include "support/xml_check.h"

using namespace poppy;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
namespace pt = poppy::testing;

namespace {

const char* kPrefix = "poppy_ladder_test_";
::testing::Environment* const kCleanup = pt::removeScratchRootAtExit(kPrefix);

TEST(LadderRungs, ParseNodesAndMovetime) {
  const auto r = report::parseRungs("nodes:100, nodes:1000,movetime:50,movetime", 200);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].nodes, 100);
  EXPECT_EQ(r[0].movetimeMs, 0);
  EXPECT_EQ(r[1].name(), "nodes:1000");
  EXPECT_EQ(r[1].fileStem(), "nodes1000");
  EXPECT_EQ(r[2].movetimeMs, 50);
  EXPECT_EQ(r[3].name(), "movetime:200");  // bare movetime: the player's
  for (const char* bad : {"", "nodes:", "nodes:0", "nodes:12x", "depth:0", "depth:101", "ply:3", "nodes:100,,movetime",
                          "nodes:5,nodes:5", "movetime:-1"}) {
    EXPECT_THROW(report::parseRungs(bad, 200), std::invalid_argument) << bad;
  }
  try {
    report::parseRungs("nodes:100,ply:3", 200);
    FAIL() << "ply:3 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("ply:3"));
  }
  // An XBoard engine's depth (sd N).
  const auto d = report::parseRungs("depth:1,depth:3", 200);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].depth, 3);
  EXPECT_EQ(d[1].name(), "depth:3");
  EXPECT_EQ(d[1].fileStem(), "depth3");
}

selfplay::MatchResult result(int wins, int draws, int losses) {
  selfplay::MatchResult r;
  for (int i = 0; i < wins + draws + losses; ++i) {
    selfplay::GameRecord g;
    const bool aSente = i % 2 == 0;
    const int outcome = i < wins ? 1 : i < wins + draws ? 0 : -1;
    g.result = outcome == 0 ? "draw" : (outcome > 0) == aSente ? "sente" : "gote";
    g.reason = "checkmate";
    g.plies = 30;
    if (outcome < 0 && i == wins + draws) g.reason = "timeout", g.detail = "the player ran out of time";
    r.records.push_back(g);
    r.aWasSente.push_back(aSente);
    (outcome > 0 ? r.winsA : outcome < 0 ? r.lossesA : r.draws)++;
  }
  return r;
}

TEST(LadderReport, JsonTableAndChart) {
  report::LadderInfo info;
  info.variant = "micro";
  info.player = "rollout:300";
  info.engineName = "Fairy-Stockfish <test> & co";
  info.rungs = report::parseRungs("nodes:100,movetime:200", 200);
  std::vector<report::LadderRungResult> rungs(2);
  rungs[0].rung = info.rungs[0];
  rungs[0].result = result(6, 2, 2);
  rungs[0].finished = true;
  rungs[1].rung = info.rungs[1];
  rungs[1].result = result(0, 0, 10);
  const auto j = report::ladderJson(info, rungs, false);
  EXPECT_EQ(j["format"], "poppy-ladder");
  EXPECT_EQ(j["finished"], false);
  EXPECT_EQ(j["rungs_planned"].size(), 2u);
  const auto& a = j["rungs"][0];
  EXPECT_EQ(a["rung"], "nodes:100");
  EXPECT_EQ(a["games"], 10);
  EXPECT_DOUBLE_EQ(a["score"].get<double>(), 0.7);
  EXPECT_LT(a["score_low"].get<double>(), 0.7);
  EXPECT_GT(a["score_high"].get<double>(), 0.7);
  EXPECT_LT(a["elo_low"].get<double>(), a["elo"].get<double>());
  EXPECT_GT(a["elo_high"].get<double>(), a["elo"].get<double>());
  EXPECT_EQ(a["forfeits"]["player"]["timeout"], 1);  // the first loss: the player's forfeit
  EXPECT_EQ(a["forfeits"]["engine"].size(), 0u);
  const auto& b = j["rungs"][1];
  EXPECT_EQ(b["forfeits"]["player"]["timeout"], 1);
  EXPECT_DOUBLE_EQ(b["score_low"].get<double>(), 0.0);
  EXPECT_GT(b["score_high"].get<double>(), 0.0);  // Wilson: finite and above 0 at a 0% score

  const std::string table = report::ladderTable(rungs);
  EXPECT_THAT(table, HasSubstr("nodes:100"));
  EXPECT_THAT(table, HasSubstr("0.700"));
  EXPECT_THAT(table, HasSubstr("1 (timeout 1) / 0"));

  const std::string svg = report::ladderSvg(info, rungs);
  EXPECT_EQ(pt::xmlProblem(svg), "") << svg;
  EXPECT_THAT(svg, HasSubstr("&lt;test&gt; &amp; co"));
  EXPECT_THAT(svg, HasSubstr("class=\"error-bar\""));
  EXPECT_EQ(svg, report::ladderSvg(info, rungs));
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
fs::path tempDir(const std::string& name) { return pt::freshTempDir(kPrefix, name); }

std::string poppyCommand(const fs::path& dir, const std::string& args, const std::string& name) {
  return "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " + pt::shellQuote(POPPY_BINARY) + " ladder " +
         args + " >" + name + ".out 2>" + name + ".err";
}

// Two rungs of two games, the rollout player counting simulations (so the rungs run in
// parallel) against the real Fairy-Stockfish (the default engine) on micro shogi.
TEST(LadderCli, RunsEndToEndAgainstFairyStockfish) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good()) << pt::FairyStockfish::kPath << " is missing";
  const fs::path dir = tempDir("cli");
  const int code = pt::exitCodeOf(std::system(
      poppyCommand(dir,
                   "--player rollout --playouts 50 --rungs nodes:10,nodes:30 --games 2 --engine-option Hash=1 --out out",
                   "run")
          .c_str()));
  const std::string err = pt::slurp(dir / "run.err"), out = pt::slurp(dir / "run.out");
  ASSERT_EQ(code, 0) << err << out;
  EXPECT_THAT(err, HasSubstr("Fairy-Stockfish"));
  EXPECT_THAT(err, HasSubstr("fairy notation"));
  EXPECT_THAT(err, HasSubstr("2/2 games"));
  EXPECT_THAT(out, HasSubstr("nodes:10 "));
  EXPECT_THAT(out, HasSubstr("nodes:30 "));
  const auto j = nlohmann::json::parse(pt::slurp(dir / "out/ladder.json"));
  EXPECT_EQ(j["finished"], true);
  EXPECT_EQ(j["engine"]["notation"], "fairy");
  // The default engine, fairy-stockfish, found on the PATH or in /usr/games.
  EXPECT_THAT(j["engine"]["command"].get<std::string>(), ::testing::EndsWith("fairy-stockfish"));
  EXPECT_EQ(j["engine"]["options"]["Hash"], "1");
  EXPECT_EQ(j["openings_count"].get<int>() > 0, true);  // configs/openings/micro.txt by default
  ASSERT_EQ(j["rungs"].size(), 2u);
  const auto variant = game::loadVariant("micro");
  for (const auto& rung : j["rungs"]) {
    EXPECT_EQ(rung["games"], 2);
    EXPECT_EQ(rung["one_game_at_a_time"], false);
    EXPECT_EQ(rung["wins"].get<int>() + rung["draws"].get<int>() + rung["losses"].get<int>(), 2);
    EXPECT_EQ(rung["forfeits"]["engine"].size(), 0u) << rung.dump();
    EXPECT_EQ(rung["forfeits"]["player"].size(), 0u) << rung.dump();
    const auto file = selfplay::readGameRecordFile((dir / "out" / rung["records"].get<std::string>()).string());
    ASSERT_EQ(file.records.size(), 2u);
    for (const auto& rec : file.records) {
      game::Position pos = game::Position::fromSfen(variant, rec.start);
      for (const std::string& m : rec.moves) ASSERT_NO_THROW(pos.makeMove(pos.parseUsi(m))) << m;
      EXPECT_TRUE(pos.outcome(200).over()) << rec.reason << " " << rec.detail;
    }
  }
  const std::string svg = pt::slurp(dir / "out/ladder.svg");
  EXPECT_EQ(pt::xmlProblem(svg), "") << svg;
  EXPECT_THAT(svg, HasSubstr("nodes:30"));

  // The same directory again: refused, nothing overwritten.
  const int again = pt::exitCodeOf(std::system(
      poppyCommand(dir, "--player random --rungs nodes:10 --games 2 --out out", "again").c_str()));
  EXPECT_EQ(again, 2);
  EXPECT_THAT(pt::slurp(dir / "again.err"), HasSubstr("already holds a ladder"));
  fs::remove_all(dir);
}

// Without --variant the ladder plays --model's variant (as usi, play and serve do): the shipped
// minishogi model against Fairy-Stockfish plays minishogi, its default book included
// (configs/openings/minishogi.txt), not micro's.
TEST(LadderCli, TakesTheModelsVariant) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good()) << pt::FairyStockfish::kPath << " is missing";
  const fs::path dir = tempDir("modelvariant");
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/minishogi/minishogi-1h.model";
  const int code = pt::exitCodeOf(std::system(
      poppyCommand(dir, "--model " + pt::shellQuote(model) + " --playouts 16 --rungs nodes:10 --games 2 --out out",
                   "run")
          .c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "run.err") << pt::slurp(dir / "run.out");
  const auto j = nlohmann::json::parse(pt::slurp(dir / "out/ladder.json"));
  EXPECT_EQ(j["variant"], "minishogi");
  EXPECT_GT(j["openings_count"].get<int>(), 0);
  const auto file = selfplay::readGameRecordFile((dir / "out" / j["rungs"][0]["records"].get<std::string>()).string());
  ASSERT_EQ(file.records.size(), 2u);
  const auto variant = game::loadVariant("minishogi");
  for (const auto& rec : file.records) {
    game::Position pos = game::Position::fromSfen(variant, rec.start);
    for (const std::string& m : rec.moves) ASSERT_NO_THROW(pos.makeMove(pos.parseUsi(m))) << m;
  }
  fs::remove_all(dir);
}

// HaChu (an XBoard engine) at depths 1 and 2 on chu, two games a rung, the random player.
TEST(LadderCli, RunsAgainstAnXboardEngine) {
  ASSERT_TRUE(fs::exists("/usr/games/hachu")) << "/usr/games/hachu is missing: scripts/setup.sh installs hachu";
  const fs::path dir = tempDir("xboard");
  const int code = pt::exitCodeOf(std::system(
      poppyCommand(dir, "--player random --variant chu --engine xboard:hachu --rungs depth:1,depth:2 --games 2 "
                        "--ply-cap 40 --out out",
                   "run")
          .c_str()));
  const std::string err = pt::slurp(dir / "run.err");
  ASSERT_EQ(code, 0) << err << pt::slurp(dir / "run.out");
  EXPECT_THAT(err, HasSubstr("HaChu"));
  EXPECT_THAT(err, HasSubstr("engine: sd 2"));
  const auto j = nlohmann::json::parse(pt::slurp(dir / "out/ladder.json"));
  EXPECT_EQ(j["engine"]["notation"], "xboard");
  ASSERT_EQ(j["rungs"].size(), 2u);
  EXPECT_EQ(j["rungs"][1]["rung"], "depth:2");
  EXPECT_EQ(j["rungs"][1]["engine_depth"], 2);
  for (const auto& rung : j["rungs"]) {
    EXPECT_EQ(rung["games"], 2);
    EXPECT_EQ(rung["forfeits"]["engine"].size(), 0u) << rung.dump();
  }
  // Without --rungs an XBoard engine gets depths 1, 2 and 3 (one game each here).
  const int defaults = pt::exitCodeOf(std::system(
      poppyCommand(dir, "--player random --variant chu --engine xboard:hachu --games 1 --ply-cap 10 --out d", "defaults")
          .c_str()));
  ASSERT_EQ(defaults, 0) << pt::slurp(dir / "defaults.err");
  const auto dj = nlohmann::json::parse(pt::slurp(dir / "d/ladder.json"));
  EXPECT_EQ(dj["rungs_planned"], nlohmann::json::array({"depth:1", "depth:2", "depth:3"}));
  // Node rungs mean nothing to an XBoard engine.
  const int nodes = pt::exitCodeOf(std::system(
      poppyCommand(dir, "--player random --variant chu --engine xboard:hachu --rungs nodes:100 --out n", "nodes").c_str()));
  EXPECT_EQ(nodes, 2);
  EXPECT_THAT(pt::slurp(dir / "nodes.err"), HasSubstr("no node limit"));
  fs::remove_all(dir);
}

TEST(LadderCli, BadEnginesAreClearErrors) {
  const fs::path dir = tempDir("errors");
  // No such engine: exit 2 naming the command.
  int code = pt::exitCodeOf(std::system(
      poppyCommand(dir, "--player random --games 2 --engine /nonexistent/engine --out a", "missing").c_str()));
  EXPECT_EQ(code, 2);
  EXPECT_THAT(pt::slurp(dir / "missing.err"), HasSubstr("poppy: error:"));
  EXPECT_THAT(pt::slurp(dir / "missing.err"), HasSubstr("/nonexistent/engine"));
  // Fairy-Stockfish 11.1 has no tori shogi.
  code = pt::exitCodeOf(std::system(poppyCommand(dir,
                                                 "--player random --variant tori --games 2 --engine " +
                                                     pt::shellQuote(pt::FairyStockfish::kPath) + " --out b",
                                                 "variant")
                                        .c_str()));
  EXPECT_EQ(code, 2);
  EXPECT_THAT(pt::slurp(dir / "variant.err"), HasSubstr("does not know the variant 'torishogi' (Poppy's tori)"));
  // Bad rungs and a missing player.
  code = pt::exitCodeOf(std::system(poppyCommand(dir, "--player random --rungs depth:3 --out c", "rungs").c_str()));
  EXPECT_EQ(code, 2);
  EXPECT_THAT(pt::slurp(dir / "rungs.err"), HasSubstr("depth:3"));
  code = pt::exitCodeOf(std::system(poppyCommand(dir, "--games 2 --out d", "noplayer").c_str()));
  EXPECT_EQ(code, 2);
  EXPECT_THAT(pt::slurp(dir / "noplayer.err"), HasSubstr("--model"));
  fs::remove_all(dir);
}

// An engine whose every answer is illegal (it plays some other game) forfeits every game of the
// first rung: the ladder stops there with exit 2, naming the first forfeit, and ladder.json keeps
// that one rung instead of climbing on with the same empty result.
TEST(LadderCli, ARungLostEntirelyToForfeitsStopsTheLadder) {
  const fs::path dir = tempDir("forfeits");
  const fs::path engine = pt::scriptEngine(dir, "broken.sh", "echo 'bestmove 1a1a'");
  const int code = pt::exitCodeOf(std::system(
      poppyCommand(dir,
                   "--player random --engine " + pt::shellQuote(engine.string()) +
                       " --rungs nodes:10,nodes:30 --games 2 --out out",
                   "broken")
          .c_str()));
  EXPECT_EQ(code, 2);
  const std::string err = pt::slurp(dir / "broken.err");
  EXPECT_THAT(err, HasSubstr("every game ended by a forfeit"));
  EXPECT_THAT(err, HasSubstr("1a1a"));
  std::ifstream in(dir / "out" / "ladder.json");
  ASSERT_TRUE(in.good()) << "no ladder.json";
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j.at("rungs").size(), 1u) << j.dump();
  fs::remove_all(dir);
}

#endif  // POPPY_BINARY

}  // namespace
