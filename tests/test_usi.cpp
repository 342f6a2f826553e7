// play::UsiEngine (the protocol behind `poppy usi`): scripted sessions in-process with the rollout
// search or a scripted evaluator, a cross-check of its moves against Fairy-Stockfish, and the
// real binary with the shipped micro model through pipes under a tight clock.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <iterator>
#include <fstream>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "play/openings/opening_book.h"
#include "play/engines/usi_engine.h"
#include "support/fairy_stockfish.h"
#include "support/scratch_files.h"

namespace poppy {
namespace {

const char* kScratch = "poppy_test_usi_";
::testing::Environment* const kCleanup = testing::removeScratchRootAtExit(kScratch);

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// One in-process session: commands in, output lines out (read only while no search runs).
struct Session {
  std::ostringstream out;
  play::UsiEngine engine;
  size_t consumed = 0;

  explicit Session(play::UsiOptions options = {}, play::UsiEngine::EvaluatorFactory factory = nullptr)
      : engine(out, std::move(options), std::move(factory)) {}

  // Sends the commands; waits for a search they started; returns the new output lines.
  std::vector<std::string> send(const std::string& commands) {
    for (const std::string& c : lines(commands)) engine.handle(c);
    engine.waitForSearch();
    return fresh();
  }
  std::vector<std::string> fresh() {
    const std::string all = out.str();
    std::vector<std::string> got = lines(all.substr(consumed));
    consumed = all.size();
    return got;
  }
};

std::string bestmoveOf(const std::vector<std::string>& out) {
  for (const std::string& l : out)
    if (startsWith(l, "bestmove ")) {
      std::istringstream in(l);
      std::string word, move;
      in >> word >> move;
      return move;
    }
  return "";
}

bool contains(const std::vector<std::string>& out, const std::string& prefix) {
  return std::any_of(out.begin(), out.end(), [&](const std::string& l) { return startsWith(l, prefix); });
}

std::string joined(const std::vector<std::string>& out) {
  std::string s;
  for (const auto& l : out) s += l + "\n";
  return s;
}

// Is `move` legal after `moves` from the variant's start (parseUsi checks legality)?
bool legalAfter(const std::string& variant, const std::vector<std::string>& moves, const std::string& move,
                const std::string& sfen = "") {
  const auto v = game::loadVariant(variant);
  game::Position pos = sfen.empty() ? game::Position(v) : game::Position::fromSfen(v, sfen);
  for (const auto& m : moves) pos.makeMove(pos.parseUsi(m));
  try {
    pos.parseUsi(move);
    return true;
  } catch (const game::MoveError&) {
    return false;
  }
}

// Two legal opening plies of a variant (the first legal move each time).
std::vector<std::string> twoPlies(const std::string& variant) {
  game::Position pos(game::loadVariant(variant));
  std::vector<std::string> moves;
  for (int i = 0; i < 2; ++i) {
    game::MoveList legal;
    pos.generateLegal(legal);
    moves.push_back(pos.moveToUsi(legal[0]));
    pos.makeMove(legal[0]);
  }
  return moves;
}

TEST(Usi, HandshakeListsTheOptions) {
  Session s;
  const auto out = s.send("usi");
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(contains(out, "id name Poppy"));
  EXPECT_TRUE(contains(out, "id author"));
  for (const char* name : {"ModelFile", "UCI_Variant", "Playouts", "Threads", "MultiPV", "Book", "ResignThreshold",
                           "MoveOverhead", "EvalCoef", "UCI_ShowWDL", "USI_Hash", "Device", "Inference", "BatchSize"})
    EXPECT_TRUE(contains(out, std::string("option name ") + name + " type")) << name << "\n" << joined(out);
  for (const std::string& l : out) {
    if (!startsWith(l, "option name UCI_Variant")) continue;
    std::istringstream words(l);
    std::set<std::string> offered;
    for (std::string word, previous; words >> word; previous = word)
      if (previous == "var") offered.insert(word);
    // Every variant but yonin: USI has no four-player form.
    for (const std::string& v : game::knownVariants())
      EXPECT_EQ(offered.count(v), game::loadVariant(v)->numPlayers == 2 ? 1u : 0u) << v;
  }
  EXPECT_EQ(out.back(), "usiok");
  EXPECT_EQ(s.send("isready"), std::vector<std::string>{"readyok"});
}

TEST(Usi, GoNodesAfterMovesPlaysALegalMove) {
  Session s;
  const auto moves = twoPlies("micro");
  const auto out = s.send("isready\nusinewgame\nposition startpos moves " + moves[0] + " " + moves[1] + "\ngo nodes 200");
  const std::string best = bestmoveOf(out);
  ASSERT_FALSE(best.empty()) << joined(out);
  EXPECT_TRUE(legalAfter("micro", moves, best)) << best;
  // The final info line: the node count is the playouts asked for, the PV starts with the move.
  std::string info;
  for (const auto& l : out)
    if (startsWith(l, "info depth")) info = l;
  ASSERT_FALSE(info.empty()) << joined(out);
  EXPECT_NE(info.find(" nodes 200 "), std::string::npos) << info;
  for (const char* field : {" seldepth ", " nps ", " time ", " score cp ", " multipv 1 "})
    EXPECT_NE(info.find(field), std::string::npos) << field << " in " << info;
  EXPECT_NE(info.find(" pv " + best), std::string::npos) << info;
}

// `score cp` is on the shogi engines' scale: cp = EvalCoef x ln(p / (1 - p)) for the move's
// expected score p (dlshogi's eval_coef, 756 by default), and UCI_ShowWDL adds the chances per
// mille that p comes from (p = (W + D / 2) / 1000 for two players). Checked on every line of a
// search from positions of random play: the cp each line prints agrees with its own wdl to within
// the per-mille rounding.
TEST(Usi, ScoreIsOnTheShogiScaleOfItsWinDrawLossChances) {
  for (const int coef : {756, 100}) {
    SCOPED_TRACE("EvalCoef " + std::to_string(coef));
    Session s;
    std::vector<std::string> out = s.send("setoption name UCI_ShowWDL value true\nsetoption name EvalCoef value " +
                                          std::to_string(coef) + "\nsetoption name MultiPV value 4\n");
    EXPECT_TRUE(out.empty()) << joined(out);
    int checked = 0;
    for (const std::string& moves : {std::string(), twoPlies("micro")[0] + " " + twoPlies("micro")[1]}) {
      out = s.send("position startpos" + (moves.empty() ? "" : " moves " + moves) + "\ngo nodes 300");
      for (const auto& l : out) {
        if (!startsWith(l, "info depth") || l.find(" score cp ") == std::string::npos) continue;
        std::istringstream in(l.substr(l.find(" score cp ") + 10));
        long cp = 0, w = -1, d = -1, lo = -1;
        std::string word;
        in >> cp >> word >> w >> d >> lo;
        ASSERT_EQ(word, "wdl") << l;
        ASSERT_EQ(w + d + lo, 1000) << l;
        const double p = std::clamp((w + d / 2.0) / 1000.0, 1e-4, 1 - 1e-4);
        // p is known to +-0.001 (three roundings of half a per mille): cp to coef x 0.001 / (p (1 - p)).
        const double tolerance = coef * 0.0011 / (p * (1 - p)) + 1;
        EXPECT_NEAR(double(cp), coef * std::log(p / (1 - p)), tolerance) << l;
        ++checked;
      }
    }
    EXPECT_GT(checked, 4);
  }
  Session s;
  const auto refused = s.send("setoption name EvalCoef value 0\nsetoption name UCI_ShowWDL value maybe");
  ASSERT_EQ(refused.size(), 2u) << joined(refused);
  EXPECT_TRUE(startsWith(refused[0], "info string error: setoption EvalCoef: '0'")) << refused[0];
  EXPECT_TRUE(startsWith(refused[1], "info string error: setoption UCI_ShowWDL: 'maybe' is not true or false")) << refused[1];
}

TEST(Usi, MultiPvThreeGivesThreeRankedLines) {
  Session s;
  const auto out = s.send("setoption name MultiPV value 3\nposition startpos\ngo nodes 300");
  const std::string best = bestmoveOf(out);
  ASSERT_FALSE(best.empty()) << joined(out);
  // The last three info lines are the final report: multipv 1, 2, 3 with different first moves.
  std::vector<std::string> infos;
  for (const auto& l : out)
    if (startsWith(l, "info depth")) infos.push_back(l);
  ASSERT_GE(infos.size(), 3u) << joined(out);
  std::vector<std::string> firstMoves;
  for (int k = 1; k <= 3; ++k) {
    const std::string& l = infos[infos.size() - 3 + size_t(k) - 1];
    EXPECT_NE(l.find(" multipv " + std::to_string(k) + " "), std::string::npos) << l;
    const std::string move = l.substr(l.find(" pv ") + 4, l.find(' ', l.find(" pv ") + 4) - l.find(" pv ") - 4);
    EXPECT_TRUE(legalAfter("micro", {}, move)) << l;
    firstMoves.push_back(move);
  }
  EXPECT_EQ(firstMoves[0], best);
  std::sort(firstMoves.begin(), firstMoves.end());
  EXPECT_EQ(std::unique(firstMoves.begin(), firstMoves.end()), firstMoves.end());
}

TEST(Usi, GoInfiniteRunsUntilStopFromAnotherThread) {
  Session s;
  s.engine.handle("position startpos");
  s.engine.handle("go infinite");
  bool stillSearching = false;
  std::thread gui([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stillSearching = s.engine.searching();  // an infinite search never ends by itself
    s.engine.handle("stop");
  });
  s.engine.waitForSearch();
  gui.join();
  EXPECT_TRUE(stillSearching);
  const auto out = s.fresh();
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
  EXPECT_EQ(std::count_if(out.begin(), out.end(), [](const std::string& l) { return startsWith(l, "bestmove"); }), 1);
}

TEST(Usi, QuitDuringASearchEndsIt) {
  Session s;
  s.engine.handle("go infinite");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(s.engine.handle("quit"));
  EXPECT_FALSE(s.engine.searching());
}

TEST(Usi, BadPositionsAreReportedAndThePreviousOneKept) {
  Session s;
  const auto moves = twoPlies("micro");
  s.send("position startpos moves " + moves[0]);
  const std::string kept = s.engine.positionSfen();
  EXPECT_NE(kept, game::loadVariant("micro")->startSfen);

  auto out = s.send("position startpos moves " + moves[0] + " " + moves[1] + " 1a1a");
  ASSERT_EQ(out.size(), 1u) << joined(out);
  EXPECT_TRUE(startsWith(out[0], "info string error: position: move 3 '1a1a'")) << out[0];
  EXPECT_EQ(s.engine.positionSfen(), kept);

  out = s.send("position sfen kbgs/p3/4/3P/SGBZ b - 1");
  ASSERT_EQ(out.size(), 1u) << joined(out);
  EXPECT_TRUE(startsWith(out[0], "info string error: position: bad SFEN 'kbgs/p3/4/3P/SGBZ b - 1'")) << out[0];
  EXPECT_EQ(s.engine.positionSfen(), kept);

  for (const char* bad : {"position", "position sfen", "position startpos moved 1e1d", "position fen x"}) {
    out = s.send(bad);
    ASSERT_EQ(out.size(), 1u) << bad;
    EXPECT_TRUE(startsWith(out[0], "info string error: position: ")) << out[0];
    EXPECT_EQ(s.engine.positionSfen(), kept) << bad;
  }
  // The search then starts from the kept position.
  out = s.send("go nodes 50");
  EXPECT_TRUE(legalAfter("micro", {moves[0]}, bestmoveOf(out))) << joined(out);
}

TEST(Usi, DDrawsTheCurrentPositionAndItsSfen) {
  // `d` (not USI; Stockfish's): the board as `poppy play` draws it, then "sfen ...". Before any
  // `position` it is the start; after moves, the position the moves reach (SFEN from replaying
  // them here), with the last move's squares in brackets.
  Session s;
  auto out = s.send("d");
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), "sfen " + game::loadVariant("micro")->startSfen);
  const auto rankRows = std::count_if(out.begin(), out.end(), [](const std::string& l) { return startsWith(l, "  |"); });
  EXPECT_EQ(rankRows, 5) << joined(out);  // micro: 4 files x 5 ranks
  EXPECT_TRUE(contains(out, "  gote in hand: -")) << joined(out);
  EXPECT_TRUE(contains(out, "  sente in hand: -")) << joined(out);
  EXPECT_EQ(joined(out).find('['), std::string::npos) << joined(out);  // no move yet

