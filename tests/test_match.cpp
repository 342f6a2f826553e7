// Matches (selfplay/match.h) with Poppy players and with external USI engines (play/engines/usi_client.h):
// scores, colour alternation, openings, records that replay legally, forfeits of broken engines
// (garbage, illegal moves, crashes, hangs), Fairy-Stockfish as a real opponent, and `poppy match`
// end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "common/game_clock.h"
#include "mcts/evaluator.h"
#include "game/variant_loader.h"
#include "play/openings/match_openings.h"
#include "report/match_report.h"
#include "play/engines/usi_client.h"
#include "play/engines/usi_notation.h"
#include "selfplay/match.h"
#include "support/fairy_stockfish.h"
#include "support/scratch_files.h"
#include "support/script_engine.h"

using namespace poppy;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;
namespace pt = poppy::testing;

namespace {

const char* kPrefix = "poppy_match_test_";
::testing::Environment* const kCleanup = pt::removeScratchRootAtExit(kPrefix);

fs::path tempDir(const std::string& name) { return pt::freshTempDir(kPrefix, name); }

// Replays a record with Poppy's rules: every move must be legal, the game must end exactly at
// its last move (or, for a forfeit, go on), and the result must be what the rules say.
void expectRecordReplays(const selfplay::GameRecord& r, const game::VariantPtr& v, int plyCap) {
  SCOPED_TRACE(r.id + " " + r.reason);
  game::Position pos = game::Position::fromSfen(v, r.start);
  for (size_t i = 0; i < r.moves.size(); ++i) {
    ASSERT_FALSE(pos.outcome(plyCap).over()) << "moves after the end, at ply " << i;
    game::Move m;
    ASSERT_NO_THROW(m = pos.parseUsi(r.moves[i])) << r.moves[i];
    pos.makeMove(m);
  }
  EXPECT_EQ(r.plies, int(r.moves.size()));
  const game::Outcome o = pos.outcome(plyCap);
  if (r.detail.empty()) {
    ASSERT_TRUE(o.over());
    EXPECT_EQ(r.result, o.winner < 0 ? "draw" : o.winner == 0 ? "sente" : "gote");
  } else {  // a forfeit: the side to move lost
    EXPECT_FALSE(o.over());
    EXPECT_EQ(r.result, pos.sideToMove() == 0 ? "gote" : "sente");
  }
}

selfplay::PlayerSpec rollout(int sims) {
  selfplay::PlayerSpec p;
  p.kind = selfplay::PlayerSpec::Kind::kRollout;
  p.simulations = sims;
  p.name = "rollout:" + std::to_string(sims);
  return p;
}

selfplay::PlayerSpec randomPlayer() {
  selfplay::PlayerSpec p;
  p.kind = selfplay::PlayerSpec::Kind::kRandom;
  p.name = "random";
  return p;
}

selfplay::PlayerSpec usiPlayer(const play::UsiProcessConfig& c, const std::string& name) {
  selfplay::PlayerSpec p;
  p.kind = selfplay::PlayerSpec::Kind::kExternal;
  p.name = name;
  p.external = play::usiPlayerFactory(c);
  return p;
}

// A network player searching with `evaluator` (the uniform one in these tests), `playouts` a move.
selfplay::PlayerSpec networkPlayer(mcts::Evaluator& evaluator, int playouts) {
  selfplay::PlayerSpec p;
  p.kind = selfplay::PlayerSpec::Kind::kNetwork;
  p.name = "uniform";
  p.evaluator = &evaluator;
  p.search.playouts = playouts;
  return p;
}

// How many different move sequences the games of a match are.
size_t distinctGames(const std::vector<selfplay::GameRecord>& records) {
  std::set<std::string> lines;
  for (const auto& rec : records) {
    std::string line;
    for (const auto& m : rec.moves) line += m + " ";
    lines.insert(line);
  }
  return lines.size();
}

using pt::scriptEngine;

// The rollout player's searches of the games at once (a thread each, one RolloutPlayer per game
// slot) keep a match reproducible: the same seed, the same games, whatever the threads' timing.
TEST(Match, ParallelRolloutSearchesGiveTheSameGamesTwice) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 6;
  ms.parallelGames = 3;
  ms.seed = 11;
  const auto first = selfplay::playMatch(v, encoder, rollout(60), rollout(30), ms);
  const auto second = selfplay::playMatch(v, encoder, rollout(60), rollout(30), ms);
  ASSERT_EQ(first.records.size(), 6u);
  ASSERT_EQ(second.records.size(), 6u);
  std::map<std::string, std::vector<std::string>> movesById;
  for (const auto& rec : first.records) movesById[rec.id] = rec.moves;
  for (const auto& rec : second.records) EXPECT_EQ(rec.moves, movesById.at(rec.id)) << rec.id;
  std::set<std::vector<std::string>> distinct;
  for (const auto& rec : first.records) distinct.insert(rec.moves);
  EXPECT_GT(distinct.size(), 1u);  // the slots' searches differ: not one game six times
}

TEST(Match, RolloutBeatsRandomWithAlternatingColoursAndLegalRecords) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 10;
  ms.parallelGames = 4;
  ms.seed = 7;
  int calls = 0;
  const auto r = selfplay::playMatch(v, encoder, rollout(300), randomPlayer(), ms,
                                     [&](const selfplay::MatchResult& s, int wanted) {
                                       ++calls;
                                       EXPECT_EQ(wanted, 10);
                                       EXPECT_EQ(s.games(), calls);
                                     });
  EXPECT_EQ(r.games(), 10);
  EXPECT_EQ(calls, 10);
  ASSERT_EQ(r.records.size(), 10u);
  ASSERT_EQ(r.aWasSente.size(), 10u);
  // UCT with 300 random playouts against a random mover: it should win nearly every game.
  EXPECT_GE(r.score(), 0.8) << "+" << r.winsA << " =" << r.draws << " -" << r.lossesA;
  const auto [lo, hi] = r.eloInterval95();
  EXPECT_LT(lo, r.elo());
  EXPECT_GE(hi, r.elo());  // equal at a 100% score (both clamped)
  int aSente = 0, wins = 0, draws = 0;
  std::set<std::string> ids;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const auto& rec = r.records[i];
    ids.insert(rec.id);
    const int index = std::stoi(rec.id.substr(std::string("match-").size()));
    EXPECT_EQ(bool(r.aWasSente[i]), index % 2 == 0) << rec.id;
    EXPECT_EQ(rec.model, r.aWasSente[i] ? "rollout:300 vs random" : "random vs rollout:300");
    EXPECT_EQ(rec.start, game::Position(v).sfen());
    aSente += r.aWasSente[i];
    const bool aWon = rec.result == (r.aWasSente[i] ? "sente" : "gote");
    wins += aWon;
    draws += rec.result == "draw";
    expectRecordReplays(rec, v, ms.plyCap);
  }
  EXPECT_EQ(ids.size(), 10u);
  EXPECT_EQ(aSente, 5);
  EXPECT_EQ(wins, r.winsA);
  EXPECT_EQ(draws, r.draws);

  // Records survive the JSONL file.
  const fs::path dir = tempDir("records");
  selfplay::appendGameRecords((dir / "g.jsonl").string(), r.records);
  const auto file = selfplay::readGameRecordFile((dir / "g.jsonl").string());
  EXPECT_TRUE(file.errors.empty());
  EXPECT_EQ(file.records, r.records);
  fs::remove_all(dir);
}

// Rollout player A searches 0.01 s per move (its simulation count is out of reach), one game at
// a time, against an instant random mover; its first move in each game comes from its book. So the
// match takes at least 0.01 s per searched move, and not much more: the slack, 0.03 s a move and
// 0.2 s in all, is generous for a busy machine (one search step takes milliseconds), but a player
// that overran its time severalfold would fail.
TEST(Match, TimedRolloutAndBooksAreUsed) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::PlayerSpec a = rollout(1000000);
  a.moveSeconds = 0.01;  // the time limit, not the simulation count, must end each move
  // A's book: always the first legal move while the game is shorter than 2 plies.
  int bookCalls = 0;
  a.book = [&](const game::Position& pos, std::mt19937&) {
    ++bookCalls;
    if (pos.gamePly() >= 2) return game::Move::none();
    game::MoveList moves;
    pos.generateLegal(moves);
    return moves[0];
  };
  selfplay::MatchSettings ms;
  ms.games = 2;
  ms.parallelGames = 2;
  const auto start = std::chrono::steady_clock::now();
  const auto r = selfplay::playMatch(v, encoder, a, randomPlayer(), ms);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.games(), 2);
  EXPECT_GT(bookCalls, 2);
  int searched = 0;  // A's moves less its one book move per game
  for (size_t i = 0; i < r.records.size(); ++i) {
    const int plies = r.records[i].plies;
    searched += (r.aWasSente[i] ? (plies + 1) / 2 : plies / 2) - 1;
  }
  std::printf("timed rollout: %d moves searched in %.2f s\n", searched, took);
  ASSERT_GT(searched, 4);
  EXPECT_GE(took, searched * a.moveSeconds) << searched << " moves searched";
  EXPECT_LT(took, searched * (a.moveSeconds + 0.03) + 0.2) << searched << " moves searched";
  for (size_t i = 0; i < r.records.size(); ++i) {
    game::Position pos(v);
    game::MoveList moves;
    pos.generateLegal(moves);
    if (r.aWasSente[i]) {
      EXPECT_EQ(r.records[i].moves[0], pos.moveToUsi(moves[0]));
    }
    expectRecordReplays(r.records[i], v, ms.plyCap);
  }
}

