// play::openingStats and `poppy openings games`: the most played opening lines of a run's
// self-play records, per generation, with their results, on hand-written records whose counts
// are known.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "play/openings/opening_stats.h"
#include "selfplay/game_record.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

using testing::freshTempDir;
using testing::shellQuote;
using testing::slurp;

const ::testing::Environment* const kCleanup = testing::removeScratchRootAtExit("poppy_stats_test_");

const char* kStart = "kbgs/p3/4/3P/SGBK b - 1";

selfplay::GameRecord game(const std::string& model, const std::vector<std::string>& moves, const std::string& result,
                          const std::string& start = kStart) {
  static int serial = 0;
  selfplay::GameRecord r;
  r.id = std::to_string(++serial);
  r.variant = "micro";
  r.start = start;
  r.moves = moves;
  r.result = result;
  r.reason = result == "draw" ? "repetition" : "checkmate";
  r.plies = int(moves.size());
  r.model = model;
  return r;
}

// gen-0010 plays first in the file so that the order of groups has to come from the numbers.
// gen-0002: line A (a1 a2) 3 times: sente, sente, draw; line B (b1 b2) once: gote;
//           a game of one ply (a1): draw.
// gen-0010: line A twice: gote, gote; line C (c1 c2) 4 times: sente x3, draw.
// "mine.model" (a name from `poppy selfplay --model`): line A once, sente.
std::vector<selfplay::GameRecord> handWritten() {
  return {
      game("gen-0010", {"c1", "c2", "x"}, "sente"),      game("gen-0010", {"c1", "c2", "y", "z"}, "sente"),
      game("gen-0010", {"a1", "a2", "x", "w"}, "gote"),  game("gen-0002", {"a1", "a2", "q"}, "sente"),
      game("gen-0002", {"b1", "b2", "q"}, "gote"),       game("gen-0002", {"a1", "a2"}, "sente"),
      game("mine.model", {"a1", "a2", "r"}, "sente"),    game("gen-0002", {"a1", "a2", "p", "p"}, "draw"),
      game("gen-0010", {"c1", "c2"}, "sente"),           game("gen-0010", {"c1", "c2", "c3"}, "draw"),
      game("gen-0010", {"a1", "a2", "c3"}, "gote"),      game("gen-0002", {"a1"}, "draw"),
  };
}

using Moves = std::vector<std::string>;

TEST(OpeningStats, CountsLinesPerGeneration) {
  const play::OpeningStats s = play::openingStats(handWritten(), 2, 10, true);
  EXPECT_EQ(s.games, 12);
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[0].model, "gen-0002");
  EXPECT_EQ(s.groups[1].model, "gen-0010");
  EXPECT_EQ(s.groups[2].model, "mine.model");

  const play::OpeningGroup& g2 = s.groups[0];
  EXPECT_EQ(g2.games, 5);
  EXPECT_EQ(g2.distinctLines, 3);
  EXPECT_EQ(g2.senteWins, 2);
  EXPECT_EQ(g2.draws, 2);
  EXPECT_EQ(g2.goteWins, 1);
  ASSERT_EQ(g2.lines.size(), 3u);
  EXPECT_EQ(g2.lines[0].moves, (Moves{"a1", "a2"}));
  EXPECT_EQ(g2.lines[0].games, 3);
  EXPECT_EQ(g2.lines[0].senteWins, 2);
  EXPECT_EQ(g2.lines[0].draws, 1);
  EXPECT_EQ(g2.lines[0].goteWins, 0);
  EXPECT_DOUBLE_EQ(g2.lines[0].senteScore(), 2.5 / 3);
  // Ties (one game each) in the order of their moves.
  EXPECT_EQ(g2.lines[1].moves, (Moves{"a1"}));
  EXPECT_EQ(g2.lines[1].draws, 1);
  EXPECT_EQ(g2.lines[2].moves, (Moves{"b1", "b2"}));
  EXPECT_EQ(g2.lines[2].goteWins, 1);

  const play::OpeningGroup& g10 = s.groups[1];
  EXPECT_EQ(g10.games, 6);
  ASSERT_EQ(g10.lines.size(), 2u);
  EXPECT_EQ(g10.lines[0].moves, (Moves{"c1", "c2"}));
  EXPECT_EQ(g10.lines[0].games, 4);
  EXPECT_EQ(g10.lines[0].senteWins, 3);
  EXPECT_EQ(g10.lines[0].draws, 1);
  EXPECT_EQ(g10.lines[1].moves, (Moves{"a1", "a2"}));
  EXPECT_EQ(g10.lines[1].goteWins, 2);
  EXPECT_DOUBLE_EQ(g10.lines[1].senteScore(), 0.0);

  EXPECT_EQ(s.groups[2].games, 1);
  EXPECT_EQ(s.groups[2].lines[0].senteWins, 1);
}