  const auto moves = twoPlies("micro");
  game::Position pos(game::loadVariant("micro"));
  for (const auto& m : moves) pos.makeMove(pos.parseUsi(m));
  s.send("position startpos moves " + moves[0] + " " + moves[1]);
  out = s.send("d");
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), "sfen " + pos.sfen());
  EXPECT_NE(joined(out).find('['), std::string::npos) << joined(out);
}

TEST(Usi, UnknownCommandsAndBadWordsAreAnsweredNotFatal) {
  Session s;
  auto out = s.send("foo bar");
  EXPECT_EQ(out, std::vector<std::string>{"info string unknown command foo bar"});
  out = s.send("setoption name NoSuchOption value 3");
  EXPECT_EQ(out, std::vector<std::string>{"info string unknown option NoSuchOption (ignored)"});
  out = s.send("setoption name Playouts value lots");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(startsWith(out[0], "info string error: setoption Playouts: 'lots'")) << out[0];
  out = s.send("setoption name ResignThreshold value 1.5");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(startsWith(out[0], "info string error: setoption ResignThreshold")) << out[0];
  EXPECT_EQ(s.engine.options().resignThreshold, 0);
  // go before any position: the start position; a bad number is reported and skipped.
  out = s.send("go btime soon nodes 30");
  EXPECT_TRUE(contains(out, "info string error: go: 'btime' needs a whole number, got 'soon'")) << joined(out);
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
  // Issue 39 (10): a node limit below 1 is an error, not a silent fallback to the default search;
  // an overlong number is one error, not a second "unknown word".
  for (const std::string nodes : {"0", "-5"}) {
    out = s.send("go nodes " + nodes);
    EXPECT_TRUE(contains(out, "info string error: go: 'nodes' must be at least 1, got '" + nodes + "'")) << joined(out);
    EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
  }
  out = s.send("go nodes 123456789012345678901234567890 movetime 50");
  int errors = 0;
  for (const std::string& line : out) errors += startsWith(line, "info string error");
  EXPECT_EQ(errors, 1) << joined(out);
  EXPECT_TRUE(contains(out, "info string error: go: 'nodes' needs a whole number, got '123456789012345678901234567890'"))
      << joined(out);
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
  out = s.send("go mate soon");
  EXPECT_TRUE(contains(out, "info string error: go mate: expected milliseconds or 'infinite', got 'soon' (searching until stop)"))
      << joined(out);
  EXPECT_TRUE(s.send("gameover win").empty());
  EXPECT_TRUE(s.send("").empty());
}