TEST(MatchOpenings, ParsesStartposSfenAndComments) {
  const auto v = game::loadVariant("micro");
  const std::string start = game::Position(v).sfen();
  game::Position pos(v);
  game::MoveList moves;
  pos.generateLegal(moves);
  const std::string m0 = pos.moveToUsi(moves[0]);
  const std::string text = "# openings\n\nstartpos\nstartpos moves " + m0 + "   # one move\nsfen " + start +
                           "\nposition " + start + " moves " + m0 + "\n";
  const auto o = play::parseOpenings(text, "o.txt", v, 200);
  ASSERT_EQ(o.size(), 4u);
  EXPECT_EQ(o[0].sfen, start);
  EXPECT_TRUE(o[0].moves.empty());
  EXPECT_EQ(o[1].moves, std::vector<std::string>{m0});
  EXPECT_EQ(o[2].sfen, start);
  EXPECT_EQ(o[3].moves, std::vector<std::string>{m0});
}

TEST(MatchOpenings, EveryBadLineIsNamedWithFileAndLine) {
  const auto v = game::loadVariant("micro");
  const std::string text =
      "startpos\n"                  // 1 good
      "# comment\n"                 // 2
      "kbgs/p3/4/3P/SGBK x - 1\n"   // 3 bad side to move
      "startpos moves 9z9y\n"       // 4 unparsable move
      "startpos junk\n"             // 5 not 'moves'
      "startpos moves\n"            // 6 no moves
      "moves 1a1b\n";               // 7 no position
  try {
    play::parseOpenings(text, "book.txt", v, 200);
    FAIL() << "no error";
  } catch (const play::OpeningsError& e) {
    const std::string m = e.what();
    for (int line : {3, 4, 5, 6, 7}) EXPECT_THAT(m, HasSubstr("book.txt:" + std::to_string(line) + ": ")) << m;
    EXPECT_THAT(m, Not(HasSubstr("book.txt:1:")));
    EXPECT_THAT(m, HasSubstr("9z9y"));
    EXPECT_THAT(m, HasSubstr("junk"));
  }
  EXPECT_THROW(play::parseOpenings("# nothing\n\n", "empty.txt", v, 200), play::OpeningsError);
  try {
    play::loadOpenings("/nonexistent/openings.txt", v, 200);
    FAIL() << "no error";
  } catch (const play::OpeningsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/openings.txt"));
  }
}

// scripts/make_openings.py against Fairy-Stockfish 11.1 (Debian's, an engine independent of
// Poppy): the book it writes loads with Poppy's own rules (every move legal in Poppy's notation,
// no game over), has the lines and plies asked for, each line's stated score within --max-cp,
// no two lines reaching one position, and the same seed gives the same book. An engine that
// cannot start, or does not play the variant, is an error naming it, and no file is written.
TEST(MatchOpenings, MadeBooksLoadInPoppyAndAreBalanced) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good())
      << pt::FairyStockfish::kPath << " is missing: run scripts/setup.sh";
  const fs::path dir = tempDir("make_openings");
  const std::string script = std::string(POPPY_SOURCE_DIR) + "/scripts/make_openings.py";
  auto make = [&](const fs::path& out, const std::string& engine, const std::string& variant = "micro") {
    const std::string cmd = "python3 " + pt::shellQuote(script) + " --engine " + pt::shellQuote(engine) +
                            " --variant " + variant + " --plies 4 --count 6 --depth 6 --max-cp 150 --seed 7 --out " +
                            pt::shellQuote(out.string()) + " 2> " + pt::shellQuote((dir / "stderr.txt").string());
    return pt::exitCodeOf(std::system(cmd.c_str()));
  };
  ASSERT_EQ(make(dir / "a.txt", pt::FairyStockfish::kPath), 0) << pt::slurp(dir / "stderr.txt");
  ASSERT_EQ(make(dir / "b.txt", pt::FairyStockfish::kPath), 0) << pt::slurp(dir / "stderr.txt");
  const std::string text = pt::slurp(dir / "a.txt");
  EXPECT_EQ(text, pt::slurp(dir / "b.txt"));

  const auto v = game::loadVariant("micro");
  const auto openings = play::parseOpenings(text, "a.txt", v, 200);  // throws on a move Poppy refuses
  ASSERT_EQ(openings.size(), 6u);
  std::set<std::string> positions;
  for (const auto& o : openings) {
    EXPECT_EQ(o.moves.size(), 4u);
    game::Position pos = game::Position::fromSfen(v, o.sfen);
    for (const std::string& m : o.moves) pos.makeMove(pos.parseUsi(m));
    const std::string sfen = pos.sfen();
    EXPECT_TRUE(positions.insert(sfen.substr(0, sfen.rfind(' '))).second) << "two lines reach " << sfen;
  }
  std::istringstream lines(text);
  int scored = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("startpos", 0) != 0) continue;
    const size_t hash = line.find('#');
    ASSERT_NE(hash, std::string::npos) << line;
    EXPECT_LE(std::abs(std::stoi(line.substr(hash + 1))), 150) << line;
    ++scored;
  }
  EXPECT_EQ(scored, 6);

  EXPECT_EQ(make(dir / "c.txt", "/nonexistent/engine"), 1);
  EXPECT_THAT(pt::slurp(dir / "stderr.txt"), HasSubstr("/nonexistent/engine"));
  EXPECT_FALSE(fs::exists(dir / "c.txt"));
  // A variant the engine does not play is an error naming it (the engine would otherwise keep its
  // default variant and the book would be of another game).
  EXPECT_EQ(make(dir / "d.txt", pt::FairyStockfish::kPath, "nosuchshogi"), 1);
  EXPECT_THAT(pt::slurp(dir / "stderr.txt"), HasSubstr("does not play variant 'nosuchshogi'"));
  EXPECT_FALSE(fs::exists(dir / "d.txt"));
  fs::remove_all(dir);
}

// Every book under configs/openings/ (VARIANT.txt or VARIANT-WHAT.txt) loads with Poppy's own
// rules for its variant: each line's moves legal in Poppy's notation, no game over. A book made
// by an engine playing another game (Fairy-Stockfish keeps minishogi when it does not know the
// variant) fails here.
TEST(MatchOpenings, EveryShippedBookLoadsWithPoppysRules) {
  int books = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(POPPY_SOURCE_DIR) / "configs" / "openings")) {
    if (entry.path().extension() != ".txt") continue;
    const std::string stem = entry.path().stem().string();
    const std::string variant = stem.substr(0, stem.find('-'));
    SCOPED_TRACE(entry.path().string());
    const auto openings = play::loadOpenings(entry.path().string(), game::loadVariant(variant), 400);
    EXPECT_GE(openings.size(), 50u);
    ++books;
  }
  EXPECT_GE(books, 7);  // micro (two), minishogi, kyoto, gorogoro, judkins, tori
}

TEST(MatchOpenings, EachOpeningIsPlayedTwiceWithColoursSwapped) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  game::Position pos(v);
  game::MoveList moves;
  pos.generateLegal(moves);
  const std::string m0 = pos.moveToUsi(moves[0]), m1 = pos.moveToUsi(moves[1]);
  selfplay::MatchSettings ms;
  ms.openings = play::parseOpenings("startpos moves " + m0 + "\nstartpos moves " + m1 + "\n", "o", v, 200);
  ms.games = 4;
  ms.parallelGames = 4;
  const auto r = selfplay::playMatch(v, encoder, rollout(50), randomPlayer(), ms);
  ASSERT_EQ(r.games(), 4);
  std::map<int, const selfplay::GameRecord*> byIndex;
  for (size_t i = 0; i < r.records.size(); ++i) byIndex[std::stoi(r.records[i].id.substr(6))] = &r.records[i];
  ASSERT_EQ(byIndex.size(), 4u);
  EXPECT_EQ(byIndex[0]->moves[0], m0);
  EXPECT_EQ(byIndex[1]->moves[0], m0);
  EXPECT_EQ(byIndex[2]->moves[0], m1);
  EXPECT_EQ(byIndex[3]->moves[0], m1);
  EXPECT_EQ(byIndex[0]->model, "rollout:50 vs random");
  EXPECT_EQ(byIndex[1]->model, "random vs rollout:50");
  for (const auto& rec : r.records) expectRecordReplays(rec, v, ms.plyCap);
}

TEST(MatchOpenings, NetworkPlayersSampleTheirFirstMovesAfterTheOpening) {
  // One two-ply opening played 8 times by two uniform-network players: with the sampled plies
  // counted from the end of the opening, the games go different ways (counted from the start,
  // as before, all 4 games of one colour assignment were the same game).
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  game::Position pos(v);
  game::MoveList moves;
  pos.generateLegal(moves);
  const std::string m0 = pos.moveToUsi(moves[0]);
  pos.makeMove(moves[0]);
  pos.generateLegal(moves);
  const std::string m1 = pos.moveToUsi(moves[0]);
  mcts::UniformEvaluator uniform(encoder.policySize());
  selfplay::PlayerSpec net = networkPlayer(uniform, 16);
  selfplay::MatchSettings ms;
  ms.openings = play::parseOpenings("startpos moves " + m0 + " " + m1 + "\n", "o", v, 200);
  ms.games = 8;
  ms.parallelGames = 8;
  ms.openingTemperaturePlies = 2;
  const auto r = selfplay::playMatch(v, encoder, net, net, ms);
  ASSERT_EQ(r.games(), 8);
  for (const auto& rec : r.records) {
    ASSERT_GE(rec.moves.size(), 3u);
    EXPECT_EQ(rec.moves[0], m0);
    EXPECT_EQ(rec.moves[1], m1);
  }
  EXPECT_GE(distinctGames(r.records), 4u);
  // With no sampled plies every game of one colour assignment is the same: 2 distinct games
  // at most (the two sides are the same player, so even 1).
  ms.openingTemperaturePlies = 0;
  EXPECT_LE(distinctGames(selfplay::playMatch(v, encoder, net, net, ms).records), 2u);
}