TEST(OpeningStats, AllTogetherDeeperAndTop) {
  // Depth 1, all games in one group: a1 7 times (the one-ply game included), c1 4, b1 once.
  play::OpeningStats s = play::openingStats(handWritten(), 1, 10, false);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].model, "all");
  EXPECT_EQ(s.groups[0].games, 12);
  ASSERT_EQ(s.groups[0].lines.size(), 3u);
  EXPECT_EQ(s.groups[0].lines[0].moves, (Moves{"a1"}));
  EXPECT_EQ(s.groups[0].lines[0].games, 7);
  EXPECT_EQ(s.groups[0].lines[1].moves, (Moves{"c1"}));
  EXPECT_EQ(s.groups[0].lines[1].games, 4);
  EXPECT_EQ(s.groups[0].lines[2].games, 1);

  // --top 1 keeps the most played line but still counts every line.
  s = play::openingStats(handWritten(), 1, 1, false);
  ASSERT_EQ(s.groups[0].lines.size(), 1u);
  EXPECT_EQ(s.groups[0].distinctLines, 3);

  // Depth 3 separates games by their third ply; games shorter than that keep what they have.
  s = play::openingStats(handWritten(), 3, 100, false);
  int64_t total = 0;
  for (const auto& l : s.groups[0].lines) {
    total += l.games;
    EXPECT_LE(l.moves.size(), 3u);
  }
  EXPECT_EQ(total, 12);
  // a1 a2 {x, q, -, r, p, c3}, a1, b1 b2 q, c1 c2 {x, y, -, c3}.
  EXPECT_EQ(s.groups[0].distinctLines, 12);

  EXPECT_THROW(play::openingStats(handWritten(), 0, 10, false), std::invalid_argument);
  EXPECT_THROW(play::openingStats(handWritten(), 2, 0, false), std::invalid_argument);
  EXPECT_EQ(play::openingStats({}, 2, 10, true).groups.size(), 0u);
}

TEST(OpeningStats, LinesFromAnotherStartAreApart) {
  auto records = handWritten();
  records.push_back(game("gen-0002", {"a1", "a2"}, "gote", "kbgs/p3/4/3P/SGBK w - 1"));
  const play::OpeningStats s = play::openingStats(records, 2, 10, true);
  ASSERT_EQ(s.groups[0].lines.size(), 4u);
  EXPECT_EQ(s.groups[0].lines[0].games, 3);  // not merged with the gote-to-move game
  const std::string text = play::openingStatsText(s);
  EXPECT_NE(text.find("[from kbgs/p3/4/3P/SGBK w - 1]"), std::string::npos) << text;
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
struct CmdRun {
  int code = -1;
  std::string out, err;
};

CmdRun poppy(const std::string& args, const std::filesystem::path& dir) {
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const std::string cmd = "timeout -k 5 60 " + shellQuote(POPPY_BINARY) + " " + args + " </dev/null >" +
                          shellQuote(out) + " 2>" + shellQuote(err);
  CmdRun r;
  r.code = testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

TEST(OpeningsGamesCommand, ReadsARunDirectory) {
  const auto dir = freshTempDir("poppy_stats_test_", "run");
  selfplay::appendGameRecords((dir / "games.jsonl").string(), handWritten());
  CmdRun r = poppy("openings games " + shellQuote(dir.string()) + " --depth 2 --by-generation --format json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "poppy-opening-stats");
  EXPECT_EQ(j["games"], 12);
  ASSERT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["groups"][0]["model"], "gen-0002");
  EXPECT_EQ(j["groups"][0]["lines"][0]["moves"], nlohmann::json({"a1", "a2"}));
  EXPECT_EQ(j["groups"][0]["lines"][0]["games"], 3);
  EXPECT_EQ(j["groups"][0]["lines"][0]["sente_wins"], 2);
  EXPECT_EQ(j["groups"][1]["lines"][0]["moves"], nlohmann::json({"c1", "c2"}));
  EXPECT_EQ(j["groups"][1]["lines"][0]["games"], 4);

  r = poppy("openings games " + shellQuote(dir.string()) + " --depth 2 --top 1", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("a1 a2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("c1 c2"), std::string::npos) << r.out;  // --top 1

  // Errors: a directory without games.jsonl, a missing path, mixed variants.
  const auto empty = freshTempDir("poppy_stats_test_", "empty");
  r = poppy("openings games " + shellQuote(empty.string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("has no games.jsonl"), std::string::npos) << r.err;
  r = poppy("openings games " + shellQuote((dir / "nowhere").string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
  auto mixed = handWritten();
  mixed[3].variant = "minishogi";
  selfplay::appendGameRecords((empty / "games.jsonl").string(), mixed);
  r = poppy("openings games " + shellQuote(empty.string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("mix variants"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(empty);
}

#endif  // POPPY_BINARY

}  // namespace
}  // namespace poppy