// Issue 39 (10): `go searchmoves` keeps the answer to the moves given. Gote's king on 4a, sente
// to move with a gold in hand: a gold drop mates (RolloutSearchFindsMateInOne in test_analyzer.cpp),
// so an engine that ignored the list would play one.
TEST(Usi, GoSearchmovesKeepsToTheMovesGiven) {
  Session s;
  const std::string sfen = "k3/4/1G2/4/3K b G 1";
  const std::string position = "position sfen " + sfen + "\n";
  const auto mates = [&](const std::string& move) {
    game::Position pos = game::Position::fromSfen(game::loadVariant("micro"), sfen);
    pos.makeMove(pos.parseUsi(move));
    const game::Outcome o = pos.outcome(0);
    return o.over() && o.winner == 0;
  };
  auto out = s.send(position + "go nodes 2000");
  EXPECT_TRUE(mates(bestmoveOf(out))) << joined(out);
  out = s.send(position + "go nodes 2000 searchmoves 1e2e 1e1d");
  const std::string best = bestmoveOf(out);
  EXPECT_TRUE(best == "1e2e" || best == "1e1d") << joined(out);
  // A move that is not legal here is named and left out; the rest still bind the search, and a
  // limit after the list still counts.
  out = s.send(position + "go searchmoves 9z9y 1e1d nodes 500");
  EXPECT_TRUE(contains(out, "info string error: go searchmoves: '9z9y' is not a legal move here (left out)")) << joined(out);
  EXPECT_EQ(bestmoveOf(out), "1e1d") << joined(out);
  // No legal move in the list: said, and every move is searched.
  out = s.send(position + "go nodes 2000 searchmoves 4a4b");
  EXPECT_TRUE(contains(out, "info string error: go searchmoves: no legal move given; searching every move")) << joined(out);
  EXPECT_TRUE(mates(bestmoveOf(out))) << joined(out);
  out = s.send(position + "go searchmoves");
  EXPECT_TRUE(contains(out, "info string error: go: 'searchmoves' needs moves (ignored)")) << joined(out);
}