TEST(Match, GumbelRootPlayersVaryTheirGamesWithoutSampledPlies) {
  // `poppy match --gumbel-actions`: a model player searches its root with Gumbel's sequential
  // halving and plays its choice, whose Gumbel draw varies the games as self-play's does. Two
  // uniform-network players with no sampled plies play one game per colour assignment with PUCT
  // (above); with a Gumbel root, 8 games are (nearly) all different, from the first move on.
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  mcts::UniformEvaluator uniform(encoder.policySize());
  selfplay::PlayerSpec net = networkPlayer(uniform, 16);
  net.search.gumbelConsidered = 4;
  selfplay::MatchSettings ms;
  ms.games = 8;
  ms.parallelGames = 8;
  ms.openingTemperaturePlies = 0;
  ms.plyCap = 40;
  const auto r = selfplay::playMatch(v, encoder, net, net, ms);
  ASSERT_EQ(r.games(), 8);
  std::set<std::string> firstMoves;
  for (const auto& rec : r.records) {
    ASSERT_FALSE(rec.moves.empty());
    firstMoves.insert(rec.moves[0]);
  }
  EXPECT_GE(distinctGames(r.records), 6u);
  EXPECT_GE(firstMoves.size(), 2u);  // the first move too: no opening plies were sampled
  net.search.gumbelConsidered = 0;
  EXPECT_LE(distinctGames(selfplay::playMatch(v, encoder, net, net, ms).records), 2u);
}

// Broken engines lose each game with the reason recorded, and the match finishes.
struct BrokenCase {
  const char* name;
  const char* onGo;
  const char* reason;
  const char* detail;
};