// Issue 39 (5): a chu position where the side to move has lost its last royal (sente's dragon
// took gote's only king on 5b) is a lost game, not a repetition; the engine says so and resigns.
TEST(Usi, AGameLostByRoyalCaptureIsNamedAndResigned) {
  Session s;
  const std::string sfen =
      "l1csge1+Dsf1l/af1d1xgk2ca/mvrt1tr3v1/1ppp6pm/9p1p/p4p6/3I2p5/12/PPPPPO2P1PM/MBRH2T5/AV2T3+h2L/LFCSGK1GS3 b - 99";
  s.send("setoption name UCI_Variant value chu");
  const auto out = s.send("position sfen " + sfen + " moves 5a5b\ngo nodes 50");
  EXPECT_TRUE(contains(out, "info string the game is already over: royals_captured, lost by the side to move")) << joined(out);
  EXPECT_EQ(bestmoveOf(out), "resign") << joined(out);
}

// Tsume mode. The start position has no checking move for sente (its bishop on 2e sees only 3d
// and 4c), so a checks-only mate search finishes every depth at once: "nomate".
// k3/4/P3/4/3K b G 1: G*4b mates (the gold attacks 4a, 3a and 3b; the pawn on 4c guards 4b),
// derived by hand in tests/test_mate_search.cpp.
TEST(Usi, GoMateAnswersWithTheMateOrNomate) {
  Session s;
  auto out = s.send("position startpos\ngo mate 5000");
  EXPECT_EQ(out.back(), "checkmate nomate") << joined(out);
  out = s.send("position sfen k3/4/P3/4/3K b G 1\ngo mate infinite");
  EXPECT_EQ(out.back(), "checkmate G*4b") << joined(out);
  EXPECT_TRUE(startsWith(out.front(), "info string mate search: ")) << joined(out);
}

TEST(Usi, GoMateStopsOnStopAndOnTime) {
  // Shogi after 7g7f 3c3d 8h2b+: gote has checking drops with its captured bishop, and whether
  // the 63-ply search of them ends within a millisecond depends on the machine, so either
  // answer is right here; what must hold is that a time limit and a `stop` end the search
  // promptly with one of them (the stop itself: MateSearch.TheStopTestEndsTheSearch).
  play::UsiOptions options;
  options.variant = "shogi";
  Session s(options);
  const auto isEnd = [](const std::string& line) { return line == "checkmate timeout" || line == "checkmate nomate"; };
  auto start = std::chrono::steady_clock::now();
  auto out = s.send("position startpos moves 7g7f 3c3d 8h2b+\ngo mate 1");
  EXPECT_TRUE(isEnd(out.back())) << joined(out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  start = std::chrono::steady_clock::now();
  s.engine.handle("go mate infinite");
  s.engine.handle("stop");
  s.engine.waitForSearch();
  out = s.fresh();
  ASSERT_FALSE(out.empty());
  EXPECT_TRUE(isEnd(out.back())) << joined(out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Usi, NoTimeLeftOrAnImmediateStopStillAnswersAMove) {
  // A flag about to fall, or a stop before the first playout: a legal move, never a resignation.
  Session s;
  auto out = s.send("position startpos\ngo btime 0 wtime 0 byoyomi 0");
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
  out = s.send("go nodes 4000000\nstop");
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
}

TEST(Usi, AMatedSideResigns) {
  Session s;
  // Gote to move, mated by the two golds.
  const auto out = s.send("position sfen k3/G3/1G2/4/3K w - 1\ngo btime 1000 wtime 1000 byoyomi 1000");
  EXPECT_EQ(bestmoveOf(out), "resign") << joined(out);
}

TEST(Usi, ResignsBelowTheThreshold) {
  // With a threshold above every possible win rate the engine resigns at once; at 0 it never does.
  Session s;
  auto out = s.send("setoption name ResignThreshold value 0.999\nposition startpos\ngo nodes 100");
  EXPECT_EQ(bestmoveOf(out), "resign") << joined(out);
  EXPECT_TRUE(contains(out, "info string resigning: win rate")) << joined(out);
  out = s.send("setoption name ResignThreshold value 0\ngo nodes 100");
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
}

TEST(Usi, PlaysTheBookMoveWhileInBook) {
  const auto dir = testing::freshTempDir(kScratch, "book");
  const auto v = game::loadVariant("micro");
  game::Position start(v);
  game::MoveList legal;
  start.generateLegal(legal);
  // The last legal move: the book's choice, whatever the search would prefer.
  const std::string bookMove = start.moveToUsi(legal[legal.size() - 1]);
  play::OpeningBook book("micro");
  book.set(start, {play::BookMove{bookMove, 1.0, 10, 0.5}});
  const std::string path = (dir / "book.json").string();
  book.save(path);

  Session s;
  auto out = s.send("setoption name Book value " + path + "\nisready");
  EXPECT_TRUE(contains(out, "info string book " + path + " loaded (1 positions)")) << joined(out);
  out = s.send("position startpos\ngo btime 60000 wtime 60000");
  EXPECT_TRUE(contains(out, "info string book " + bookMove)) << joined(out);
  EXPECT_EQ(bestmoveOf(out), bookMove);
  // Out of book: a search.
  out = s.send("position startpos moves " + bookMove + "\ngo nodes 50");
  EXPECT_FALSE(contains(out, "info string book")) << joined(out);
  EXPECT_TRUE(contains(out, "info depth")) << joined(out);
  EXPECT_TRUE(legalAfter("micro", {bookMove}, bestmoveOf(out)));

  // A broken book is reported and the engine plays on without one.
  testing::spit(dir / "broken.json", "{\"format\": \"poppy-book\"");
  out = s.send("setoption name Book value " + (dir / "broken.json").string() + "\nisready");
  EXPECT_TRUE(contains(out, "info string error: Book: ")) << joined(out);
  EXPECT_EQ(out.back(), "readyok");
  std::filesystem::remove_all(dir);
}

// A network that likes one move (its policy logit is high at one index).
class FavouriteMoveEvaluator : public mcts::Evaluator {
 public:
  FavouriteMoveEvaluator(int policySize, int favourite) : policySize_(policySize), favourite_(favourite) {}
  void evaluate(const float*, int batch, float* logits, float* wdl) override {
    for (int i = 0; i < batch; ++i) {
      for (int k = 0; k < policySize_; ++k) logits[size_t(i) * policySize_ + k] = k == favourite_ ? 8.0f : 0.0f;
      wdl[3 * i] = 0.3f;
      wdl[3 * i + 1] = 0.4f;
      wdl[3 * i + 2] = 0.3f;
    }
  }

 private:
  int policySize_, favourite_;
};

// Issue 16 (10): a network's first evaluations are slow (LibTorch's set-up), and the first `go`
// used to pay for them from its clock. Loading a model at `isready` now also evaluates it, so the
// first `go` finds it warm.
TEST(Usi, ANewModelIsEvaluatedAtIsReadyBeforeTheFirstGo) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  struct Counting : mcts::UniformEvaluator {
    Counting(int policySize, std::shared_ptr<std::atomic<int>> n) : UniformEvaluator(policySize), n_(std::move(n)) {}
    void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
      ++*n_;
      UniformEvaluator::evaluate(planes, batch, logits, wdl);
    }
    std::shared_ptr<std::atomic<int>> n_;
  };
  auto factory = [calls](const play::ModelRequest&, const game::Variant& v) -> std::unique_ptr<mcts::Evaluator> {
    return std::make_unique<Counting>(nn::Encoder(game::loadVariant(v.name)).policySize(), calls);
  };
  Session s({}, factory);
  s.send("usi");
  EXPECT_EQ(calls->load(), 0);
  const auto out = s.send("setoption name ModelFile value any.model\nisready");
  EXPECT_TRUE(contains(out, "readyok")) << joined(out);
  EXPECT_GT(calls->load(), 0) << "the model was not evaluated before readyok";
}

TEST(Usi, ModelsComeFromTheFactoryAndFailuresFallBackToRollouts) {
  const auto v = game::loadVariant("micro");
  game::Position start(v);
  game::MoveList legal;
  start.generateLegal(legal);
  const game::Move favourite = legal[legal.size() - 1];
  std::vector<std::string> asked;
  auto factory = [&](const play::ModelRequest& model, const game::Variant& variant) -> std::unique_ptr<mcts::Evaluator> {
    const std::string& path = model.path;
    asked.push_back(path + "@" + variant.name);
    if (path != "good.model") throw std::runtime_error("cannot open '" + path + "'");
    nn::Encoder enc(v);
    return std::make_unique<FavouriteMoveEvaluator>(enc.policySize(), enc.moveIndex(start, favourite));
  };
  Session s({}, factory);
  auto out = s.send("setoption name ModelFile value good.model\nisready");
  EXPECT_TRUE(contains(out, "info string model good.model loaded")) << joined(out);
  out = s.send("isready");  // unchanged: not loaded again
  EXPECT_EQ(asked, std::vector<std::string>{"good.model@micro"});
  out = s.send("position startpos\ngo nodes 100");
  EXPECT_EQ(bestmoveOf(out), start.moveToUsi(favourite)) << joined(out);

  out = s.send("setoption name ModelFile value missing.model\nisready");
  EXPECT_TRUE(contains(out, "info string error: ModelFile missing.model: cannot open 'missing.model'")) << joined(out);
  EXPECT_TRUE(contains(out, "info string go is refused until ModelFile names a model that loads")) << joined(out);
  out = s.send("go nodes 50");  // no silent stand-in engine: it resigns, saying why
  EXPECT_EQ(bestmoveOf(out), "resign") << joined(out);
  EXPECT_TRUE(contains(out, "info string error: no search without the model: ModelFile missing.model")) << joined(out);
  out = s.send("setoption name ModelFile value good.model\nisready\ngo nodes 100");  // fixed: plays again
  EXPECT_EQ(bestmoveOf(out), start.moveToUsi(favourite)) << joined(out);

  // No factory at all (a build without model loading): refused the same way.
  Session bare;
  out = bare.send("setoption name ModelFile value good.model\nisready");
  EXPECT_TRUE(contains(out, "info string error: ModelFile good.model")) << joined(out);
}