class BrokenEngine : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenEngine, LosesEveryGameAndTheMatchFinishes) {
  const BrokenCase& c = GetParam();
  const fs::path dir = tempDir(std::string("broken_") + c.name);
  play::UsiProcessConfig config;
  config.command = pt::shellQuote(scriptEngine(dir, "engine.sh", c.onGo).string());
  config.variant = "micro";
  config.movetimeMs = 50;
  config.graceSeconds = 0.3;
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 4;
  ms.parallelGames = 2;
  const auto r = selfplay::playMatch(v, encoder, randomPlayer(), usiPlayer(config, "usi:broken"), ms);
  ASSERT_EQ(r.games(), 4);
  EXPECT_EQ(r.winsA, 4);
  for (const auto& rec : r.records) {
    EXPECT_EQ(rec.reason, c.reason) << rec.detail;
    EXPECT_THAT(rec.detail, HasSubstr("(usi:broken)"));
    EXPECT_THAT(rec.detail, HasSubstr(c.detail));
    // After a crash or a timeout the next game has a fresh engine, not a dead one.
    EXPECT_THAT(rec.detail, Not(HasSubstr("not running")));
    EXPECT_THAT(rec.detail, Not(HasSubstr("could not (re)start")));
    expectRecordReplays(rec, v, ms.plyCap);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Scripts, BrokenEngine,
    ::testing::Values(BrokenCase{"garbage", "echo 'hello there'; echo 'bestmove zzz'", "illegal_move", "'zzz'"},
                      BrokenCase{"illegal", "echo 'info depth 1'; echo 'bestmove 4e4a'", "illegal_move", "4e4a"},
                      BrokenCase{"exits", "echo 'dying' >&2; exit 3", "crash", "exited with status 3"},
                      BrokenCase{"hangs", "sleep 30", "timeout", "no bestmove within"},
                      BrokenCase{"chatters", "echo 'thinking...'", "timeout", "go movetime 50"},
                      BrokenCase{"resigns", "echo 'bestmove resign'", "resign", "resigned"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(UsiClient, AnEngineThatDoesNotStartIsAClearError) {
  const fs::path dir = tempDir("nostart");
  const fs::path script = dir / "dead.sh";
  pt::spit(script, "#!/bin/sh\necho 'cannot load weights' >&2\nexit 7\n");
  fs::permissions(script, fs::perms::owner_all);
  play::UsiProcessConfig config;
  config.command = pt::shellQuote(script.string());
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 2;
  try {
    selfplay::playMatch(v, encoder, randomPlayer(), usiPlayer(config, "usi:dead"), ms);
    FAIL() << "no error";
  } catch (const play::UsiError& e) {
    EXPECT_THAT(e.what(), HasSubstr(script.string()));
    EXPECT_THAT(e.what(), HasSubstr("exited with status 7"));
    EXPECT_THAT(e.what(), HasSubstr("cannot load weights"));
  }
  config.command = "/nonexistent/engine";
  EXPECT_THROW(play::UsiProcess{config}, play::UsiError);
  // Silent: the handshake times out.
  pt::spit(script, "#!/bin/sh\nsleep 30\n");
  config.command = pt::shellQuote(script.string());
  config.startTimeoutSeconds = 0.3;
  try {
    play::UsiProcess engine(config);
    FAIL() << "no error";
  } catch (const play::UsiError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no 'usiok' within"));
  }
  fs::remove_all(dir);
}

TEST(UsiClient, FairyStockfishOnMinishogiPlaysOnlyLegalMoves) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good())
      << pt::FairyStockfish::kPath << " is missing: run scripts/setup.sh";
  const auto v = game::loadVariant("minishogi");
  const nn::Encoder encoder(v);
  play::UsiProcessConfig config;
  config.command = pt::FairyStockfish::kPath;
  config.variant = "minishogi";  // UCI_Variant minishogi is sent by the client
  config.options = {{"Threads", "1"}, {"Hash", "1"}};
  config.nodes = 3000;
  selfplay::MatchSettings ms;
  ms.games = 4;
  ms.parallelGames = 2;
  const auto r = selfplay::playMatch(v, encoder, usiPlayer(config, "fairy"), rollout(100), ms);
  ASSERT_EQ(r.games(), 4);
  int forfeits = 0;
  for (const auto& rec : r.records) {
    expectRecordReplays(rec, v, ms.plyCap);
    // The only forfeit Fairy-Stockfish 11.1 may commit is its known defect: a mating pawn drop.
    if (!rec.detail.empty()) {
      ++forfeits;
      EXPECT_EQ(rec.reason, "illegal_move") << rec.detail;
      EXPECT_THAT(rec.detail, HasSubstr("'P*")) << rec.detail;
    }
    EXPECT_GT(rec.plies, 4);
  }
  // A real engine at 3000 nodes against 100 random playouts.
  EXPECT_GE(r.winsA + forfeits, 3) << "+" << r.winsA << " =" << r.draws << " -" << r.lossesA;
}

// A network player with a time limit and no real node limit (the uniform evaluator stands in
// for a model) against Fairy-Stockfish thinking in its own thread at the same time: the deadline
// must end every search, and the games must replay legally. Both games are played side by side,
// one move each per round; a round in which the network is to move in either game lasts its
// 0.05 s (the solver is off, so that nothing else ends a search early) and Fairy-Stockfish's
// 0.02 s fits in it. So the match takes at least 0.05 s per such round, and not much more: the
// slack, 0.15 s a round and 1 s to start the engines, is generous for a busy machine, but a
// network player ten times over its time fails.
TEST(UsiClient, TimedNetworkPlayerAgainstFairyStockfish) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good());
  const auto v = game::loadVariant("minishogi");
  const nn::Encoder encoder(v);
  mcts::UniformEvaluator uniform(encoder.policySize());
  selfplay::PlayerSpec net = networkPlayer(uniform, 1000000);
  net.search.solver = false;
  net.moveSeconds = 0.05;
  play::UsiProcessConfig config;
  config.command = pt::FairyStockfish::kPath;
  config.variant = "minishogi";
  config.movetimeMs = 20;
  selfplay::MatchSettings ms;
  ms.games = 2;
  ms.parallelGames = 2;
  ms.plyCap = 60;
  const auto start = std::chrono::steady_clock::now();
  const auto r = selfplay::playMatch(v, encoder, net, usiPlayer(config, "fairy"), ms);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.games(), 2);
  // Both games start together and make one move per round; the network moves at even plies of
  // the game where it is sente, at odd plies of the other. A forfeit ends a game after its plies.
  int rounds = 0, networkRounds = 0;
  for (int ply = 0;; ++ply) {
    bool anyGame = false, network = false;
    for (size_t i = 0; i < r.records.size(); ++i) {
      if (ply >= r.records[i].plies) continue;
      anyGame = true;
      network |= (ply % 2 == 0) == bool(r.aWasSente[i]);
    }
    if (!anyGame) break;
    ++rounds;
    networkRounds += network;
  }
  std::printf("timed network vs fairy-stockfish: %d rounds, %d with a network move, in %.2f s\n", rounds,
              networkRounds, took);
  EXPECT_GE(took, networkRounds * net.moveSeconds) << networkRounds << " rounds with a network move";
  EXPECT_LT(took, networkRounds * net.moveSeconds + (rounds + 1) * 0.15 + 1.0)
      << rounds << " rounds, " << networkRounds << " with a network move";
  for (const auto& rec : r.records) {
    expectRecordReplays(rec, v, ms.plyCap);
    if (!rec.detail.empty()) {
      EXPECT_THAT(rec.detail, HasSubstr("'P*"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Fairy-Stockfish's notation of micro shogi (play/engines/usi_notation.h). The expected strings are
// derived by hand from the mapping: Poppy G = FSF +R, +G = R, S = +L, +S = L (the other face
// of the same physical piece); K, B, +B, P, +P unchanged; in hand a piece is its base letter.

TEST(UsiNotation, MicroSfenInFairyStockfishLetters) {
  const play::UsiNotation fairy(play::NotationKind::kFairy, "micro");
  ASSERT_TRUE(fairy.translates());
  // Start "kbgs/p3/4/3P/SGBK b - 1": rank a k b g s -> k b +r +l; rank e S G B K -> +L +R B K.
  // (Fairy-Stockfish prints exactly this as its own micro start: "Sfen: kb+r+l/p3/4/3P/+L+RBK b - 1".)
  EXPECT_EQ(fairy.sfen("kbgs/p3/4/3P/SGBK b - 1"), "kb+r+l/p3/4/3P/+L+RBK b - 1");
  // Flipped pieces on the board: +g (gote rook) -> r, +S (sente lance) -> L, +P and +B stay;
  // hands: G -> R, S -> L, g -> r, s -> l, counts and P, B kept.
  EXPECT_EQ(fairy.sfen("k+g2/1+S1+P/4/+B3/3K w 2GSPBgs 17"), "kr2/1L1+P/4/+B3/3K w 2RLPBrl 17");
  EXPECT_EQ(fairy.sfen("4/4/4/4/4 b - 1"), "4/4/4/4/4 b - 1");
  // Other variants and Poppy's own notation: unchanged.
  const play::UsiNotation mini(play::NotationKind::kFairy, "minishogi");
  EXPECT_FALSE(mini.translates());
  EXPECT_EQ(mini.sfen("rbsgk/4p/5/P4/KGSBR b - 1"), "rbsgk/4p/5/P4/KGSBR b - 1");
  EXPECT_FALSE(play::UsiNotation(play::NotationKind::kPoppy, "micro").translates());
}

TEST(UsiNotation, MicroMovesBothWays) {
  const auto v = game::loadVariant("micro");
  const play::UsiNotation fairy(play::NotationKind::kFairy, "micro");
  const game::Position start(v);
  // Drops: the dropped face's other name, the square unchanged (the position does not matter).
  EXPECT_EQ(fairy.move(start, "G*3c"), "+R*3c");
  EXPECT_EQ(fairy.move(start, "+G*3c"), "R*3c");
  EXPECT_EQ(fairy.move(start, "S*2b"), "+L*2b");
  EXPECT_EQ(fairy.move(start, "+S*2b"), "L*2b");
  EXPECT_EQ(fairy.move(start, "P*1c"), "P*1c");
  EXPECT_EQ(fairy.move(start, "+P*1c"), "+P*1c");
  EXPECT_EQ(fairy.move(start, "B*4c"), "B*4c");
  EXPECT_EQ(fairy.fromEngine(start, "+R*3c"), "G*3c");
  EXPECT_EQ(fairy.fromEngine(start, "R*3c"), "+G*3c");
  EXPECT_EQ(fairy.fromEngine(start, "+L*2b"), "S*2b");
  EXPECT_EQ(fairy.fromEngine(start, "L*2b"), "+S*2b");
  EXPECT_EQ(fairy.fromEngine(start, "P*1c"), "P*1c");
  // A board move without a flip: the same text.
  EXPECT_EQ(fairy.move(start, "1d1c"), "1d1c");
  EXPECT_EQ(fairy.fromEngine(start, "1d1c"), "1d1c");

  // After 1d1c 4b4c 1c1b the sente pawn on 1b can be taken by gote's silver (1a, Poppy s = FSF
  // +l) or gold (2a, Poppy g = FSF +r). Capturing flips them: S -> +S (lance) is Poppy's "+",
  // and FSF's +L -> L is a demotion, "-" (Fairy-Stockfish 11.1 lists "1a1b-" and "2a1b-" there).
  game::Position pos(v);
  for (const char* m : {"1d1c", "4b4c", "1c1b"}) pos.makeMove(pos.parseUsi(m));
  EXPECT_EQ(fairy.move(pos, "1a1b+"), "1a1b-");
  EXPECT_EQ(fairy.move(pos, "2a1b+"), "2a1b-");
  EXPECT_EQ(fairy.fromEngine(pos, "1a1b-"), "1a1b+");
  EXPECT_EQ(fairy.fromEngine(pos, "2a1b-"), "2a1b+");
  EXPECT_NO_THROW(pos.parseUsi(fairy.fromEngine(pos, "1a1b-")));
  // Sente's rook (Poppy +G = FSF R) on 4e takes the pawn on 4c and turns back to the gold:
  // Poppy "-" (to the setup face), FSF "+" (R -> +R).
  const game::Position rook = game::Position::fromSfen(v, "k3/4/p3/4/+G2K b - 1");
  EXPECT_EQ(fairy.sfen(rook.sfen()), "k3/4/p3/4/R2K b - 1");
  EXPECT_EQ(fairy.move(rook, "4e4c-"), "4e4c+");
  EXPECT_EQ(fairy.fromEngine(rook, "4e4c+"), "4e4c-");
  EXPECT_NO_THROW(rook.parseUsi("4e4c-"));
  // Pawns and bishops keep their suffix: their faces are named alike.
  game::Position pawn = game::Position::fromSfen(v, "k3/4/3p/3P/K3 b - 1");
  EXPECT_EQ(fairy.move(pawn, "1d1c+"), "1d1c+");
  EXPECT_EQ(fairy.fromEngine(pawn, "1d1c+"), "1d1c+");
  // Whatever is not a move comes back unchanged (the match then refuses it by name).
  for (const char* junk : {"zzz", "", "9z9z+", "*3c", "Q*3c"}) EXPECT_EQ(fairy.fromEngine(start, junk), junk);
}

TEST(UsiNotation, NamesAndAutoDetection) {
  EXPECT_EQ(play::parseNotationKind("fairy"), play::NotationKind::kFairy);
  EXPECT_EQ(play::parseNotationKind("poppy"), play::NotationKind::kPoppy);
  EXPECT_EQ(play::parseNotationKind("auto"), play::NotationKind::kAuto);
  EXPECT_THROW(play::parseNotationKind("fsf"), std::invalid_argument);
  EXPECT_EQ(play::resolveNotation(play::NotationKind::kAuto, "Fairy-Stockfish 11.1 LB 64"), play::NotationKind::kFairy);
  EXPECT_EQ(play::resolveNotation(play::NotationKind::kAuto, "Poppy"), play::NotationKind::kPoppy);
  EXPECT_EQ(play::resolveNotation(play::NotationKind::kPoppy, "Fairy-Stockfish"), play::NotationKind::kPoppy);
  EXPECT_EQ(play::fairyVariantName("kyoto"), "kyotoshogi");
  EXPECT_EQ(play::fairyVariantName("tori"), "torishogi");
  EXPECT_EQ(play::fairyVariantName("micro"), "micro");
  EXPECT_EQ(play::poppyVariantName("kyotoshogi"), "kyoto");
  EXPECT_EQ(play::poppyVariantName("torishogi"), "tori");
  EXPECT_EQ(play::poppyVariantName("micro"), "micro");
}

// Every game's moves, translated for the engine, are the moves the engine itself lists.
TEST(UsiNotation, RandomMicroGamesAgreeWithFairyStockfishsMoveLists) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good()) << pt::FairyStockfish::kPath << " is missing";
  const auto v = game::loadVariant("micro");
  const play::UsiNotation fairy(play::NotationKind::kFairy, "micro");
  pt::FairyStockfish engine;
  engine.setVariant("micro");
  std::mt19937 rng(5);
  int flips = 0, drops = 0;
  for (int g = 0; g < 4; ++g) {
    game::Position pos(v);
    const std::string start = pos.sfen();
    std::vector<std::string> engineMoves;
    for (int ply = 0; ply < 40 && !pos.outcome(200).over(); ++ply) {
      const auto listed = engine.divide(fairy.sfen(start), engineMoves, 1);
      game::MoveList legal;
      pos.generateLegal(legal);
      ASSERT_EQ(listed.size(), size_t(legal.size())) << pos.sfen();
      for (const game::Move& m : legal) {
        const std::string text = fairy.move(pos, pos.moveToUsi(m));
        ASSERT_TRUE(listed.count(text)) << pos.moveToUsi(m) << " -> " << text << " in " << pos.sfen();
        ASSERT_EQ(pos.parseUsi(fairy.fromEngine(pos, text)), m) << text;
      }
      const game::Move m = legal[size_t(rng() % legal.size())];
      flips += m.isFlip();
      drops += m.isDrop();
      engineMoves.push_back(fairy.move(pos, pos.moveToUsi(m)));
      pos.makeMove(m);
    }
  }
  EXPECT_GT(flips, 0);
  EXPECT_GT(drops, 0);
}

// Poppy's rollout player against the real Fairy-Stockfish on micro shogi, through the USI client
// with the notation found by the engine's name: no forfeits, every move legal.
TEST(UsiClient, FairyStockfishPlaysMicroInItsOwnNotation) {
  ASSERT_TRUE(std::ifstream(pt::FairyStockfish::kPath).good()) << pt::FairyStockfish::kPath << " is missing";
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  play::UsiProcessConfig config;
  config.command = pt::FairyStockfish::kPath;
  config.variant = "micro";
  config.options = {{"Threads", "1"}, {"Hash", "1"}};
  config.nodes = 500;
  selfplay::MatchSettings ms;
  ms.games = 4;
  ms.parallelGames = 2;
  const auto r = selfplay::playMatch(v, encoder, rollout(100), usiPlayer(config, "fairy"), ms);
  ASSERT_EQ(r.games(), 4);
  for (const auto& rec : r.records) {
    EXPECT_TRUE(rec.detail.empty()) << rec.reason << ": " << rec.detail;
    EXPECT_GT(rec.plies, 2);
    expectRecordReplays(rec, v, ms.plyCap);
  }
  EXPECT_GE(r.lossesA, 3) << "Fairy-Stockfish at 500 nodes should beat 100 random playouts";
}

// An engine that says it is Fairy-Stockfish gets Fairy-Stockfish's notation; an illegal answer
// still loses, naming the move as the engine wrote it and as Poppy reads it.
TEST(UsiClient, AnIllegalMoveInFairyNotationIsAForfeitNamingIt) {
  const fs::path dir = tempDir("fake_fairy");
  const fs::path p = dir / "fake.sh";
  pt::spit(p,
           "#!/bin/sh\n"
           "while read -r cmd rest; do\n"
           "  case \"$cmd\" in\n"
           "    usi) echo 'id name Fairy-Stockfish fake'; echo usiok ;;\n"
           "    isready) echo readyok ;;\n"
           "    position) echo \"info string $rest\" ;;\n"
           "    go) echo 'bestmove +R*3c' ;;\n"  // G*3c for Poppy: nobody has a gold in hand
           "    quit) exit 0 ;;\n"
           "  esac\n"
           "done\n");
  fs::permissions(p, fs::perms::owner_all);
  play::UsiProcessConfig config;
  config.command = pt::shellQuote(p.string());
  config.variant = "micro";
  config.movetimeMs = 50;
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 2;
  ms.parallelGames = 1;
  const auto r = selfplay::playMatch(v, encoder, randomPlayer(), usiPlayer(config, "usi:fake"), ms);
  ASSERT_EQ(r.games(), 2);
  EXPECT_EQ(r.winsA, 2);
  for (const auto& rec : r.records) {
    EXPECT_EQ(rec.reason, "illegal_move");
    EXPECT_THAT(rec.detail, HasSubstr("'+R*3c'"));
    EXPECT_THAT(rec.detail, HasSubstr("'G*3c' in Poppy's notation"));
  }
  fs::remove_all(dir);
}

// A fake USI engine at `path` that answers `usi` with its `id name`, then `optionLine`, and
// `isready` with readyok; with a `log`, it appends every command it reads there.
void writeOptionListingEngine(const fs::path& path, const std::string& idName, const std::string& optionLine,
                              const fs::path& log = {}) {
  pt::spit(path,
           "#!/bin/sh\n"
           "while read -r cmd rest; do\n" +
               (log.empty() ? std::string() : "  echo \"$cmd $rest\" >> " + pt::shellQuote(log.string()) + "\n") +
               "  case \"$cmd\" in\n"
               "    usi) echo 'id name " + idName + "'; echo '" + optionLine + "'; echo usiok ;;\n"
               "    isready) echo readyok ;;\n"
               "    quit) exit 0 ;;\n"
               "  esac\n"
               "done\n");
  fs::permissions(path, fs::perms::owner_all);
}

TEST(UsiClient, AnEngineThatDoesNotKnowTheVariantIsRefusedByName) {
  const fs::path dir = tempDir("variants");
  const fs::path p = dir / "engine.sh";
  // An engine that lists these UCI_Variant values.
  auto listing = [&](const std::string& vars) {
    writeOptionListingEngine(p, "OnlyShogi", "option name UCI_Variant type combo default shogi " + vars);
  };
  listing("var shogi var minishogi");
  play::UsiProcessConfig config;
  config.command = pt::shellQuote(p.string());
  config.variant = "micro";
  try {
    play::UsiProcess engine(config);
    FAIL() << "no error";
  } catch (const play::UsiError& e) {
    EXPECT_THAT(e.what(), HasSubstr(p.string()));
    EXPECT_THAT(e.what(), HasSubstr("OnlyShogi"));
    EXPECT_THAT(e.what(), HasSubstr("does not know the variant 'micro'"));
    EXPECT_THAT(e.what(), HasSubstr("shogi, minishogi"));
  }
  config.variant = "minishogi";
  EXPECT_NO_THROW(play::UsiProcess{config});
  // `poppy usi` lists Poppy's names (kyoto, not Fairy-Stockfish's kyotoshogi): either will do.
  listing("var shogi var kyoto");
  config.variant = "kyoto";
  EXPECT_NO_THROW(play::UsiProcess{config});
#ifdef POPPY_BINARY  // built with LibTorch only
  config.command = pt::shellQuote(POPPY_BINARY) + " usi";
  EXPECT_NO_THROW(play::UsiProcess{config});
#endif
  // The real Fairy-Stockfish 11.1 does not have tori shogi (it would silently play shogi).
  config.command = pt::FairyStockfish::kPath;
  config.variant = "tori";
  try {
    play::UsiProcess engine(config);
    FAIL() << "no error";
  } catch (const play::UsiError& e) {
    EXPECT_THAT(e.what(), HasSubstr("does not know the variant 'torishogi' (Poppy's tori)"));
    EXPECT_THAT(e.what(), HasSubstr("Fairy-Stockfish"));
  }
  fs::remove_all(dir);
}

// A current Fairy-Stockfish names the option USI_Variant in USI mode and starts on minishogi;
// built without largeboards=yes it has no shogi. Shogi must then be asked for by name, and an
// engine without it refused (it once played minishogi's moves into shogi games: 100 forfeits).
TEST(UsiClient, ShogiIsAskedForByNameAndRefusedWhereTheEngineLacksIt) {
  const fs::path dir = tempDir("usivariant");
  const fs::path p = dir / "engine.sh", log = dir / "commands.txt";
  auto listing = [&](const std::string& line) { writeOptionListingEngine(p, "Fairy-Stockfish 071226", line, log); };
  play::UsiProcessConfig config;
  config.command = pt::shellQuote(p.string());
  config.variant = "shogi";
  listing("option name USI_Variant type combo default minishogi var minishogi var micro var kyotoshogi");
  try {
    play::UsiProcess engine(config);
    FAIL() << "no error";
  } catch (const play::UsiError& e) {
    EXPECT_THAT(e.what(), HasSubstr("does not know the variant 'shogi'"));
    EXPECT_THAT(e.what(), HasSubstr("its USI_Variant offers minishogi, micro, kyotoshogi"));
    EXPECT_THAT(e.what(), HasSubstr("largeboards=yes"));
  }
  // With shogi listed (a largeboards build), shogi is set although it is not the default.
  fs::remove(log);
  listing("option name USI_Variant type combo default minishogi var minishogi var shogi");
  { play::UsiProcess engine(config); }
  EXPECT_THAT(pt::slurp(log), HasSubstr("setoption name UCI_Variant value shogi"));
  // A plain shogi engine (no variant option) is told nothing about variants.
  fs::remove(log);
  listing("option name Hash type spin default 16 min 1 max 1024");
  { play::UsiProcess engine(config); }
  EXPECT_THAT(pt::slurp(log), Not(HasSubstr("Variant")));
  fs::remove_all(dir);
}

TEST(MatchReport, NamesAndSummary) {
  EXPECT_EQ(report::shortPlayerName("model:runs/x/gen-0042.model:128"), "gen-0042-128");
  EXPECT_EQ(report::shortPlayerName("rollout:1000"), "rollout1000");
  EXPECT_EQ(report::shortPlayerName("usi:/usr/games/fairy-stockfish --x"), "fairy-stockfish");
  EXPECT_EQ(report::defaultMatchFileStem("random", "rollout"), "match-random-vs-rollout");
  selfplay::MatchResult r;
  r.winsA = 3, r.draws = 1, r.lossesA = 1, r.winsAAsSente = 2;
  for (int i = 0; i < 5; ++i) {
    selfplay::GameRecord g;
    g.result = i < 3 ? "sente" : i == 3 ? "draw" : "gote";
    g.reason = i == 4 ? "timeout" : "checkmate";
    if (i == 4) g.detail = "sente (x) no bestmove";
    g.plies = 10;
    r.records.push_back(g);
    r.aWasSente.push_back(i % 2 == 0);
  }
  report::MatchInfo info;
  info.variant = "micro";
  const auto j = report::matchSummary(info, r, 2.0, true);
  EXPECT_EQ(j["games"], 5);
  EXPECT_DOUBLE_EQ(j["score"].get<double>(), 3.5 / 5);
  EXPECT_EQ(j["a_as_gote"]["wins"], 1);
  EXPECT_EQ(j["reasons"]["timeout"], 1);
  EXPECT_EQ(j["forfeits"]["a"]["timeout"], 1);  // game 4: A was sente and sente lost
  EXPECT_LT(j["elo_low"].get<double>(), j["elo"].get<double>());
}

// The rate and time left, derived by hand. One game at a time: 10 of 100 games in 50 s is 0.2
// games/s and 90 / 0.2 = 450 s left. Sixteen at once, the first (short) game ending at 10 s: the
// other 15 are counted half played, 7.5 games, so (1 + 7.5) / 10 = 0.85 games/s and
// (99 - 7.5) / 0.85 = 107.6 s left (finished games alone would say 990 s). Near the end, 98 of
// 100 at 100 s: one other game in play, 0.5 done, (98 + 0.5) / 100 = 0.985/s, 1.5 / 0.985 = 1.5 s.
TEST(MatchReport, TimeLeftCountsTheGamesStillBeingPlayed) {
  auto played = [](int n) {
    selfplay::MatchResult r;
    r.winsA = n;
    return r;
  };
  EXPECT_THAT(report::progressLine(played(10), 100, 50.0), HasSubstr("0.20 games/s  7m30s left"));
  EXPECT_THAT(report::progressLine(played(1), 100, 10.0, 0, 16), HasSubstr("0.85 games/s  1m47s left"));
  EXPECT_THAT(report::progressLine(played(98), 100, 100.0, 0, 16), HasSubstr("games/s  2s left"));
  EXPECT_THAT(report::progressLine(played(0), 100, 0.0, 0, 16), HasSubstr("? left"));
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
// `poppy match` end to end: Poppy players, a usi: script, and bad input.
TEST(MatchCli, WritesRecordsAndSummaryAndReportsBadOpenings) {
  const fs::path dir = tempDir("cli");
  const std::string engine = scriptEngine(dir, "illegal.sh", "echo 'bestmove 4e4a'").string();
  const std::string base = "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 60 " +
                           pt::shellQuote(POPPY_BINARY) + " match --variant micro ";
  // Defaults: records and summary named after the players, in the current directory.
  int code = pt::exitCodeOf(std::system((base + "--a rollout:100 --b random --games 6 --parallel 3 --seed 3 "
                                              ">out.txt 2>err.txt")
                                                 .c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err.txt");
  EXPECT_THAT(pt::slurp(dir / "out.txt"), HasSubstr("6 games"));
  EXPECT_THAT(pt::slurp(dir / "err.txt"), HasSubstr("6/6 games"));
  const auto records = selfplay::readGameRecordFile((dir / "match-rollout100-vs-random.jsonl").string());
  EXPECT_EQ(records.records.size(), 6u);
  const auto summary = nlohmann::json::parse(pt::slurp(dir / "match-rollout100-vs-random.summary.json"));
  EXPECT_EQ(summary["games"], 6);
  EXPECT_EQ(summary["finished"], true);
  EXPECT_EQ(summary["wins"].get<int>() + summary["draws"].get<int>() + summary["losses"].get<int>(), 6);

  // A usi: engine that plays an illegal move; an openings file sets the games (2 per line).
  pt::spit(dir / "openings.txt", "startpos\n# second\nstartpos\n");
  code = pt::exitCodeOf(std::system((base + "--a random --b usi:" + pt::shellQuote(engine) +
                                          " --movetime-b 50 --openings openings.txt --records r.jsonl "
                                          "--summary s.json >out2.txt 2>err2.txt")
                                             .c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err2.txt");
  const auto r2 = selfplay::readGameRecordFile((dir / "r.jsonl").string());
  ASSERT_EQ(r2.records.size(), 4u);
  for (const auto& rec : r2.records) EXPECT_EQ(rec.reason, "illegal_move");
  const auto s2 = nlohmann::json::parse(pt::slurp(dir / "s.json"));
  EXPECT_EQ(s2["wins"], 4);
  EXPECT_EQ(s2["forfeits"]["b"]["illegal_move"], 4);
  EXPECT_THAT(pt::slurp(dir / "out2.txt"), HasSubstr("4 games ended by a forfeit"));

  // A bad openings line: exit 2 naming FILE:LINE.
  pt::spit(dir / "bad.txt", "startpos\nstartpos moves 9z9z\n");
  code = pt::exitCodeOf(
      std::system((base + "--a random --b random --openings bad.txt >out3.txt 2>err3.txt").c_str()));
  EXPECT_EQ(code, 2);
  EXPECT_THAT(pt::slurp(dir / "err3.txt"), HasSubstr("bad.txt:2: "));
  EXPECT_THAT(pt::slurp(dir / "err3.txt"), HasSubstr("poppy: error:"));
  // A usi: command that is not there: exit 2 naming it.
  code = pt::exitCodeOf(std::system(
      (base + "--a random --b usi:/nonexistent/engine --games 2 >out4.txt 2>err4.txt").c_str()));
  EXPECT_EQ(code, 2);
  EXPECT_THAT(pt::slurp(dir / "err4.txt"), HasSubstr("/nonexistent/engine"));
  fs::remove_all(dir);
}

// --sprt: a rollout player against a random one wins every pair, so the SPRT for [0, 50] could
// accept H1 after the first pair (by hand: one pair of two wins, regularised, gives LLR 17.7 against
// the bound 2.94); it waits for --sprt-min-pairs pairs (default 10) and the match stops there,
// long before its 100 games, saying so; the summary keeps the verdict, the floor and the pairs.
// With --sprt-min-pairs 2 it stops after 4 games. Bad --sprt values are usage errors naming the
// option.
TEST(MatchCli, SprtStopsTheMatchOnceDecided) {
  const fs::path dir = tempDir("sprt");
  const std::string base = "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " +
                           pt::shellQuote(POPPY_BINARY) + " match --variant micro --a rollout:64 --b random ";
  int code = pt::exitCodeOf(std::system(
      (base + "--games 100 --parallel 1 --sprt 0 50 --records r.jsonl --summary s.json >out.txt 2>err.txt").c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err.txt");
  const std::string out = pt::slurp(dir / "out.txt");
  EXPECT_THAT(out, HasSubstr("SPRT [0, 50] alpha 0.05 beta 0.05: LLR ")) << out;
  EXPECT_THAT(out, HasSubstr("H1 accepted after ")) << out;
  EXPECT_THAT(out, HasSubstr("pairs (A's points 0, 0.5, 1, 1.5, 2): ")) << out;
  EXPECT_THAT(pt::slurp(dir / "err.txt"), HasSubstr("LLR "));
  const auto summary = nlohmann::json::parse(pt::slurp(dir / "s.json"));
  EXPECT_EQ(summary["sprt"]["verdict"], "H1 accepted");
  EXPECT_GE(summary["sprt"]["llr"].get<double>(), summary["sprt"]["upper"].get<double>());
  EXPECT_EQ(summary["games"].get<int>(), 20);
  EXPECT_EQ(summary["sprt"]["min_pairs"].get<int>(), 10);
  EXPECT_EQ(summary["pentanomial"].size(), 5u);
  EXPECT_GT(summary["los"].get<double>(), 0.9);
  EXPECT_EQ(selfplay::readGameRecordFile((dir / "r.jsonl").string()).records.size(), summary["games"].get<size_t>());

  code = pt::exitCodeOf(std::system(
      (base + "--games 100 --parallel 1 --sprt 0 50 --sprt-min-pairs 2 --records r2.jsonl --summary s2.json "
              ">out3.txt 2>err3.txt").c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err3.txt");
  const auto early = nlohmann::json::parse(pt::slurp(dir / "s2.json"));
  EXPECT_EQ(early["sprt"]["verdict"], "H1 accepted");
  EXPECT_EQ(early["games"].get<int>(), 4);

  for (const std::string bad : {"--sprt 10 0", "--sprt 0 10 0.6 0.05", "--sprt 0 10 0.05", "--sprt 0 10 --sprt-min-pairs 0"}) {
    code = pt::exitCodeOf(std::system((base + "--games 4 " + bad + " >out2.txt 2>err2.txt").c_str()));
    EXPECT_EQ(code, 2) << bad;
    EXPECT_THAT(pt::slurp(dir / "err2.txt"), HasSubstr("--sprt")) << bad;
  }
  fs::remove_all(dir);
}

// --draw 0:2:10 between two searches with the uniform network, no sampled first moves
// (--opening-plies 0): both score the start's quiet positions 0 (a sure draw: no mate within
// reach), so every game is adjudicated a draw as soon as each side has made 2 moves (ply 4); the
// summary, the stdout line and the records say so. (Sampled first moves can blunder into a mate
// the search sees, a score far from level.) Bad rules exit 2 naming the option.
TEST(MatchCli, DrawAdjudicationEndsGamesBothScoreLevel) {
  const fs::path dir = tempDir("adjudication");
  const std::string base = "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " +
                           pt::shellQuote(POPPY_BINARY) + " match --variant micro --a uniform:16 --b uniform:16 ";
  int code = pt::exitCodeOf(std::system(
      (base + "--games 4 --parallel 2 --opening-plies 0 --draw 0:2:10 --records r.jsonl --summary s.json >out.txt 2>err.txt").c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err.txt");
  EXPECT_THAT(pt::slurp(dir / "out.txt"), HasSubstr("4 games adjudicated (--resign, --draw)"));
  EXPECT_THAT(pt::slurp(dir / "out.txt"), Not(HasSubstr("forfeit")));
  const auto summary = nlohmann::json::parse(pt::slurp(dir / "s.json"));
  EXPECT_EQ(summary["adjudicated"], 4);
  EXPECT_EQ(summary["draws"], 4);
  EXPECT_EQ(summary["settings"]["adjudication"], "draw 0:2:10");
  for (const auto& rec : selfplay::readGameRecordFile((dir / "r.jsonl").string()).records) {
    EXPECT_EQ(rec.reason, "adjudication");
    EXPECT_EQ(rec.result, "draw");
    EXPECT_EQ(rec.plies, 4);
  }
  for (const std::string bad : {"--draw 0:2", "--resign 3:x", "--resign-two-sided"}) {
    code = pt::exitCodeOf(std::system((base + "--games 2 " + bad + " >out2.txt 2>err2.txt").c_str()));
    EXPECT_EQ(code, 2) << bad;
    EXPECT_THAT(pt::slurp(dir / "err2.txt"), HasSubstr(bad.substr(0, bad.find(' ')))) << bad;
  }
  fs::remove_all(dir);
}

// xboard: players from the command line: HaChu at depth 1 plays chu to the ply cap or an end, and
// the limits XBoard cannot say are usage errors naming the option.
TEST(MatchCli, XboardEngineFromTheCommandLine) {
  const fs::path dir = tempDir("xboard");
  const std::string base = "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " +
                           pt::shellQuote(POPPY_BINARY) + " match --variant chu --a random ";
  int code = pt::exitCodeOf(std::system(
      (base + "--b xboard:hachu --depth-b 1 --games 2 --ply-cap 30 --records r.jsonl --summary s.json >out.txt 2>err.txt")
          .c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err.txt");
  const auto records = selfplay::readGameRecordFile((dir / "r.jsonl").string()).records;
  ASSERT_EQ(records.size(), 2u);
  for (const auto& rec : records) EXPECT_NE(rec.reason, "crash") << rec.detail;
  // `poppy xboard` (rollout search, no model) against HaChu, both through the XBoard client.
  // `sd 1` means nothing to Poppy's search, which then counts its playouts: without a depth the
  // client would give it a second a move.
  const std::string poppyXboard = "xboard:\"" + std::string(POPPY_BINARY) + " xboard --model none --playouts 8\"";
  code = pt::exitCodeOf(std::system(("cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " +
                                     pt::shellQuote(POPPY_BINARY) + " match --variant chu --a " + pt::shellQuote(poppyXboard) +
                                     " --depth-a 1 --b xboard:hachu --depth-b 1 --games 2 --ply-cap 20 --records r2.jsonl "
                                     "--summary none >out3.txt 2>err3.txt")
                                        .c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err3.txt");
  for (const auto& rec : selfplay::readGameRecordFile((dir / "r2.jsonl").string()).records) {
    EXPECT_EQ(rec.reason, "ply_cap") << rec.detail;
    EXPECT_EQ(rec.plies, 20);
  }
  for (const auto& [flags, said] : {std::pair{"--b xboard:hachu --nodes-b 100", "--nodes-b"},
                                    std::pair{"--b xboard:hachu --movetime-b 500", "whole seconds"},
                                    std::pair{"--b random --depth-b 2", "--depth-b only applies to xboard:"},
                                    std::pair{"--b xboard:hachu --openings o.txt", "start position only"}}) {
    pt::spit(dir / "o.txt", std::string(game::loadVariant("chu")->startSfen) + "\n" +
                                "lfcsgekgscfl/a1b1txot1b1a/mvrhdqndhrvm/pppppppppppp/3i4i3/12/12/3I4I3/PPPPPPPPPPPP/"
                                "MVRHDNQDHRVM/A1B1TOXT1B1A/LFCSGKEG1CFL w - 1\n");
    code = pt::exitCodeOf(std::system((base + flags + " --games 2 >out2.txt 2>err2.txt").c_str()));
    EXPECT_EQ(code, 2) << flags;
    EXPECT_THAT(pt::slurp(dir / "err2.txt"), HasSubstr(said)) << flags;
  }
  fs::remove_all(dir);
}

// Two Poppy engines through USI: `poppy usi` with the shipped model against `poppy usi` with the
// rollout search, both driven by the match runner's USI client. Every record must replay legally.
TEST(MatchCli, PoppyUsiAgainstPoppyUsi) {
  const fs::path dir = tempDir("usi-vs-usi");
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-1h.model";
  const std::string a = "usi:" + std::string(POPPY_BINARY) + " usi --model " + model + " --playouts 40";
  const std::string b = "usi:" + std::string(POPPY_BINARY) + " usi --playouts 200";
  const std::string cmd = "cd " + pt::shellQuote(dir.string()) + " && timeout -k 5 120 " +
                          pt::shellQuote(POPPY_BINARY) + " match --variant micro --a " + pt::shellQuote(a) +
                          " --b " + pt::shellQuote(b) +
                          " --nodes-a 40 --nodes-b 200 --games 4 --parallel 2 --records r.jsonl --summary s.json"
                          " >out.txt 2>err.txt";
  const int code = pt::exitCodeOf(std::system(cmd.c_str()));
  ASSERT_EQ(code, 0) << pt::slurp(dir / "err.txt");
  const auto records = selfplay::readGameRecordFile((dir / "r.jsonl").string());
  ASSERT_EQ(records.records.size(), 4u);
  const auto variant = game::loadVariant("micro");
  for (const auto& rec : records.records) {
    // No forfeits: both engines answered every move in time with a legal move.
    EXPECT_TRUE(rec.reason == "checkmate" || rec.reason == "repetition" || rec.reason == "perpetual_check" ||
                rec.reason == "ply_cap")
        << rec.reason << " " << rec.detail;
    game::Position pos = game::Position::fromSfen(variant, rec.start);
    for (const std::string& m : rec.moves) pos.makeMove(pos.parseUsi(m));
    EXPECT_TRUE(pos.outcome(200).over());
  }
  const auto summary = nlohmann::json::parse(pt::slurp(dir / "s.json"));
  EXPECT_EQ(summary["games"], 4);
  fs::remove_all(dir);
}

#endif  // POPPY_BINARY

}  // namespace

// ---------------------------------------------------------------------------------------------
// Timed matches (MatchSettings::clock, `poppy match --tc`)

namespace {

// An external player that plays its first legal move after `thinkMs`, writes down the clock
// readings it was given, and says `scoreCp` of every position (for adjudication; none: no score).
class SlowPlayer : public selfplay::MovePlayer {
 public:
  SlowPlayer(int thinkMs, std::vector<selfplay::ClockReading>* seen, std::optional<int> scoreCp)
      : thinkMs_(thinkMs), seen_(seen), scoreCp_(scoreCp) {}
  selfplay::MoveChoice choose(const selfplay::GameSoFar& game) override {
    if (game.clock && seen_) seen_->push_back(*game.clock);
    std::this_thread::sleep_for(std::chrono::milliseconds(thinkMs_));
    game::MoveList moves;
    game.pos.generateLegal(moves);
    selfplay::MoveChoice c;
    c.usi = game.pos.moveToUsi(moves[0]);
    c.scoreCp = scoreCp_;
    return c;
  }

 private:
  int thinkMs_;
  std::vector<selfplay::ClockReading>* seen_;
  std::optional<int> scoreCp_;
};

selfplay::PlayerSpec slowPlayer(const std::string& name, int thinkMs, std::vector<selfplay::ClockReading>* seen,
                                std::optional<int> scoreCp = std::nullopt) {
  selfplay::PlayerSpec p;
  p.kind = selfplay::PlayerSpec::Kind::kExternal;
  p.name = name;
  p.external = [thinkMs, seen, scoreCp](int) { return std::make_unique<SlowPlayer>(thinkMs, seen, scoreCp); };
  return p;
}

}  // namespace

// Fischer 2 s + 0.5 s: each player is told both main times before each move; one that answers
// at once gains the increment every move (2.0, 2.5, 3.0 s, ...), one that thinks 100 ms at most
// 0.4 s a move.
TEST(TimedMatch, EachMoveIsToldTheClocksAndCharged) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 1;
  ms.parallelGames = 1;
  ms.plyCap = 8;  // four moves each, then a draw by the ply cap
  ms.clock = common::parseClock("2s+0.5s");
  std::vector<selfplay::ClockReading> fast, slow;
  const auto r = selfplay::playMatch(v, encoder, slowPlayer("fast", 0, &fast), slowPlayer("slow", 100, &slow), ms);
  ASSERT_EQ(r.games(), 1);
  EXPECT_EQ(r.records[0].reason, "ply_cap") << r.records[0].detail;
  ASSERT_EQ(fast.size(), 4u);
  ASSERT_EQ(slow.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE("move " + std::to_string(i));
    EXPECT_EQ(fast[i].incrementMs, 500);
    EXPECT_EQ(fast[i].byoyomiMs, 0);
    // A (fast) is sente in game 0.
    // Upper bounds from the sleeps; the lower ones leave the scheduler 250 ms a move.
    const int64_t n = int64_t(i);
    EXPECT_LE(fast[i].senteMs, 2000 + 500 * n);
    EXPECT_GE(fast[i].senteMs, 2000 + 500 * n - 250 * n);
    EXPECT_LE(slow[i].goteMs, 2000 + 400 * n);
    EXPECT_GE(slow[i].goteMs, 2000 + 400 * n - 250 * n);
    EXPECT_EQ(slow[i].senteMs, i + 1 < fast.size() ? fast[i + 1].senteMs : slow[i].senteMs)
        << "the other side's clock does not run while it waits";
  }
}

// 0.3 s and then 0.05 s byoyomi: a player thinking 200 ms a move spends its main time in two
// moves and loses on time at its third; the other side never runs out.
TEST(TimedMatch, APlayerWhoseTimeRunsOutLosesOnTime) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 2;  // each colour once
  ms.parallelGames = 2;
  ms.clock = common::parseClock("0.3s/0.05s");
  ms.flagGraceMs = 20;
  const auto r = selfplay::playMatch(v, encoder, slowPlayer("quick", 5, nullptr), slowPlayer("slow", 200, nullptr), ms);
  ASSERT_EQ(r.games(), 2);
  EXPECT_EQ(r.winsA, 2);
  for (const auto& rec : r.records) {
    EXPECT_EQ(rec.reason, selfplay::kLostOnTime);
    EXPECT_THAT(rec.detail, HasSubstr("(slow) lost on time"));
    EXPECT_THAT(rec.detail, HasSubstr("0:00.3 + 0.05s byoyomi"));
    expectRecordReplays(rec, v, ms.plyCap);
  }
}

TEST(TimedMatch, OnlyExternalPlayersPlayOnAClock) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 2;
  ms.clock = common::parseClock("1m");
  try {
    selfplay::playMatch(v, encoder, slowPlayer("engine", 0, nullptr), rollout(50), ms);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'rollout:50' cannot play on a clock"));
  }
}

// A USI engine on a clock is sent the times as USI's go says them.
TEST(TimedMatch, AUsiEngineIsToldTheTimesInItsGoCommand) {
  const fs::path dir = tempDir("clock");
  const fs::path said = dir / "go.txt";
  play::UsiProcessConfig config;
  config.command = pt::shellQuote(scriptEngine(dir, "engine.sh", "echo \"go $rest\" >> " + said.string() +
                                                                  "; echo 'bestmove resign'").string());
  config.variant = "micro";
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  for (const char* tc : {"1m/1s", "30s+0.25s"}) {
    selfplay::MatchSettings ms;
    ms.games = 2;
    ms.parallelGames = 1;
    ms.clock = common::parseClock(tc);
    const auto r = selfplay::playMatch(v, encoder, slowPlayer("first", 0, nullptr), usiPlayer(config, "usi:engine"), ms);
    EXPECT_EQ(r.winsA, 2);  // the engine resigns
  }
  std::ifstream in(said);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  // Game 0: the engine is gote, its first move after A's instant one (charged about 0 ms).
  // Game 1: the engine is sente, asked before anyone moved.
  EXPECT_THAT(lines[0], ::testing::MatchesRegex("go btime (60000|59[0-9]+) wtime 60000 byoyomi 1000"));
  EXPECT_EQ(lines[1], "go btime 60000 wtime 60000 byoyomi 1000");
  EXPECT_THAT(lines[2], ::testing::MatchesRegex("go btime 302[0-9]+ wtime 30000 binc 250 winc 250"));  // A's increment
  EXPECT_EQ(lines[3], "go btime 30000 wtime 30000 binc 250 winc 250");
}

// ---------------------------------------------------------------------------------------------
// Adjudication on the players' scores (selfplay/adjudication.h, `poppy match --resign --draw`)

namespace {

// Plays `scores` (sente's and gote's moves alternating, sente first; nullopt: no score) through an
// Adjudicator; the ply and verdict where it ends the game, or ply 0 and none.
std::pair<int, std::optional<selfplay::Verdict>> adjudicate(const selfplay::AdjudicationRules& rules,
                                                             const std::vector<std::optional<int>>& scores) {
  selfplay::Adjudicator a(rules);
  for (size_t i = 0; i < scores.size(); ++i)
    if (auto v = a.afterMove(int(i % 2), scores[i], int(i + 1))) return {int(i + 1), v};
  return {0, std::nullopt};
}

}  // namespace

// Resign 3:500: sente's own scores -600 -700 -100 -600 -600 -600: the -100 breaks the first
// streak, so the third move in a row at -500 or less is sente's sixth move, ply 11; gote wins.
// Gote's scores do not matter one-sided; two-sided they must be +500 or more for its last 3.
TEST(Adjudication, ResignNeedsItsMovesInARowAndTwoSidedTheOpponentsToo) {
  selfplay::AdjudicationRules rules;
  selfplay::parseResignRule("3:500", rules);
  const std::vector<std::optional<int>> game = {-600, 0, -700, 0, -100, 600, -600, 600, -600, 400, -600, 700, -900};
  auto [ply, verdict] = adjudicate(rules, game);
  EXPECT_EQ(ply, 11);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->winner, 1);
  EXPECT_THAT(verdict->detail, HasSubstr("sente scored -500 cp or less for 3 moves in a row (last move's score -600)"));
  // Two-sided: at ply 11 gote's last three were 600, 600, 400 (not all >= 500), at ply 12 and 13
  // 600, 400, 700: never. Where gote agrees (600 each time), the agreement is complete at ply 6,
  // gote's third move, after sente's third at -500 or less at ply 5.
  rules.resignTwoSided = true;
  EXPECT_EQ(adjudicate(rules, game).first, 0);
  std::tie(ply, verdict) = adjudicate(rules, {-600, 600, -600, 600, -600, 600});
  EXPECT_EQ(ply, 6);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->winner, 1);
  EXPECT_THAT(verdict->detail, HasSubstr("and gote 500 or more for as many"));
  // Gote resigning one-sided: the winner is sente.
  rules.resignTwoSided = false;
  std::tie(ply, verdict) = adjudicate(rules, {0, -500, 0, -501, 0, -30000});
  EXPECT_EQ(ply, 6);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->winner, 0);
}

// Draw 3:2:10 (from move 3, 2 moves each, within 10 cp): the scores are level from ply 1 on, but
// move 3 is complete only at ply 6. A move without a score (nullopt) starts the count again.
TEST(Adjudication, DrawWaitsForItsMoveAndAMoveWithoutAScoreBreaksTheStreak) {
  selfplay::AdjudicationRules rules;
  selfplay::parseDrawRule("3:2:10", rules);
  auto [ply, verdict] = adjudicate(rules, {5, -10, 0, 10, 3, 2, 0});
  EXPECT_EQ(ply, 6);
  ASSERT_TRUE(verdict);
  EXPECT_EQ(verdict->winner, -1);
  EXPECT_THAT(verdict->detail, HasSubstr("within 10 cp of zero for 2 moves in a row, from move 3"));
  // Sente's score at ply 5 is missing: sente's streak restarts at ply 7 and is 2 at ply 9.
  std::tie(ply, verdict) = adjudicate(rules, {5, -10, 0, 10, std::nullopt, 2, 0, 1, 4, 0});
  EXPECT_EQ(ply, 9);
  // 11 cp is not level.
  EXPECT_EQ(adjudicate(rules, {5, 11, 5, 11, 5, 11, 5, 11}).first, 0);
  // Resign comes before a draw, and neither rule without its option.
  EXPECT_EQ(adjudicate({}, {-900, 900, -900, 900, -900, 900}).first, 0);
}

TEST(Adjudication, RulesAreParsedAndBadOnesNamed) {
  selfplay::AdjudicationRules rules;
  selfplay::parseResignRule("4:800", rules);
  selfplay::parseDrawRule("40:8:10", rules);
  EXPECT_EQ(rules.resignMoves, 4);
  EXPECT_EQ(rules.resignCp, 800);
  EXPECT_EQ(rules.drawFromMove, 40);
  EXPECT_EQ(rules.drawMoves, 8);
  EXPECT_EQ(rules.drawCp, 10);
  EXPECT_TRUE(rules.enabled());
  for (const char* bad : {"4", "4:", "4:x", "x:800", "0:800", "4:-1", "4:800:1", ""}) {
    try {
      selfplay::parseResignRule(bad, rules);
      ADD_FAILURE() << "accepted --resign '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("--resign '" + std::string(bad) + "'"));
    }
  }
  for (const char* bad : {"40:8", "40:0:10", "-1:8:10", "40:8:-1", "40:8:10:1", "a:b:c"}) {
    try {
      selfplay::parseDrawRule(bad, rules);
      ADD_FAILURE() << "accepted --draw '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("--draw '" + std::string(bad) + "'"));
    }
  }
}

// The network's value as shogi engines' centipawns: 756 ln(p / (1 - p)), p = (1 + v) / 2. By
// hand: v = 0.46, p = 0.73: 756 x ln(2.7037) = 756 x 0.99462 = 751.9 -> 752.
TEST(Adjudication, ValuesBecomeCentipawnsOnTheShogiEnginesScale) {
  EXPECT_EQ(selfplay::centipawnsOfValue(0.0), 0);
  EXPECT_EQ(selfplay::centipawnsOfValue(0.46), 752);
  EXPECT_EQ(selfplay::centipawnsOfValue(-0.46), -752);
  EXPECT_LT(selfplay::centipawnsOfValue(1.0), selfplay::kMateScoreCp);
  EXPECT_GT(selfplay::centipawnsOfValue(-1.0), -selfplay::kMateScoreCp);
}

// A match with --resign 2:500: the player who says -900 of every position loses each game, with
// either colour, at its second move (ply 3 as sente, ply 4 as gote), recorded as an adjudication;
// a player with no score is never adjudicated.
TEST(Adjudication, AMatchEndsGamesOnTheLosersOwnScores) {
  const auto v = game::loadVariant("micro");
  const nn::Encoder encoder(v);
  selfplay::MatchSettings ms;
  ms.games = 2;
  ms.parallelGames = 2;
  selfplay::parseResignRule("2:500", ms.adjudication);
  auto r = selfplay::playMatch(v, encoder, slowPlayer("hopeful", 0, nullptr, 900), slowPlayer("gloomy", 0, nullptr, -900), ms);
  ASSERT_EQ(r.games(), 2);
  EXPECT_EQ(r.winsA, 2);
  for (size_t i = 0; i < r.records.size(); ++i) {
    const auto& rec = r.records[i];
    EXPECT_EQ(rec.reason, selfplay::kAdjudication);
    EXPECT_EQ(rec.plies, r.aWasSente[i] ? 4 : 3) << rec.detail;
    EXPECT_EQ(rec.result, r.aWasSente[i] ? "sente" : "gote");
    EXPECT_THAT(rec.detail, HasSubstr(r.aWasSente[i] ? "gote scored -500 cp or less" : "sente scored -500 cp or less"));
    // Legal moves, and a game the rules had not ended.
    game::Position pos = game::Position::fromSfen(v, rec.start);
    for (const std::string& m : rec.moves) pos.makeMove(pos.parseUsi(m));
    EXPECT_FALSE(pos.outcome(ms.plyCap).over());
  }
  ms.plyCap = 30;
  r = selfplay::playMatch(v, encoder, slowPlayer("hopeful", 0, nullptr, 900), slowPlayer("silent", 0, nullptr), ms);
  for (const auto& rec : r.records) EXPECT_NE(rec.reason, selfplay::kAdjudication);
}

// A USI engine's score is its last `info ... score` before bestmove, `score mate N` a mate score;
// `info string` text and garbled scores are none.
TEST(Adjudication, AUsiEnginesScoreIsItsLastInfoScore) {
  const fs::path dir = tempDir("scores");
  const auto v = game::loadVariant("micro");
  game::Position start(v);
  game::MoveList moves;
  start.generateLegal(moves);
  const std::string move = start.moveToUsi(moves[0]);
  struct Case {
    std::string infoLines;
    std::optional<int> want;
  };
  const Case cases[] = {
      {"echo 'info depth 1 score cp 20 pv x'; echo 'info depth 2 seldepth 4 score cp -350 lowerbound nodes 9'; "
       "echo 'info string score cp 999'",
       -350},
      {"echo 'info depth 9 score mate 5 pv x'", selfplay::kMateScoreCp - 5},
      {"echo 'info depth 9 score mate -4'", -(selfplay::kMateScoreCp - 4)},
      {"echo 'info depth 9 score mate +'", selfplay::kMateScoreCp},
      {"echo 'info depth 9 nodes 100'", std::nullopt},
      {"echo 'info string score cp 40'", std::nullopt},
      {"echo 'info depth 3 score cp abc'", std::nullopt},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.infoLines);
    play::UsiProcessConfig config;
    config.command = pt::shellQuote(
        scriptEngine(dir, "engine" + std::to_string(n++) + ".sh", c.infoLines + "; echo 'bestmove " + move + "'").string());
    config.variant = "micro";
    config.movetimeMs = 100;
    play::UsiProcess engine(config);
    engine.newGame();
    const selfplay::MoveChoice choice = engine.go(start.sfen(), {});
    EXPECT_EQ(choice.usi, move);
    EXPECT_EQ(choice.scoreCp, c.want);
  }
  fs::remove_all(dir);
}