// Device and Inference reach the model loader (a change reloads the model at the next isready),
// BatchSize the search: the network is called with at most BatchSize leaves at once.
TEST(Usi, DeviceInferenceAndBatchSizeReachTheModelAndTheSearch) {
  struct BatchRecorder : mcts::UniformEvaluator {
    BatchRecorder(int policySize, std::shared_ptr<std::vector<int>> batches)
        : UniformEvaluator(policySize), batches_(std::move(batches)) {}
    void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
      batches_->push_back(batch);
      UniformEvaluator::evaluate(planes, batch, logits, wdl);
    }
    std::shared_ptr<std::vector<int>> batches_;
  };
  auto batches = std::make_shared<std::vector<int>>();
  std::vector<std::string> asked;
  auto factory = [&](const play::ModelRequest& model, const game::Variant& v) -> std::unique_ptr<mcts::Evaluator> {
    asked.push_back(model.path + " " + model.device + " " + model.inference);
    return std::make_unique<BatchRecorder>(nn::Encoder(game::loadVariant(v.name)).policySize(), batches);
  };
  Session s({}, factory);
  auto out = s.send("setoption name ModelFile value net.model\nisready");
  EXPECT_TRUE(contains(out, "info string model net.model loaded on cpu (inference auto)")) << joined(out);
  out = s.send("setoption name Device value cuda:1\nsetoption name Inference value eigen\nisready");
  EXPECT_EQ(asked, (std::vector<std::string>{"net.model cpu auto", "net.model cuda:1 eigen"})) << joined(out);
  s.send("setoption name Inference value eigen\nisready");  // unchanged: not loaded again
  EXPECT_EQ(asked.size(), 2u);

  out = s.send("setoption name Device value gpu");
  EXPECT_TRUE(contains(out, "info string error: setoption Device: 'gpu' is not a device (cpu, cuda or cuda:N)"))
      << joined(out);
  out = s.send("setoption name Inference value fast");
  EXPECT_TRUE(contains(out, "info string error: setoption Inference: 'fast' is not auto, torch, eigen or int8")) << joined(out);
  for (const char* bad : {"0", "257", "many"}) {
    out = s.send(std::string("setoption name BatchSize value ") + bad);
    EXPECT_TRUE(contains(out, "info string error: setoption BatchSize: '" + std::string(bad) + "'")) << joined(out);
  }
  for (const char* bad : {"0", "65537"}) {
    out = s.send(std::string("setoption name USI_Hash value ") + bad);
    EXPECT_TRUE(contains(out, "info string error: setoption USI_Hash: '" + std::string(bad) + "'")) << joined(out);
  }
  EXPECT_EQ(s.engine.options().device, "cuda:1");
  EXPECT_EQ(s.engine.options().inference, "eigen");
  EXPECT_EQ(s.engine.options().search.leavesPerTree, play::UsiOptions{}.search.leavesPerTree);
  EXPECT_EQ(s.engine.options().hashMiB, 32);
  s.send("setoption name USI_Hash value 1");
  EXPECT_EQ(s.engine.options().hashMiB, 1);

  // One search thread: every network call holds at most BatchSize leaves, and a batch of 16
  // fills well past the default 4 once the root has children to spread over.
  for (const int size : {1, 16}) {
    batches->clear();
    out = s.send("setoption name BatchSize value " + std::to_string(size) + "\nposition startpos\ngo nodes 300");
    EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
    ASSERT_FALSE(batches->empty());
    const int largest = *std::max_element(batches->begin(), batches->end());
    EXPECT_LE(largest, size);
    if (size == 16) {
      EXPECT_GT(largest, 4);
    }
  }
}

// The search settings of mcts/search_options.h are USI options: listed with their types and
// ranges, set by setoption, refused (and left unchanged) outside their values.
TEST(Usi, SearchSettingsAreOptions) {
  Session s;
  const auto listed = s.send("usi");
  for (const char* line : {"option name CPuct type string default 1.5",
                           "option name PolicyTemperature type string default 3.2",
                           "option name BatchSize type spin default 4 min 1 max 256",
                           "option name Tactics type check default true",
                           "option name LeafMatePlies type spin default 1 min 0 max 3",  // play time: docs/experiments/play-time-search.md
                           "option name RootMatePlies type spin default 5 min 0 max 31",
                           "option name RepetitionContempt type string default 0",
                           "option name MaterialWeight type string default 0",
                           "option name MaterialScale type string default 0.1"})
    EXPECT_TRUE(contains(listed, line)) << line << "\n" << joined(listed);
  s.send("setoption name CPuct value 2.5\nsetoption name tactics value false\nsetoption name LeafMatePlies value 3");
  EXPECT_FLOAT_EQ(s.engine.options().search.cpuct, 2.5f);
  EXPECT_FALSE(s.engine.options().search.solver);
  EXPECT_EQ(s.engine.options().search.leafMatePlies, 3);
  for (const char* bad : {"setoption name LeafMatePlies value 2", "setoption name CPuct value 0",
                          "setoption name CPuct value fast", "setoption name Tactics value 1"}) {
    const auto out = s.send(bad);
    EXPECT_TRUE(contains(out, "info string error: setoption ")) << bad << "\n" << joined(out);
  }
  EXPECT_FLOAT_EQ(s.engine.options().search.cpuct, 2.5f) << "a refused value leaves the option as it was";
  EXPECT_EQ(s.engine.options().search.leafMatePlies, 3);
  // The settings reach the search: with the solver and mate searches off, a search still moves.
  const auto out = s.send("position startpos\ngo nodes 50");
  EXPECT_FALSE(bestmoveOf(out).empty()) << joined(out);
}

TEST(Usi, SwitchesVariantsLikeFairyStockfish) {
  Session s;
  auto out = s.send("setoption name UCI_Variant value nosuchvariant");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(startsWith(out[0], "info string error: setoption UCI_Variant: 'nosuchvariant'")) << out[0];
  EXPECT_EQ(s.engine.options().variant, "micro");
  out = s.send("setoption name UCI_Variant value yonin");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(startsWith(out[0], "info string error: setoption UCI_Variant: 'yonin' has 4 players, and USI has no form"))
      << out[0];
  EXPECT_EQ(s.engine.options().variant, "micro");

  s.send("setoption name UCI_Variant value kyotoshogi\nisready");  // Fairy-Stockfish's name
  EXPECT_EQ(s.engine.options().variant, "kyoto");
  EXPECT_EQ(s.engine.positionSfen(), game::loadVariant("kyoto")->startSfen);
  s.send("setoption name UCI_Variant value torishogi\nisready");  // and tori's
  EXPECT_EQ(s.engine.options().variant, "tori");
  EXPECT_EQ(s.engine.positionSfen(), game::loadVariant("tori")->startSfen);

  for (const std::string variant : {"minishogi", "shogi"}) {
    const auto moves = twoPlies(variant);
    out = s.send("setoption name UCI_Variant value " + variant + "\nisready\nusinewgame\nposition startpos moves " +
                 moves[0] + " " + moves[1] + "\ngo nodes 40");
    EXPECT_TRUE(legalAfter(variant, moves, bestmoveOf(out))) << variant << "\n" << joined(out);
  }
}

TEST(Usi, MinishogiMovesAreLegalForFairyStockfish) {
  // A GUI that drives Fairy-Stockfish drives Poppy the same way: the same commands, and every
  // move Poppy answers is one Fairy-Stockfish (an independent engine) lists as legal.
  testing::FairyStockfish fairy;
  fairy.setVariant("minishogi");
  Session s;
  s.send("usi\nsetoption name USI_Hash value 16\nsetoption name USI_Ponder value false\n"
         "setoption name UCI_Variant value minishogi\nisready\nusinewgame");
  const std::string start = game::loadVariant("minishogi")->startSfen;
  std::vector<std::string> moves;
  for (int ply = 0; ply < 8; ++ply) {
    std::string cmd = "position startpos";
    if (!moves.empty()) cmd += " moves";
    for (const auto& m : moves) cmd += " " + m;
    const auto out = s.send(cmd + "\ngo btime 2000 wtime 2000 byoyomi 100 nodes 60");
    const std::string best = bestmoveOf(out);
    const auto fairyMoves = fairy.divide(start, moves, 1);
    if (fairyMoves.empty()) {
      EXPECT_EQ(best, "resign");
      break;
    }
    ASSERT_TRUE(fairyMoves.count(best)) << "ply " << ply << ": " << best << "\n" << joined(out);
    moves.push_back(best);
  }
}

TEST(Usi, PonderRunsUntilPonderhitThenKeepsTheClock) {
  Session s;
  s.engine.handle("position startpos");
  s.engine.handle("go ponder btime 2000 wtime 2000");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(s.engine.searching());  // pondering waits for the GUI
  s.engine.handle("ponderhit");       // now a normal search on a 2 s clock: it ends by itself
  s.engine.waitForSearch();
  const auto out = s.fresh();
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(out))) << joined(out);
}

TEST(Usi, AScriptedStreamEndsWithItsBestmove) {
  std::istringstream in("usi\nisready\nposition startpos\ngo nodes 100\n");
  std::ostringstream out;
  play::UsiEngine engine(out);
  engine.run(in);
  const auto got = lines(out.str());
  EXPECT_TRUE(contains(got, "usiok"));
  EXPECT_TRUE(contains(got, "readyok"));
  EXPECT_TRUE(legalAfter("micro", {}, bestmoveOf(got))) << out.str();
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
// `poppy usi` as a GUI runs it: a child process on two pipes.
class UsiProcess {
 public:
  explicit UsiProcess(const std::vector<std::string>& args) {
    int toChild[2], fromChild[2];
    if (pipe(toChild) != 0 || pipe(fromChild) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(toChild[0], 0);
      dup2(fromChild[1], 1);
      close(toChild[1]);
      close(fromChild[0]);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(toChild[0]);
    close(fromChild[1]);
    in_ = toChild[1];
    out_ = fromChild[0];
    signal(SIGPIPE, SIG_IGN);
  }
  ~UsiProcess() {
    if (in_ >= 0) close(in_);
    if (out_ >= 0) close(out_);
    if (pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void send(const std::string& line) {
    const std::string text = line + "\n";
    ASSERT_EQ(write(in_, text.data(), text.size()), ssize_t(text.size()));
  }
  // Lines up to and including the first that starts with `prefix`; gives up after `seconds`
  // (a hang guard, not a timing check).
  std::vector<std::string> readUntil(const std::string& prefix, double seconds = 60) {
    std::vector<std::string> got;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      size_t nl;
      while ((nl = buffer_.find('\n')) != std::string::npos) {
        got.push_back(buffer_.substr(0, nl));
        buffer_.erase(0, nl + 1);
        if (startsWith(got.back(), prefix)) return got;
      }
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) break;
      buffer_.append(chunk, size_t(n));
    }
    ADD_FAILURE() << "no line starting with '" << prefix << "'; got:\n" << joined(got);
    return got;
  }
  int wait() {
    close(in_);
    in_ = -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return testing::exitCodeOf(status);
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buffer_;
};

TEST(UsiBinary, AnswersWellWithinASecondOnTheClockWithTheShippedModel) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-1h.model";
  ASSERT_TRUE(std::filesystem::exists(model));
  UsiProcess engine({POPPY_BINARY, "usi", "--model", model});
  engine.send("usi");
  engine.readUntil("usiok");
  engine.send("isready");
  const auto ready = engine.readUntil("readyok");
  EXPECT_TRUE(contains(ready, "info string model " + model + " loaded")) << joined(ready);
  const auto moves = twoPlies("micro");
  for (int game = 0; game < 4; ++game) {
    engine.send("position startpos moves " + moves[0] + " " + moves[1]);
    const auto start = std::chrono::steady_clock::now();
    engine.send("go btime 1000 wtime 1000");
    const auto out = engine.readUntil("bestmove");
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(legalAfter("micro", moves, bestmoveOf(out))) << joined(out);
    // The engine had 1000 ms on its clock: answering after that is losing on time. Its budget
    // is 1000/20 = 50 ms, so this bound is loose even on a busy machine.
    EXPECT_LT(ms, 1000.0) << joined(out);
    EXPECT_TRUE(contains(out, "info depth")) << "game " << game << "\n" << joined(ready) << joined(out);
  }
  engine.send("quit");
  EXPECT_EQ(engine.wait(), 0);
}

// A model knows its variant: `usi --model` without --variant plays the model's game (whale
// shogi's here, not the default micro), as `poppy play` does; --variant still chooses.
TEST(UsiBinary, AModelWithoutVariantPlaysItsOwnGame) {
  const std::string model = std::string(POPPY_SOURCE_DIR) + "/models/whale/whale-1h.model";
  ASSERT_TRUE(std::filesystem::exists(model));
  UsiProcess engine({POPPY_BINARY, "usi", "--model", model});
  engine.send("usi");
  const auto hello = engine.readUntil("usiok");
  EXPECT_TRUE(contains(hello, "option name UCI_Variant type combo default whale")) << joined(hello);
  engine.send("isready");
  const auto ready = engine.readUntil("readyok");
  EXPECT_TRUE(contains(ready, "info string model " + model + " loaded")) << joined(ready);
  engine.send("position startpos");
  engine.send("go nodes 40");
  const auto out = engine.readUntil("bestmove");
  EXPECT_TRUE(legalAfter("whale", {}, bestmoveOf(out))) << joined(out);
  engine.send("quit");
  EXPECT_EQ(engine.wait(), 0);

  // Named, another variant refuses the model (its rules differ), at start.
  const std::string cmd = std::string(POPPY_BINARY) + " usi --variant micro --model " + model + " </dev/null 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string said;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) said += buf;
  EXPECT_EQ(testing::exitCodeOf(pclose(p)), 2) << said;
  EXPECT_NE(said.find("poppy: error: --model '" + model + "'"), std::string::npos) << said;
}

TEST(UsiBinary, BadCommandLineIsAnErrorAndEndOfInputEndsTheEngine) {
  const std::string cmd = std::string(POPPY_BINARY) + " usi --variant nosuchvariant </dev/null 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) text += buf;
  EXPECT_EQ(testing::exitCodeOf(pclose(p)), 2);
  EXPECT_NE(text.find("poppy: error:"), std::string::npos) << text;
  EXPECT_NE(text.find("nosuchvariant"), std::string::npos) << text;

  // A model that does not load stops the engine at start (it never plays as another engine),
  // and so does a directory given as the model.
  const std::filesystem::path truncated =
      std::filesystem::temp_directory_path() / ("poppy_usi_truncated_" + std::to_string(getpid()) + ".model");
  {
    std::ifstream in(std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-1h.model", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 1000u);
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  for (const std::string& model : {truncated.string(), std::filesystem::temp_directory_path().string()}) {
    FILE* q = popen((std::string(POPPY_BINARY) + " usi --model " + model + " </dev/null 2>&1").c_str(), "r");
    ASSERT_NE(q, nullptr);
    std::string said;
    while (std::fgets(buf, sizeof buf, q)) said += buf;
    EXPECT_EQ(testing::exitCodeOf(pclose(q)), 2) << said;
    EXPECT_NE(said.find("poppy: error: --model '" + model + "'"), std::string::npos) << said;
  }
  std::filesystem::remove(truncated);

  // Rollout MCTS out of the box; the GUI closing the pipe ends a pending search with its bestmove.
  UsiProcess engine({POPPY_BINARY, "usi", "--variant", "minishogi"});
  engine.send("position startpos");
  engine.send("go nodes 50");
  const auto out = engine.readUntil("bestmove");
  EXPECT_TRUE(legalAfter("minishogi", {}, bestmoveOf(out))) << joined(out);
  EXPECT_EQ(engine.wait(), 0);
}

// Issue 45: small, quasi, cubic, cannon and miburi shogi over USI, chosen by --variant and by UCI_Variant, after
// moves of their new pieces (small: the drunk elephant 5h4h; quasi: the bishop's orthogonal step
// 8h7h; cubic: the chess knight 6h4g; cannon: the silver cannon over its pawn, 7h7d; miburi,
// whose SFEN has a fifth field, from its start).
TEST(UsiBinary, SeedShogiVariantsPlayLegalMoves) {
  for (const auto& [variant, opening] : {std::pair<std::string, std::string>{"small", "5h4h"},
                                         {"quasi", "8h7h"},
                                         {"cubic", "6h4g"},
                                         {"cannon", "7h7d"},
                                         {"miburi", "7g7f"}, {"annan", "7g7f"}, {"unashogi", "K*5e"}, {"hand", "5g5f"}}) {
    SCOPED_TRACE(variant);
    UsiProcess engine({POPPY_BINARY, "usi", "--variant", variant});
    engine.send("position startpos moves " + opening);
    engine.send("go nodes 50");
    const auto out = engine.readUntil("bestmove");
    EXPECT_TRUE(legalAfter(variant, {opening}, bestmoveOf(out))) << joined(out);
    engine.send("quit");
    EXPECT_EQ(engine.wait(), 0);
  }
  UsiProcess engine({POPPY_BINARY, "usi"});
  engine.send("setoption name UCI_Variant value small");
  engine.send("isready");
  engine.readUntil("readyok");
  engine.send("position startpos");
  engine.send("go nodes 50");
  const auto out = engine.readUntil("bestmove");
  EXPECT_TRUE(legalAfter("small", {}, bestmoveOf(out))) << joined(out);
  engine.send("quit");
  EXPECT_EQ(engine.wait(), 0);
}

#endif  // POPPY_BINARY

}  // namespace
}  // namespace poppy
