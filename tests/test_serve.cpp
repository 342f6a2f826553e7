// `poppy serve`: the game API without sockets (play::WebApi), its error replies through the
// real server (httplib's client), and the page end to end in headless Chromium: the page's
// ?selftest=1 mode clicks a piece and a highlighted target through the page's own handlers,
// waits for the engine's reply, then tries a forbidden move; the test checks the dumped DOM
// against the server's state.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <netinet/in.h>
#include <gtest/gtest.h>

#ifdef POPPY_BINARY  // the client of the real server; built with LibTorch only
#include <httplib.h>
#endif
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "game/position.h"
#include "game/variant_loader.h"
#include "mcts/evaluator.h"
#include "nn/encoder.h"
#include "play/shipped_models.h"
#include "play/human/web_api.h"
#include "support/position_helpers.h"
#include "support/scratch_files.h"

extern char** environ;

namespace poppy {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;
using poppy::testing::exitCodeOf;
using poppy::testing::freshTempDir;
using poppy::testing::shellQuote;
using poppy::testing::slurp;

const auto* const kCleanup = poppy::testing::removeScratchRootAtExit("poppy_test_serve_");

play::WebApi makeApi(play::WebApiOptions options = {}) {
  std::vector<game::VariantPtr> variants;
  for (const auto& name : game::knownVariants()) variants.push_back(game::loadVariant(name));  // as poppy serve
  options.playouts = 32;
  return play::WebApi(variants, options);
}

json post(play::WebApi& api, const std::string& path, const json& body, int expectStatus = 200) {
  const play::ApiReply r = api.route("POST", path, {}, body.dump());
  EXPECT_EQ(r.status, expectStatus) << path << " " << body.dump() << " -> " << r.body.dump();
  return r.body;
}

json get(play::WebApi& api, const std::string& path, const std::map<std::string, std::string>& query,
         int expectStatus = 200) {
  const play::ApiReply r = api.route("GET", path, query, "");
  EXPECT_EQ(r.status, expectStatus) << path << " -> " << r.body.dump();
  return r.body;
}

// The board of a state as "square:token:colour" for every occupied square (the page tests;
// unused when the poppy command is not built).
[[maybe_unused]] std::map<std::string, std::string> boardOf(const json& state) {
  std::map<std::string, std::string> out;
  for (const auto& sq : state.at("board"))
    if (!sq.at("piece").is_null())
      out[sq.at("square")] = sq.at("piece").at("token").get<std::string>() + ":" +
                             sq.at("piece").at("color").get<std::string>();
  return out;
}

// Replays a state's history from its start and checks every move is legal; returns the end SFEN.
std::string replay(const json& state) {
  auto v = game::loadVariant(state.at("variant").get<std::string>());
  game::Position pos = game::Position::fromSfen(v, state.at("start_sfen"));
  for (const auto& m : state.at("history")) pos.makeMove(pos.parseUsi(m.get<std::string>()));  // throws if illegal
  return pos.sfen();
}

TEST(WebApi, VariantsAreListedWithTheirBoards) {
  auto api = makeApi();
  const json v = get(api, "/api/variants", {});
  EXPECT_EQ(v.at("default"), "micro");
  bool micro = false, shogi = false, yonin = false;
  for (const auto& x : v.at("variants")) {
    if (x.at("name") == "micro") micro = x.at("files") == 4 && x.at("ranks") == 5 && x.at("players") == 2;
    if (x.at("name") == "shogi") shogi = x.at("files") == 9 && x.at("ranks") == 9;
    if (x.at("name") == "yonin")
      yonin = x.at("players") == 4 && x.at("seats") == json{"south", "west", "north", "east"};
    // Rollout MCTS plays two players; four search with the uniform network.
    EXPECT_EQ(x.at("engine"), x.at("name") == "yonin" ? "uniform network" : "rollout MCTS") << x.at("name");
  }
  EXPECT_TRUE(micro);
  EXPECT_TRUE(shogi);
  EXPECT_TRUE(yonin);
}

TEST(WebApi, NewGameStateMatchesThePosition) {
  auto api = makeApi();
  const json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "sente"}});
  auto v = game::loadVariant("micro");
  const game::Position pos(v);
  EXPECT_EQ(s.at("sfen"), pos.sfen());
  EXPECT_EQ(s.at("side_to_move"), "sente");
  EXPECT_EQ(s.at("human"), "sente");
  ASSERT_EQ(s.at("board").size(), 20u);
  for (game::Square sq = 0; sq < v->numSquares(); ++sq) {
    const json& cell = s.at("board")[sq];
    EXPECT_EQ(cell.at("square"), pos.squareName(sq));
    EXPECT_EQ(cell.at("piece").is_null(), pos.at(sq) == game::kEmpty);
  }
  game::MoveList legal;
  pos.generateLegal(legal);
  ASSERT_EQ(s.at("legal_moves").size(), size_t(legal.size()));
  for (int i = 0; i < legal.size(); ++i) EXPECT_EQ(s.at("legal_moves")[i].at("usi"), pos.moveToUsi(legal[i]));
  EXPECT_FALSE(s.at("game_over"));
  EXPECT_TRUE(s.at("last_move").is_null());
}

TEST(WebApi, LegalMoveIsPlayedAndIllegalOneRefused) {
  auto api = makeApi();
  const json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}});
  const std::string id = s.at("game");
  const std::string first = s.at("legal_moves")[0].at("usi");
  const json after = post(api, "/api/move", {{"game", id}, {"move", first}});
  auto v = game::loadVariant("micro");
  game::Position pos(v);
  pos.makeMove(pos.parseUsi(first));
  EXPECT_EQ(after.at("sfen"), pos.sfen());
  EXPECT_EQ(after.at("side_to_move"), "gote");
  EXPECT_EQ(after.at("last_move").at("usi"), first);
  EXPECT_EQ(after.at("history"), json::array({first}));

  // Gote's king may not jump across the board; a move by the wrong side is refused too.
  const json bad = post(api, "/api/move", {{"game", id}, {"move", "4a1e"}}, 400);
  EXPECT_NE(bad.at("error").get<std::string>().find("illegal move"), std::string::npos) << bad.dump();
  EXPECT_NE(bad.at("error").get<std::string>().find("4a1e"), std::string::npos) << bad.dump();
  const json garbage = post(api, "/api/move", {{"game", id}, {"move", "zz"}}, 400);
  EXPECT_NE(garbage.at("error").get<std::string>().find("zz"), std::string::npos);
  EXPECT_EQ(get(api, "/api/state", {{"game", id}}).at("sfen"), pos.sfen());  // unchanged
}

// The study board: a pasted game becomes a record to step through (the expected positions are
// the moves played here on a Position; the KIF is written by hand from the game).
TEST(WebApi, StudyBoardLoadsStepsAndExportsARecord) {
  auto api = makeApi();
  auto shogi = game::loadVariant("shogi");
  auto after = [&](const std::vector<std::string>& moves) {
    game::Position pos(shogi);
    for (const auto& m : moves) pos.makeMove(pos.parseUsi(m));
    return pos.sfen();
  };
  const std::vector<std::string> line = {"7g7f", "3c3d", "8h2b+", "3a2b"};
  // A USI position command.
  json s = post(api, "/api/load", {{"text", "position startpos moves 7g7f 3c3d 8h2b+ 3a2b"}, {"variant", "shogi"}});
  const std::string id = s.at("game");
  EXPECT_EQ(s.at("record"), json(line));
  EXPECT_EQ(s.at("record_at"), 4);
  EXPECT_EQ(s.at("sfen"), after(line));
  EXPECT_EQ(s.at("human"), "both");
  // Stepping back and forth keeps the record; the position is the record's at that ply.
  s = post(api, "/api/goto", {{"game", id}, {"ply", 1}});
  EXPECT_EQ(s.at("sfen"), after({"7g7f"}));
  EXPECT_EQ(s.at("history"), json::array({"7g7f"}));
  EXPECT_EQ(s.at("record"), json(line));
  s = post(api, "/api/goto", {{"game", id}, {"ply", 3}});
  EXPECT_EQ(s.at("sfen"), after({"7g7f", "3c3d", "8h2b+"}));
  // The record's own next move keeps the line; another move starts a new one from there.
  s = post(api, "/api/move", {{"game", id}, {"move", "3a2b"}});
  EXPECT_EQ(s.at("record"), json(line));
  post(api, "/api/goto", {{"game", id}, {"ply", 1}});
  s = post(api, "/api/move", {{"game", id}, {"move", "8c8d"}});
  EXPECT_EQ(s.at("record"), json::array({"7g7f", "8c8d"}));
  EXPECT_EQ(s.at("record_at"), 2);
  post(api, "/api/goto", {{"game", id}, {"ply", 3}}, 400);

  // KIF, written by hand: the same four moves, "同　銀" taking back on 2b.
  const std::string kifText =
      "手合割：平手\n先手：A\n後手：B\n手数----指手---------消費時間--\n"
      "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 投了\n";
  s = post(api, "/api/load", {{"text", kifText}});
  EXPECT_EQ(s.at("record"), json(line));
  EXPECT_EQ(s.at("variant"), "shogi");
  const json kif = get(api, "/api/kif", {{"game", s.at("game")}});
  const std::string k = kif.at("kif");
  for (const char* want : {"手合割：平手", "７六歩(77)", "３四歩(33)", "２二角成(88)", "同　銀(31)"})
    EXPECT_NE(k.find(want), std::string::npos) << want << "\n" << k;
  // CSA, and one of Poppy's JSONL game records.
  s = post(api, "/api/load", {{"text", "V2.2\nPI\n+\n+7776FU\n-3334FU\n"}});
  EXPECT_EQ(s.at("record"), json::array({"7g7f", "3c3d"}));
  s = post(api, "/api/load",
           {{"text", R"({"id":"r1","variant":"minishogi","start":"rbsgk/4p/5/P4/KGSBR b - 1","moves":["5e4d"],)"
                     R"("result":"draw","reason":"unfinished","plies":1,"model":"m"})"}});
  EXPECT_EQ(s.at("variant"), "minishogi");
  EXPECT_EQ(s.at("record"), json::array({"5e4d"}));
  // An SFEN alone: a record of no moves.
  s = post(api, "/api/load", {{"text", "kbgs/p3/4/3P/SGBK b - 1"}, {"variant", "micro"}});
  EXPECT_EQ(s.at("record"), json::array());
  EXPECT_EQ(s.at("record_at"), 0);

  // Errors name the input and what is wrong.
  auto error = [&](const json& reply, const std::string& needle) {
    EXPECT_NE(reply.at("error").get<std::string>().find(needle), std::string::npos) << reply.dump();
  };
  error(post(api, "/api/load", {{"text", "  "}}, 400), "empty");
  error(post(api, "/api/load", {{"text", "position startpos moves 7g7f 7g7f"}, {"variant", "shogi"}}, 400),
        "move 2 (7g7f) is illegal");
  error(post(api, "/api/load", {{"text", "not a game at all"}, {"variant", "shogi"}}, 400), "SFEN");
  error(post(api, "/api/goto", {{"game", id}, {"ply", 99}}, 400), "not in the record (0 to 2)");
  error(post(api, "/api/goto", {{"game", id}}, 400), "\"ply\"");
  const json micro = post(api, "/api/new", {{"variant", "micro"}});
  error(get(api, "/api/kif", {{"game", micro.at("game")}}, 400), "no KIF");
}

TEST(WebApi, BadRequestsGetClearErrors) {
  auto api = makeApi();
  auto error = [&](const play::ApiReply& r, int status, const std::string& needle) {
    EXPECT_EQ(r.status, status) << r.body.dump();
    ASSERT_TRUE(r.body.contains("error")) << r.body.dump();
    EXPECT_NE(r.body.at("error").get<std::string>().find(needle), std::string::npos) << r.body.dump();
  };
  error(api.route("POST", "/api/new", {}, "{\"variant\": "), 400, "malformed JSON");
  error(api.route("POST", "/api/new", {}, "[1,2]"), 400, "JSON object");
  error(api.route("POST", "/api/new", {}, R"({"variant": "chess"})"), 400, "unknown variant \"chess\"");
  error(api.route("POST", "/api/new", {}, R"({"variant": 5})"), 400, "\"variant\" must be a string");
  error(api.route("POST", "/api/new", {}, R"({"side": "north"})"), 400, "north");
  error(api.route("POST", "/api/new", {}, R"({"sfen": "kbgs/p3/4/3P/SGBK x - 1"})"), 400, "bad SFEN");
  error(api.route("POST", "/api/new", {}, R"({"sfen": "kbgs/p3/4/3P b - 1"})"), 400, "bad SFEN");
  error(api.route("GET", "/api/state", {{"game", "g999-1"}}, ""), 404, "unknown game \"g999-1\"");
  error(api.route("GET", "/api/state", {}, ""), 400, "\"game\"");
  error(api.route("POST", "/api/move", {}, R"({"move": "1d1c"})"), 400, "\"game\"");
  error(api.route("POST", "/api/move", {}, R"({"game": "nope", "move": "1d1c"})"), 404, "unknown game");
  error(api.route("GET", "/api/move", {}, ""), 405, "POST");
  error(api.route("POST", "/api/variants", {}, "{}"), 405, "GET");
  error(api.route("GET", "/api/teapot", {}, ""), 404, "/api/teapot");
  error(api.route("GET", "/api/openings", {{"sfen", "not a position"}}, ""), 400, "bad SFEN");
  error(api.route("GET", "/api/analysis", {{"game", "x"}, {"playouts", "many"}}, ""), 400, "many");
  const std::string id = post(api, "/api/new", json::object()).at("game");
  error(api.route("POST", "/api/engine-move", {}, json{{"game", id}, {"playouts", 10000000}}.dump()), 400,
        "playouts");
  // An integer too large for int is refused as such, not wrapped round (10^10 wrapped to 1,410,065,408).
  error(api.route("POST", "/api/engine-move", {}, R"({"game": ")" + id + R"(", "playouts": 10000000000})"), 400,
        "\"playouts\" must be an integer below 2^31");
  error(api.route("POST", "/api/engine-move", {}, R"({"game": ")" + id + R"(", "playouts": 1e36})"), 400,
        "\"playouts\" must be an integer");
  error(api.route("POST", "/api/undo", {}, json{{"game", id}}.dump()), 400, "nothing to undo");
}

// Errors quote the request, whose bytes need not be UTF-8; the reply must still be sendable
// (nlohmann's dump() throws on invalid UTF-8, and `poppy serve` then answered 500 instead of the
// 400). Found by fuzz/fuzz_web_api with the body "\xa8(1,2]".
TEST(WebApi, ErrorsQuotingBytesThatAreNotUtf8CanBeSent) {
  auto api = makeApi();
  const std::vector<play::ApiReply> replies = {
      api.route("POST", "/api/new", {}, "\xa8(1,2]"),
      api.route("GET", "/api/state", {{"game", "g\xff\xfe"}}, ""),
      api.route("GET", "/api/te\xc3", {}, ""),
      api.route("GET", "/api/openings", {{"sfen", "kbgs/p3/4/3P/SGBK \xe2\x82 - 1"}}, ""),
  };
  for (const play::ApiReply& r : replies) {
    EXPECT_GE(r.status, 400);
    EXPECT_LT(r.status, 500);
    std::string sent;
    ASSERT_NO_THROW(sent = r.body.dump()) << r.body.dump(-1, ' ', false, json::error_handler_t::replace);
    EXPECT_NE(sent.find("\xef\xbf\xbd"), std::string::npos) << sent;  // a bad byte shows as U+FFFD
  }
  EXPECT_NE(replies[0].body.dump().find("malformed JSON"), std::string::npos);
  EXPECT_NE(replies[1].body.dump().find("unknown game \\\"g"), std::string::npos) << replies[1].body.dump();
}

TEST(WebApi, EachSideMovesOnlyOnItsOwnTurn) {
  // The person plays sente: a move for gote is refused, and the engine will not play sente.
  auto api = makeApi();
  const json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "sente"}});
  const std::string id = s.at("game");
  const json early = post(api, "/api/engine-move", {{"game", id}}, 409);
  EXPECT_NE(early.at("error").get<std::string>().find("it is your move (sente)"), std::string::npos) << early.dump();
  const json mine = post(api, "/api/move", {{"game", id}, {"move", s.at("legal_moves")[0].at("usi")}});
  const std::string gotesMove = mine.at("legal_moves")[0].at("usi");
  const json notMine = post(api, "/api/move", {{"game", id}, {"move", gotesMove}}, 409);
  EXPECT_NE(notMine.at("error").get<std::string>().find("it is the engine's move (gote)"), std::string::npos)
      << notMine.dump();
  EXPECT_EQ(get(api, "/api/state", {{"game", id}}).at("history").size(), 1u);  // nothing played
  post(api, "/api/engine-move", {{"game", id}});  // gote: the engine's turn
}

TEST(WebApi, EngineRepliesWithALegalMoveAndUndoTakesBothBack) {
  auto api = makeApi();
  const json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "sente"}});
  const std::string id = s.at("game");
  const std::string mine = s.at("legal_moves")[0].at("usi");
  post(api, "/api/move", {{"game", id}, {"move", mine}});
  const json r = post(api, "/api/engine-move", {{"game", id}});
  const json& state = r.at("state");
  ASSERT_EQ(state.at("history").size(), 2u);
  EXPECT_EQ(state.at("history")[1], r.at("move"));
  EXPECT_EQ(replay(state), state.at("sfen"));  // both moves legal, state consistent
  EXPECT_EQ(state.at("side_to_move"), "sente");
  const json& a = r.at("analysis");
  EXPECT_EQ(a.at("side_to_move"), "gote");
  EXPECT_EQ(a.at("playouts"), 32);
  EXPECT_FALSE(a.at("network"));
  EXPECT_EQ(a.at("moves")[0].at("usi"), r.at("move"));  // the most visited move is played
  double shares = 0, heat = 0;
  for (const auto& m : a.at("moves")) shares += m.at("share").get<double>();
  for (const auto& [sq, value] : a.at("heat").items()) heat += value.get<double>();
  EXPECT_NEAR(shares, 1.0, 1e-6);
  EXPECT_NEAR(heat, 1.0, 1e-4);  // priors per destination square add up to the whole policy

  const json back = post(api, "/api/undo", {{"game", id}});
  EXPECT_EQ(back.at("sfen"), s.at("sfen"));
  EXPECT_TRUE(back.at("history").empty());
  EXPECT_EQ(back.at("side_to_move"), "sente");
}

TEST(WebApi, AnalysisReportsWinRateTopMovesAndHeatMap) {
  auto api = makeApi();
  const std::string id = post(api, "/api/new", {{"variant", "minishogi"}}).at("game");
  const json a = get(api, "/api/analysis", {{"game", id}, {"playouts", "40"}});
  EXPECT_EQ(a.at("playouts"), 40);
  EXPECT_GE(a.at("win_rate").get<double>(), 0.0);
  EXPECT_LE(a.at("win_rate").get<double>(), 1.0);
  ASSERT_FALSE(a.at("moves").empty());
  for (const auto& m : a.at("moves")) {
    EXPECT_EQ(m.at("pv")[0], m.at("usi"));
    EXPECT_TRUE(a.at("heat").contains(m.at("to").get<std::string>()));
  }
}

// Uniform answers, counting the positions asked.
class CountingEvaluator : public mcts::UniformEvaluator {
 public:
  explicit CountingEvaluator(int policySize) : UniformEvaluator(policySize) {}
  void evaluate(const float* planes, int batch, float* logits, float* wdl) override {
    positions += batch;
    UniformEvaluator::evaluate(planes, batch, logits, wdl);
  }
  std::atomic<int> positions{0};
};

// With a network, the server keeps its search between requests as `poppy usi` does: the
// analysis of a position it has just searched asks the network nothing more (a fresh search per
// request asked it again), a continuation of the game starts from the subtree of the moves
// played, and another game's search, which replaces the tree, still finds the first game's
// positions in the cache.
TEST(WebApi, SearchesOfAGameKeepTheTreeAndTheCache) {
  const game::VariantPtr micro = game::loadVariant("micro");
  CountingEvaluator network(nn::Encoder(micro).policySize());
  play::WebApiOptions options;
  options.models["micro"] = {&network, "counting"};
  auto api = makeApi(options);
  const std::string id = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}}).at("game");
  const json first = get(api, "/api/analysis", {{"game", id}, {"playouts", "200"}});
  EXPECT_TRUE(first.at("network"));
  const int searched = network.positions;
  ASSERT_GT(searched, 20);
  const json again = get(api, "/api/analysis", {{"game", id}, {"playouts", "200"}});
  EXPECT_EQ(network.positions, searched) << "the same position searched again from scratch";
  EXPECT_EQ(again.at("moves"), first.at("moves"));

  // The most visited move, then the analysis after it: its subtree's visits are kept.
  const std::string best = first.at("moves")[0].at("usi");
  const int bestVisits = first.at("moves")[0].at("visits");
  post(api, "/api/move", {{"game", id}, {"move", best}});
  const json after = get(api, "/api/analysis", {{"game", id}, {"playouts", "200"}});
  EXPECT_LE(network.positions - searched, 200 - bestVisits + 8) << "the subtree of " << best << " was not reused";

  // Another game from the start: a new tree, but its positions are in the cache already.
  const int before = network.positions;
  const std::string other = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}}).at("game");
  get(api, "/api/analysis", {{"game", other}, {"playouts", "200"}});
  EXPECT_LT(network.positions - before, searched / 2) << "the cache was emptied between games";
}

// Issue 16 (9): the server cannot see a client that gave up, so no search may hold the engine
// longer than maxSearchSeconds: a 100,000-playout analysis (rollouts: seconds of work) stops at
// the limit with what it has, and the next request is served at once.
TEST(WebApi, NoSearchHoldsTheEngineLongerThanTheLimit) {
  play::WebApiOptions options;
  options.maxSearchSeconds = 0.3;
  auto api = makeApi(options);
  const std::string id = post(api, "/api/new", {{"variant", "shogi"}}).at("game");
  const auto start = std::chrono::steady_clock::now();
  const json a = get(api, "/api/analysis", {{"game", id}, {"playouts", "100000"}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(a.at("playouts").get<int>(), 100000) << "the search was not cut at the time limit";
  EXPECT_GT(a.at("playouts").get<int>(), 0);
  EXPECT_LT(seconds, 3.0) << "a 0.3 s limit held the engine for " << seconds << " s";
  EXPECT_EQ(get(api, "/api/analysis", {{"game", id}, {"playouts", "20"}}).at("playouts"), 20);
}

// Issue 39 (8): reads never wait behind a game's searches. While an analysis and then an engine
// move of the game search (each until its client leaves, at most 20 s), GET /api/state answers
// at once with the game as it stands; an undo during the engine's search makes that search
// stale, so its move is refused (409), not played on a game that changed under it.
TEST(WebApi, StateIsReadWhileTheGameIsSearched) {
  play::WebApiOptions options;
  options.maxSearchSeconds = 20;
  auto api = makeApi(options);
  const std::string id = post(api, "/api/new", {{"variant", "shogi"}, {"humans", {"sente", "gote"}}}).at("game");
  post(api, "/api/move", {{"game", id}, {"move", "7g7f"}});
  for (const std::string endpoint : {"analysis", "engine-move"}) {
    SCOPED_TRACE(endpoint);
    std::atomic<bool> abandoned{false}, searchDone{false};
    play::ApiReply searchReply;
    std::thread searcher([&] {
      searchReply = endpoint == "analysis"
                        ? api.route("GET", "/api/analysis", {{"game", id}, {"playouts", "100000"}}, "", &abandoned)
                        : api.route("POST", "/api/engine-move", {}, json{{"game", id}, {"playouts", 100000}}.dump(),
                                    &abandoned);
      searchDone = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the search is under way
    const json state = get(api, "/api/state", {{"game", id}});
    EXPECT_FALSE(searchDone.load()) << "the state was read only after the search ended";
    EXPECT_EQ(state.at("history").size(), 1u);
    if (endpoint == "engine-move") {
      EXPECT_EQ(post(api, "/api/undo", {{"game", id}}).at("history").size(), 0u);
      EXPECT_FALSE(searchDone.load()) << "the undo waited for the search";
    }
    abandoned = true;
    searcher.join();
    EXPECT_EQ(searchReply.status, play::kAbandonedStatus) << searchReply.body.dump();
  }
  // Not abandoned: an engine move whose game changed during its search is refused.
  post(api, "/api/move", {{"game", id}, {"move", "7g7f"}});
  std::atomic<bool> searchDone{false};
  play::ApiReply stale;
  std::thread searcher([&] {
    stale = api.route("POST", "/api/engine-move", {}, json{{"game", id}, {"playouts", 5000}}.dump());
    searchDone = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const bool undoneDuringTheSearch = !searchDone.load();
  post(api, "/api/undo", {{"game", id}});
  searcher.join();
  if (undoneDuringTheSearch) {
    EXPECT_EQ(stale.status, 409) << stale.body.dump();
    EXPECT_THAT(stale.body.value("error", ""), HasSubstr("the game changed during the engine's search"));
    EXPECT_TRUE(get(api, "/api/state", {{"game", id}}).at("history").empty());
  }
}

// A search whose client left (the server sets `abandoned`) stops at once, and an engine move
// cut short so is not played: the game is as it was.
TEST(WebApi, AbandonedSearchStopsAndChangesNothing) {
  play::WebApiOptions options;
  options.maxSearchSeconds = 60;
  auto api = makeApi(options);
  const json created = post(api, "/api/new", {{"variant", "shogi"}, {"side", "gote"}});
  const std::string id = created.at("game");
  std::atomic<bool> abandoned{false};
  std::thread leaver([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    abandoned = true;
  });
  const auto start = std::chrono::steady_clock::now();
  const play::ApiReply r =
      api.route("POST", "/api/engine-move", {}, json{{"game", id}, {"playouts", 100000}}.dump(), &abandoned);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  leaver.join();
  EXPECT_EQ(r.status, play::kAbandonedStatus) << r.body.dump();
  EXPECT_THAT(r.body.value("error", ""), HasSubstr("client closed"));
  EXPECT_LT(seconds, 3.0) << "the abandoned search went on for " << seconds << " s";
  EXPECT_TRUE(get(api, "/api/state", {{"game", id}}).at("history").empty()) << "an abandoned engine move was played";
  // The same request, not abandoned, plays.
  EXPECT_EQ(post(api, "/api/engine-move", {{"game", id}, {"playouts", 20}}).at("state").at("history").size(), 1u);
}

TEST(WebApi, GameOverIsReportedAndFurtherMovesRefused) {
  auto api = makeApi();
  // Sente drops the gold on 4b, guarded by the gold on 3c: mate.
  const json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}, {"sfen", "k3/4/1G2/4/3K b G 1"}});
  const std::string id = s.at("game");
  const json over = post(api, "/api/move", {{"game", id}, {"move", "G*4b"}});
  EXPECT_TRUE(over.at("game_over"));
  EXPECT_EQ(over.at("result").at("reason"), "checkmate");
  EXPECT_EQ(over.at("result").at("winner"), "sente");
  EXPECT_TRUE(over.at("legal_moves").empty());
  const json refused = post(api, "/api/engine-move", {{"game", id}}, 409);
  EXPECT_NE(refused.at("error").get<std::string>().find("over"), std::string::npos);
  // In a two-person game undo takes back exactly one move.
  EXPECT_EQ(post(api, "/api/undo", {{"game", id}}).at("sfen"), s.at("sfen"));
}

TEST(WebApi, OptionalPromotionAndDropFacesAreBothListed) {
  auto api = makeApi();
  // Minishogi: the rook entering the far rank may promote or not.
  const json s = post(api, "/api/new", {{"variant", "minishogi"}, {"side", "both"}, {"sfen", "k4/5/5/4R/4K b - 1"}});
  std::map<std::string, std::string> to1a;
  for (const auto& m : s.at("legal_moves"))
    if (m.at("from") == "1d" && m.at("to") == "1a") to1a[m.at("usi")] = m.at("name");
  EXPECT_EQ(to1a, (std::map<std::string, std::string>{{"1d1a", "rook"}, {"1d1a+", "dragon"}}));
  // Micro: a pawn in hand may be dropped either side up.
  const json d = post(api, "/api/new", {{"variant", "micro"}, {"sfen", "k3/4/4/4/3K b P 1"}});
  std::map<std::string, std::string> drops;
  for (const auto& m : d.at("legal_moves"))
    if (m.at("to") == "2c" && m.at("drop") == "P") drops[m.at("usi")] = m.at("name");
  EXPECT_EQ(drops, (std::map<std::string, std::string>{{"P*2c", "pawn"}, {"+P*2c", "knight"}}));
  EXPECT_EQ(d.at("hands").at("sente")[0].at("letter"), "P");
  EXPECT_EQ(d.at("hands").at("sente")[0].at("count"), 1);
}

TEST(WebApi, BurnsListTheSquaresTheyEmpty) {
  // The fire demon test board (tests/data/fire_demon.yaml): sente's fire demon on 4d, gote
  // pawns on 4c and 3e. Moving to 3d it may burn neither, either, or both (hand derivation in
  // tests/test_fire_demon.cpp); the page lists each with the squares it empties.
  std::vector<game::VariantPtr> variants = {game::loadVariant("tests/data/fire_demon.yaml")};
  play::WebApiOptions options;
  options.playouts = 8;
  options.defaultVariant = "fire_demon_test";
  play::WebApi api(variants, options);
  const json s = post(api, "/api/new",
                      {{"variant", "fire_demon_test"}, {"side", "both"}, {"sfen", "k6/7/3p3/3Z3/4p2/7/6K b - 1"}});
  std::map<std::string, json> to3d;
  for (const auto& m : s.at("legal_moves"))
    if (m.at("from") == "4d" && m.at("to") == "3d") to3d[m.at("usi")] = m.at("burns");
  EXPECT_EQ(to3d, (std::map<std::string, json>{{"4d3d", json::array()},
                                               {"4d3dx4c", json::array({"4c"})},
                                               {"4d3dx3e", json::array({"3e"})},
                                               {"4d3dx3ex4c", json::array({"3e", "4c"})}}));
  const json after = post(api, "/api/move", {{"game", s.at("game")}, {"move", "4d3dx3ex4c"}});
  EXPECT_EQ(after.at("history"), json::array({"4d3dx3ex4c"}));
  EXPECT_EQ(after.at("hands").at("sente")[0].at("count"), 2);
}

// Mitsugumi's rules refuse a move with their reason, through the API as through `position` and
// `play` (all three pass on the rules' message): burning a fire demon (the fire demon board: a
// gote fire demon on 5e next to 4e), moving a frozen piece and a skip answering a skip (the
// tetrarch board, tests/test_tetrarch.cpp).
TEST(WebApi, MitsugumiRulesNameWhyAMoveIsRefused) {
  std::vector<game::VariantPtr> variants = {game::loadVariant("tests/data/fire_demon.yaml"),
                                            game::loadVariant("tests/data/tetrarch.yaml")};
  play::WebApiOptions options;
  options.playouts = 8;
  options.defaultVariant = "fire_demon_test";
  play::WebApi api(variants, options);
  auto refusal = [&](const std::string& variant, const std::string& sfen, const std::vector<std::string>& moves) {
    const json s = post(api, "/api/new", {{"variant", variant}, {"side", "both"}, {"sfen", sfen}});
    for (size_t i = 0; i + 1 < moves.size(); ++i) post(api, "/api/move", {{"game", s.at("game")}, {"move", moves[i]}});
    return post(api, "/api/move", {{"game", s.at("game")}, {"move", moves.back()}}, 400).at("error").get<std::string>();
  };
  EXPECT_THAT(refusal("fire_demon_test", "k6/7/3p3/3Z3/2z1p2/7/6K b - 1", {"4d4ex5e"}),
              HasSubstr("burning never takes the fire demon on 5e"));
  EXPECT_THAT(refusal("tetrarch_test", "1k5/7/4g2/3T3/2p4/7/5K1 w - 1", {"3c3d"}), HasSubstr("the piece on 3c is frozen"));
  EXPECT_THAT(refusal("tetrarch_test", "1k1n3/7/7/7/3N3/7/5K1 b - 1", {"4e4d4e", "4a4b4a"}),
              HasSubstr("a turn skip may not answer the opponent's turn skip"));
}

TEST(WebApi, OpeningExplorerGoesDownTheTree) {
  auto v = game::loadVariant("micro");
  play::OpeningBook book("micro");
  const game::Position start(v);
  game::MoveList legal;
  start.generateLegal(legal);
  const std::string bookMove = start.moveToUsi(legal[0]);
  book.set(start, {{bookMove, 0.75, 10, 0.5}});
  play::WebApiOptions options;
  options.book = &book;
  auto api = makeApi(options);
  const json root = get(api, "/api/openings", {{"variant", "micro"}, {"playouts", "50"}});
  EXPECT_EQ(root.at("sfen"), start.sfen());
  EXPECT_TRUE(root.at("in_book"));
  ASSERT_EQ(root.at("children").size(), size_t(legal.size()));
  double shares = 0;
  for (const auto& c : root.at("children")) {
    shares += c.at("share").get<double>();
    game::Position child = start;
    child.makeMove(child.parseUsi(c.at("move")));
    EXPECT_EQ(c.at("sfen"), child.sfen());
    EXPECT_EQ(c.contains("book_weight"), c.at("move") == bookMove);
  }
  EXPECT_NEAR(shares, 1.0, 1e-6);
  // One level down: the child's own children, for the other side.
  const json down = get(api, "/api/openings", {{"variant", "micro"}, {"sfen", root.at("children")[0].at("sfen")}});
  EXPECT_EQ(down.at("side_to_move"), "gote");
  EXPECT_FALSE(down.at("in_book"));
  EXPECT_FALSE(down.at("children").empty());
}

// The game clock through the API, on a clock the test moves by hand (WebApiOptions::nowMs).
TEST(WebApi, ClockChargesEachSideAndTheFlagEndsTheGame) {
  int64_t now = 1000000;
  play::WebApiOptions options;
  options.nowMs = [&now] { return now; };
  auto api = makeApi(options);
  // 1 minute + 10 s byoyomi; sente (the person) to move.
  json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}, {"clock", "1m/10s"}});
  const std::string id = s.at("game");
  ASSERT_TRUE(s.at("clock").is_object()) << s.dump();
  EXPECT_EQ(s.at("clock").at("running"), "sente");
  EXPECT_EQ(s.at("clock").at("sente").at("main_left_ms"), 60000);
  EXPECT_EQ(s.at("clock").at("text"), "1:00 + 10s byoyomi");
  // Sente thinks 20 s: 40 s left; gote's clock runs.
  now += 20000;
  s = post(api, "/api/move", {{"game", id}, {"move", s.at("legal_moves")[0].at("usi")}});
  EXPECT_EQ(s.at("clock").at("sente").at("main_left_ms"), 40000);
  EXPECT_EQ(s.at("clock").at("running"), "gote");
  // Gote uses its whole minute and 5 s of byoyomi: still in time, main time 0, byoyomi afresh.
  now += 65000;
  s = get(api, "/api/state", {{"game", id}});
  EXPECT_EQ(s.at("clock").at("gote").at("main_left_ms"), 0);
  EXPECT_EQ(s.at("clock").at("gote").at("byoyomi_left_ms"), 5000);
  s = post(api, "/api/move", {{"game", id}, {"move", s.at("legal_moves")[0].at("usi")}});
  EXPECT_FALSE(s.at("game_over"));
  // Sente: 40 s + 10 s byoyomi, and 50.001 s pass: sente has lost on time.
  now += 50001;
  s = get(api, "/api/state", {{"game", id}});
  EXPECT_TRUE(s.at("game_over"));
  EXPECT_EQ(s.at("result").at("reason"), "timeout");
  EXPECT_EQ(s.at("result").at("winner"), "gote");
  EXPECT_TRUE(s.at("legal_moves").empty());
  const json late = post(api, "/api/move", {{"game", id}, {"move", "3e3d"}}, 409);
  EXPECT_THAT(late.at("error").get<std::string>(), HasSubstr("sente ran out of time"));
  // A timed game cannot be taken back; a bad clock is refused, naming it.
  EXPECT_THAT(post(api, "/api/undo", {{"game", id}}, 409).at("error").get<std::string>(), HasSubstr("clock"));
  EXPECT_THAT(post(api, "/api/new", {{"variant", "micro"}, {"clock", "5x"}}, 400).at("error").get<std::string>(),
              HasSubstr("clock \"5x\""));
  // No clock: "clock" is null and nothing runs out.
  json plain = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}});
  EXPECT_TRUE(plain.at("clock").is_null());
  now += 100000000;
  EXPECT_FALSE(get(api, "/api/state", {{"game", plain.at("game")}}).at("game_over"));
}

TEST(WebApi, TheEngineMovesWithinItsClock) {
  int64_t now = 0;
  play::WebApiOptions options;
  options.nowMs = [&now] { return now; };
  auto api = makeApi(options);
  // Fischer 10 s + 2 s; the person plays gote, so the engine (sente) moves first.
  json s = post(api, "/api/new", {{"variant", "micro"}, {"side", "gote"}, {"clock", "10s+2s"}});
  now += 3000;  // the engine's 3 s (its search is instantaneous on this fake clock)
  const json r = post(api, "/api/engine-move", {{"game", s.at("game")}});
  ASSERT_FALSE(r.at("move").is_null());
  EXPECT_EQ(r.at("state").at("clock").at("sente").at("main_left_ms"), 10000 - 3000 + 2000);
  EXPECT_EQ(r.at("state").at("clock").at("running"), "gote");
  // Too slow: 20 s pass before the engine's next move is asked for: it has lost on time.
  now += 2000;
  s = post(api, "/api/move", {{"game", s.at("game")}, {"move", r.at("state").at("legal_moves")[0].at("usi")}});
  now += 20000;
  const json late = post(api, "/api/engine-move", {{"game", s.at("game")}}, 409);
  EXPECT_THAT(late.at("error").get<std::string>(), HasSubstr("sente ran out of time"));
}

// Yonin (four players): any seats are people's; the engine (the uniform network without a
// model) plays the others; the turn, the undo and the refusals name seats.
TEST(WebApi, FourPlayersAnySeatsArePeoples) {
  auto api = makeApi();
  const json s = post(api, "/api/new", {{"variant", "yonin"}, {"humans", {"north", "south"}}});
  const std::string id = s.at("game");
  EXPECT_EQ(s.at("players"), 4);
  EXPECT_EQ(s.at("seats"), (json{"south", "west", "north", "east"}));
  EXPECT_EQ(s.at("humans"), (json{"south", "north"}));
  EXPECT_EQ(s.at("human"), "south");  // the page is drawn from the first person's seat
  EXPECT_EQ(s.at("engine"), "uniform network");
  EXPECT_EQ(s.at("side_to_move"), "south");
  for (const char* seat : {"south", "west", "north", "east"}) EXPECT_TRUE(s.at("hands").contains(seat)) << seat;
  ASSERT_EQ(s.at("armies").size(), 4u);
  EXPECT_EQ(s.at("armies")[1], (json{{"seat", "west"}, {"out", false}, {"controller", "west"}}));
  // Each piece carries its army's seat: 5i is south's king, 5a north's, 9e west's, 1e east's.
  std::map<std::string, std::string> kings;
  for (const auto& sq : s.at("board"))
    if (!sq.at("piece").is_null() && sq.at("piece").at("token") == "K") kings[sq.at("square")] = sq.at("piece").at("color");
  EXPECT_EQ(kings, (std::map<std::string, std::string>{{"5i", "south"}, {"5a", "north"}, {"9e", "west"}, {"1e", "east"}}));

  post(api, "/api/move", {{"game", id}, {"move", "5g5f"}});  // south's pawn
  // West's turn is the engine's: a person's move for west is refused, naming the people's seats.
  const json westsMove = post(api, "/api/move", {{"game", id}, {"move", "7e6e"}}, 409);
  EXPECT_THAT(westsMove.at("error").get<std::string>(), HasSubstr("it is the engine's move (west): people play south, north"));
  const json w = post(api, "/api/engine-move", {{"game", id}});
  EXPECT_EQ(w.at("analysis").at("side_to_move"), "west");
  EXPECT_TRUE(w.at("analysis").at("network"));
  double shares = 0;
  for (const auto& m : w.at("analysis").at("moves")) shares += m.at("share").get<double>();
  EXPECT_NEAR(shares, 1.0, 1e-6);
  EXPECT_EQ(w.at("state").at("side_to_move"), "north");
  // North is a person's: the engine will not move for it.
  const json early = post(api, "/api/engine-move", {{"game", id}}, 409);
  EXPECT_THAT(early.at("error").get<std::string>(), HasSubstr("it is your move (north): the engine plays only west, east"));
  post(api, "/api/move", {{"game", id}, {"move", "5c5d"}});
  const json e = post(api, "/api/engine-move", {{"game", id}});
  EXPECT_EQ(e.at("state").at("side_to_move"), "south");
  EXPECT_EQ(replay(e.at("state")), e.at("state").at("sfen"));
  // Undo: back to north's turn (east's move and north's), then to south's (west's and south's).
  const json back = post(api, "/api/undo", {{"game", id}});
  EXPECT_EQ(back.at("side_to_move"), "north");
  EXPECT_EQ(back.at("history").size(), 2u);
  EXPECT_EQ(post(api, "/api/undo", {{"game", id}}).at("sfen"), s.at("sfen"));
}

// A mate hands the army over (the state says who moves it), and a second mate ends the game.
TEST(WebApi, FourPlayerTakeOverAndWinAreShown) {
  auto api = makeApi();
  auto v = game::loadVariant("yonin");
  // South mates west with 8c8b (test_yonin.cpp's TheMaterTakesOverTheMatedArmy).
  const std::string mate = testing::boardSfen(*v, {{"8i", "sK"}, {"9a", "wK"}, {"2a", "nK"}, {"1h", "eK"}, {"8c", "sG"},
                                                   {"7c", "sS"}, {"5e", "wP"}}) + " s wP 1 swne";
  const json s = post(api, "/api/new", {{"variant", "yonin"}, {"side", "all"}, {"sfen", mate}});
  EXPECT_EQ(s.at("human"), "all");
  const json after = post(api, "/api/move", {{"game", s.at("game")}, {"move", "8c8b"}});
  EXPECT_EQ(after.at("armies")[1], (json{{"seat", "west"}, {"out", true}, {"controller", "south"}}));
  EXPECT_EQ(after.at("side_to_move"), "north");
  EXPECT_FALSE(after.at("game_over"));
  for (const auto& sq : after.at("board")) {
    if (sq.at("square") != "5e") continue;
    EXPECT_EQ(sq.at("piece"), (json{{"color", "west"}, {"controller", "south"}, {"token", "P"},
                                                                  {"letter", "P"}, {"name", sq.at("piece").at("name")},
                                                                  {"kanji", sq.at("piece").at("kanji")}, {"promoted", false}}));
  }
  EXPECT_EQ(after.at("hands").at("south").size(), 1u);  // west's pawn in hand is south's now
  EXPECT_TRUE(after.at("hands").at("west").empty());
  // With north already mated by south, the same mate is south's second: south wins.
  const std::string second = testing::boardSfen(*v, {{"8i", "sK"}, {"9a", "wK"}, {"2a", "nX"}, {"1h", "eK"},
                                                     {"8c", "sG"}, {"7c", "sS"}}) + " s - 1 swse";
  const json g = post(api, "/api/new", {{"variant", "yonin"}, {"humans", {"south"}}, {"sfen", second}});
  const json won = post(api, "/api/move", {{"game", g.at("game")}, {"move", "8c8b"}});
  EXPECT_TRUE(won.at("game_over"));
  EXPECT_EQ(won.at("result"), (json{{"reason", "second checkmate"}, {"winner", "south"}}));
  post(api, "/api/engine-move", {{"game", g.at("game")}}, 409);
}

TEST(WebApi, FourPlayerRequestsAreCheckedBySeat) {
  auto api = makeApi();
  auto refused = [&](const json& request, const std::string& why) {
    const json r = post(api, "/api/new", request, 400);
    EXPECT_THAT(r.at("error").get<std::string>(), HasSubstr(why)) << request.dump();
  };
  refused({{"variant", "yonin"}, {"side", "sente"}}, "must be south, west, north, east or all (yonin has four players)");
  refused({{"variant", "yonin"}, {"humans", {"south", "south"}}}, "\"humans\" lists \"south\" twice");
  refused({{"variant", "yonin"}, {"humans", {"up"}}}, "\"humans\" lists \"up\", which is not a seat of yonin");
  refused({{"variant", "yonin"}, {"humans", json::array()}}, "at least one");
  refused({{"variant", "yonin"}, {"humans", {"west"}}, {"side", "west"}}, "not both");
  refused({{"variant", "micro"}, {"humans", {"south"}}}, "not a seat of micro (sente or gote)");
  refused({{"variant", "yonin"}, {"clock", "5m+10s"}}, "clocks are for two-player games (yonin has 4 players)");
  // Two players take "humans" too.
  EXPECT_EQ(post(api, "/api/new", {{"variant", "micro"}, {"humans", {"gote", "sente"}}}).at("human"), "both");
  const json pic = get(api, "/api/board", {{"variant", "yonin"}}, 400);
  EXPECT_THAT(pic.at("error").get<std::string>(), HasSubstr("two-player variants only"));
  // The explorer searches four-player positions as any other.
  const json o = get(api, "/api/openings", {{"variant", "yonin"}, {"playouts", "16"}});
  EXPECT_EQ(o.at("side_to_move"), "south");
  EXPECT_FALSE(o.at("children").empty());
}

TEST(WebApi, BoardPicturesAndKanji) {
  auto api = makeApi();
  const json b = get(api, "/api/board", {{"variant", "minishogi"}, {"move", "5e4d"}});
  const std::string svg = b.at("svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("class=\"last-move\""), std::string::npos);  // the move is highlighted
  size_t pieces = 0;
  for (size_t at = svg.find("<g class=\"piece\""); at != std::string::npos; at = svg.find("<g class=\"piece\"", at + 1))
    ++pieces;
  EXPECT_EQ(pieces, 12u);  // minishogi's 12 pieces, none in hand
  EXPECT_NE(svg.find(">王<"), std::string::npos);
  const json letters = get(api, "/api/board", {{"variant", "minishogi"}, {"letters", "1"}});
  EXPECT_EQ(letters.at("svg").get<std::string>().find(">王<"), std::string::npos);
  EXPECT_THAT(get(api, "/api/board", {{"variant", "micro"}, {"sfen", "bad"}}, 400).at("error").get<std::string>(),
              HasSubstr("bad SFEN"));
  EXPECT_THAT(get(api, "/api/board", {{"variant", "micro"}, {"move", "9a9b"}}, 400).at("error").get<std::string>(),
              HasSubstr("illegal move"));
  // Each piece of a state carries its kanji: 玉 for sente's king, 王 for gote's.
  const json s = post(api, "/api/new", {{"variant", "micro"}});
  std::set<std::string> kings;
  for (const auto& sq : s.at("board"))
    if (!sq.at("piece").is_null() && sq.at("piece").at("name") == "king")
      kings.insert(sq.at("piece").at("color").get<std::string>() + sq.at("piece").at("kanji").get<std::string>());
  EXPECT_EQ(kings, (std::set<std::string>{"sente玉", "gote王"}));
}

// `poppy serve` answers each HTTP request on its own thread: WebApi::route is called
// concurrently (ThreadSanitizer runs this test: scripts/sanitize.sh). Four clients play their
// own games, two of them also share one game, and old games are forgotten meanwhile.
TEST(WebApi, ConcurrentRequestsFromSeveralThreads) {
  play::WebApiOptions options;
  options.maxGames = 10;  // 13 games are made: the oldest (the shared one) goes near the end
  auto api = makeApi(options);
  const std::string shared = post(api, "/api/new", {{"variant", "micro"}, {"side", "both"}}).at("game");
  std::atomic<int> failures{0};
  auto client = [&](int k) {
    for (int round = 0; round < 3; ++round) {
      const play::ApiReply created =
          api.route("POST", "/api/new", {}, json{{"variant", k % 2 ? "micro" : "minishogi"}, {"side", "sente"}}.dump());
      if (created.status != 200) ++failures;
      const std::string id = created.body.value("game", "");
      for (int ply = 0; ply < 2; ++ply) {
        const play::ApiReply s = api.route("GET", "/api/state", {{"game", id}}, "");
        if (s.status == 404) break;  // forgotten by now: another client's games pushed it out
        const json& legal = s.body.at("legal_moves");
        if (legal.empty()) break;
        const std::string mv = legal[0].at("usi");
        const int moved = api.route("POST", "/api/move", {}, json{{"game", id}, {"move", mv}}.dump()).status;
        const int replied = api.route("POST", "/api/engine-move", {}, json{{"game", id}, {"playouts", 8}}.dump()).status;
        if ((moved != 200 && moved != 404) || (replied != 200 && replied != 404 && replied != 409)) ++failures;
      }
      if (api.route("GET", "/api/analysis", {{"game", id}, {"playouts", "8"}}, "").status / 100 == 5) ++failures;
      if (api.route("GET", "/api/openings", {{"variant", "micro"}, {"playouts", "8"}}, "").status != 200) ++failures;
      if (k < 2) {  // two clients take turns on one game: each request sees a whole move or none
        const json s = api.route("GET", "/api/state", {{"game", shared}}, "").body;
        if (s.contains("legal_moves") && !s.at("legal_moves").empty()) {
          api.route("POST", "/api/move", {}, json{{"game", shared}, {"move", s.at("legal_moves")[0].at("usi")}}.dump());
          api.route("POST", "/api/undo", {}, json{{"game", shared}}.dump());
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) threads.emplace_back(client, k);
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(api.gameCount(), 10u);
  const play::ApiReply last = api.route("GET", "/api/state", {{"game", shared}}, "");
  if (last.status == 200) {
    EXPECT_EQ(replay(last.body), last.body.at("sfen"));  // its history is whole
  }
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
// ---- the real server -----------------------------------------------------------------------

// `poppy serve --port 0 ...` in the background; the port is read from its first stdout line.
class ServerProcess {
 public:
  explicit ServerProcess(const std::vector<std::string>& extraArgs, const std::string& logPath) {
    std::vector<std::string> args = {POPPY_BINARY, "serve", "--port", "0", "--playouts", "16"};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) throw std::runtime_error("cannot start " + args[0]);
    // Read the "listening on http://HOST:PORT/" line (60 s at most: LibTorch loads slowly).
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (text.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, size_t(n));
    }
    close(fds[0]);
    std::smatch m;
    if (std::regex_search(text, m, std::regex(R"(listening on http://([0-9.]+):([0-9]+)/)"))) {
      port_ = std::stoi(m[2]);
    } else {
      stop();
      throw std::runtime_error("poppy serve printed no port: \"" + text + "\"; its log: " + slurp(logPath));
    }
  }
  ~ServerProcess() { stop(); }
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  int port() const { return port_; }
  bool alive() const { return waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

json parseBody(const httplib::Result& r) {
  if (!r) return json{{"transport_error", httplib::to_string(r.error())}};
  return json::parse(r->body, nullptr, false);
}

// A raw TCP connection to 127.0.0.1:port (for requests httplib's client will not send), or -1.
int connectToLocalPort(int port) {
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  if (sock < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(sock);
    return -1;
  }
  return sock;
}

// Whether an HTTP answer has arrived whole: its head and as many bytes of body as its
// Content-Length announces. Without one, only the server's close ends it.
bool answerIsComplete(const std::string& answer) {
  const size_t headEnd = answer.find("\r\n\r\n");
  if (headEnd == std::string::npos) return false;
  std::string head = answer.substr(0, headEnd);
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const size_t field = head.find("\r\ncontent-length:");
  if (field == std::string::npos) return false;
  return answer.size() >= headEnd + 4 + std::stoul(head.substr(field + 17));
}

// Sends `head` (a request's line and headers, no body) on a raw connection and returns the answer
// once it is whole (answerIsComplete) or the server closed, or "" when nothing came within 5 s. No
// body is sent: bytes the server leaves unread would make its close a reset, which can reach the
// client before the answer is read (a race of the transport, not of the server).
std::string rawAnswerTo(int port, const std::string& head) {
  const int sock = connectToLocalPort(port);
  if (sock < 0) return "";
  timeval wait{5, 0};  // an answer comes at once; 5 s is only the test's bound
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  std::string answer;
  if (::send(sock, head.data(), head.size(), MSG_NOSIGNAL) == ssize_t(head.size())) {
    char buf[4096];
    ssize_t got = 0;
    // Until the whole answer is in (its head and Content-Length bytes of body): the server may
    // keep the connection open for the next request, and waiting for it to close cost 5 s a call.
    while (!answerIsComplete(answer) && (got = ::recv(sock, buf, sizeof buf, 0)) > 0) answer.append(buf, size_t(got));
  }
  ::close(sock);
  return answer;
}

// Without --model each variant plays its shipped model (models/shipped.yaml), the others the
// search without a network; --model names one variant's model and the rest keep theirs; --model
// none: no network at all.
TEST(Serve, EachVariantPlaysItsShippedModelUnlessToldOtherwise) {
  const auto dir = freshTempDir("poppy_test_serve_", "shipped");
  std::map<std::string, std::string> shipped;  // variant -> "model FILE"
  for (const auto& [variant, path] : play::shippedModels())
    shipped[variant] = "model " + std::filesystem::path(path).filename().string();
  ASSERT_TRUE(shipped.count("micro"));
  auto enginesOf = [&](const std::vector<std::string>& args) {
    ServerProcess server(args, (dir / "serve.log").string());
    httplib::Client client("127.0.0.1", server.port());
    auto r = client.Get("/api/variants");
    std::map<std::string, std::string> engines;
    EXPECT_TRUE(r) << "no answer: " << httplib::to_string(r.error());
    if (!r) return engines;
    EXPECT_EQ(r->status, 200) << r->body;
    const json listed = json::parse(r->body);
    for (const auto& v : listed.at("variants")) engines[v.at("name")] = v.at("engine");
    return engines;
  };
  const auto byDefault = enginesOf({});
  ASSERT_GT(byDefault.size(), shipped.size());
  for (const auto& [variant, engine] : byDefault) {
    if (shipped.count(variant))
      EXPECT_EQ(engine, shipped[variant]) << variant;
    else
      EXPECT_NE(engine.rfind("model", 0), 0u) << variant << ": " << engine;
  }
  const std::string oneHour = std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-1h.model";
  const auto named = enginesOf({"--model", oneHour});
  EXPECT_EQ(named.at("micro"), "model micro-1h.model");
  for (const auto& [variant, engine] : shipped) {
    if (variant != "micro") {
      EXPECT_EQ(named.at(variant), engine);
    }
  }
  for (const auto& [variant, engine] : enginesOf({"--model", "none"}))
    EXPECT_NE(engine.rfind("model", 0), 0u) << variant << ": " << engine;
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

TEST(Serve, HttpErrorsAreClearAndTheServerLivesOn) {
  const auto dir = freshTempDir("poppy_test_serve_", "http");
  ServerProcess server({}, (dir / "serve.log").string());
  ASSERT_GT(server.port(), 0);
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(30, 0);

  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("poppy.js"), std::string::npos);
  for (const char* file : {"/poppy.js", "/poppy.css"}) {
    auto r = client.Get(file);
    ASSERT_TRUE(r) << file;
    EXPECT_EQ(r->status, 200) << file;
    EXPECT_EQ(r->body, slurp(std::string(POPPY_SOURCE_DIR) + "/web" + file)) << file;
  }
  auto missing = client.Get("/secret.txt");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);

  auto malformed = client.Post("/api/new", "{oops", "application/json");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400);
  EXPECT_NE(parseBody(malformed).value("error", "").find("malformed JSON"), std::string::npos) << malformed->body;

  // A body far above any request is refused from its length (413), and the server goes on.
  auto huge = client.Post("/api/new", std::string(2 * 1024 * 1024, ' '), "application/json");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  EXPECT_EQ(parseBody(huge).value("error", ""), "request body over 65536 bytes") << huge->body;  // was "no page /api/new"

  // The soak (issue 39): a Content-Length that announces 10^12 bytes and sends none, or is not a
  // number, is answered at once (httplib alone read the announced body first: no answer at all).
  for (const std::string length : {"1000000000000", "-5", "abc", "99999999999999999999"}) {
    const std::string answer = rawAnswerTo(
        server.port(),
        "POST /api/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n");
    ASSERT_FALSE(answer.empty()) << "no answer to Content-Length " << length;
    const bool number = length.find_first_not_of("0123456789") == std::string::npos;  // a size, too big
    EXPECT_EQ(answer.rfind(number ? "HTTP/1.1 413" : "HTTP/1.1 400", 0), 0u) << length << ": " << answer;
  }

  // Issue 39 (4, 7): a chunked body (no Content-Length) once bypassed the limit: 300 MB were read
  // and kept. It is refused from its headers, before any of it is read (only the headers are sent
  // here: see rawAnswerTo); so are bodies that are not JSON, and other methods.
  const std::string chunked = rawAnswerTo(
      server.port(),
      "POST /api/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 411", 0), 0u) << chunked;
  EXPECT_NE(chunked.find("a Content-Length"), std::string::npos) << chunked;
  auto form = client.Post("/api/new", std::string(20000, 'a'), "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  EXPECT_NE(parseBody(form).value("error", "").find("application/json"), std::string::npos) << form->body;
  auto removed = client.Delete("/api/state");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 405);
  EXPECT_EQ(removed->get_header_value("Allow"), "GET, POST");
  EXPECT_NE(parseBody(removed).value("error", "").find("method DELETE"), std::string::npos) << removed->body;
  EXPECT_EQ(client.Get("/")->status, 200) << "the server is still up";

  auto unknown = client.Get("/api/state?game=g42-42");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(parseBody(unknown).value("error", "").find("unknown game"), std::string::npos);

  auto badSfen = client.Post("/api/new", R"({"variant": "micro", "sfen": "k/9/x b - 1"})", "application/json");
  ASSERT_TRUE(badSfen);
  EXPECT_EQ(badSfen->status, 400);
  EXPECT_NE(parseBody(badSfen).value("error", "").find("bad SFEN"), std::string::npos);

  auto created = client.Post("/api/new", R"({"variant": "micro", "side": "gote"})", "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200);
  const json state = parseBody(created);
  const std::string id = state.at("game");
  // The person plays gote: the engine opens, then the person's illegal move is refused.
  auto engine = client.Post("/api/engine-move", json{{"game", id}}.dump(), "application/json");
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->status, 200);
  EXPECT_EQ(parseBody(engine).at("analysis").at("playouts"), 16);  // --playouts
  auto illegal = client.Post("/api/move", json{{"game", id}, {"move", "1d1a"}}.dump(), "application/json");
  ASSERT_TRUE(illegal);
  EXPECT_EQ(illegal->status, 400);
  EXPECT_NE(parseBody(illegal).value("error", "").find("illegal move"), std::string::npos);
  EXPECT_TRUE(server.alive());
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Issue 16 (9): a client that leaves during a long search frees the engine for the others at
// once (before: the search ran on, 6.5 s here, up to --max-search-seconds). A long request
// that stays is answered in full, streamed after the first 300 ms.
TEST(Serve, AbandonedSearchIsStoppedAndLongOnesStillAnswer) {
  const auto dir = freshTempDir("poppy_test_serve_", "abandon");
  // Without a network (`--model none`; shogi has a shipped model): a search that starts afresh,
  // so the next answer counts only its own 20 playouts.
  ServerProcess server({"--max-search-seconds", "60", "--model", "none"}, (dir / "serve.log").string());
  ASSERT_GT(server.port(), 0);
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(60, 0);
  auto created = client.Post("/api/new", R"({"variant": "shogi"})", "application/json");
  ASSERT_TRUE(created);
  const std::string id = parseBody(created).at("game");

  // A long search that is waited for: 200 and the whole analysis.
  auto longOne = client.Get(("/api/analysis?game=" + id + "&playouts=1500").c_str());
  ASSERT_TRUE(longOne);
  EXPECT_EQ(longOne->status, 200);
  EXPECT_EQ(parseBody(longOne).value("playouts", 0), 1500) << longOne->body.substr(0, 300);

  // A 100,000-playout analysis whose client hangs up after a second.
  const int sock = connectToLocalPort(server.port());
  ASSERT_GE(sock, 0) << "cannot connect to the server";
  const std::string request = "GET /api/analysis?game=" + id + "&playouts=100000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_EQ(::send(sock, request.data(), request.size(), 0), ssize_t(request.size()));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ::close(sock);

  const auto start = std::chrono::steady_clock::now();
  auto next = client.Get(("/api/analysis?game=" + id + "&playouts=20").c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(parseBody(next).value("playouts", 0), 20);
  EXPECT_LT(seconds, 3.0) << "the next request waited " << seconds << " s for the abandoned search";
  EXPECT_TRUE(server.alive());
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Runs the page's self-test in headless Chromium and returns the dumped DOM.
std::string runPageSelftest(int port, const std::filesystem::path& dir, const std::string& query = "selftest=1") {
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) {
    ADD_FAILURE() << "chromium is not installed: the browser test needs it (scripts/setup.sh installs it)";
    return "";
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/?" + query;
  // Virtual time stands still while the page waits for the server, so the budget only bounds
  // the page's own timers; `timeout` bounds the whole run.
  const std::string cmd = "timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
                          "--disable-background-networking --no-first-run --user-data-dir=" +
                          shellQuote((dir / "profile").string()) + " --virtual-time-budget=30000 --dump-dom " +
                          shellQuote(url) + " > " + shellQuote((dir / "dom.html").string()) + " 2> " +
                          shellQuote((dir / "chromium.log").string());
  const int rc = exitCodeOf(std::system(cmd.c_str()));
  EXPECT_EQ(rc, 0) << "chromium failed; its log:\n" << slurp(dir / "chromium.log");
  return slurp(dir / "dom.html");
}

std::string unescapeHtml(std::string s) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  }
  return s;
}

// The board the page shows: "square -> token:colour" for the occupied squares of the dumped DOM.
std::map<std::string, std::string> domBoard(const std::string& dom) {
  std::map<std::string, std::string> out;
  const std::regex square(R"re(data-square="([0-9]+[a-z])"( data-piece="([^"]*)" data-color="([a-z]+)")?)re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), square); it != std::sregex_iterator(); ++it) {
    if ((*it)[2].matched) out[(*it)[1]] = (*it)[3].str() + ":" + (*it)[4].str();
  }
  return out;
}

// The JSON the page's self-test wrote into #selftest-result (null when there is none).
json selftestResult(const std::string& dom) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex(R"(<pre id="selftest-result"[^>]*>([^<]*)</pre>)"))) {
    ADD_FAILURE() << "no self-test result in the page:\n" << dom.substr(0, 4000);
    return nullptr;
  }
  const json result = json::parse(unescapeHtml(m[1].str()), nullptr, false);
  EXPECT_TRUE(result.is_object()) << m[1].str();
  return result;
}

// The squares of the dumped board whose class list has `cls` ("target", "selected").
std::set<std::string> domSquaresWithClass(const std::string& dom, const std::string& cls) {
  std::set<std::string> out;
  const std::regex square(R"re(<div class="([^"]*)" data-square="([0-9]+[a-z])")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), square); it != std::sregex_iterator(); ++it) {
    std::istringstream classes((*it)[1].str());
    for (std::string c; classes >> c;)
      if (c == cls) out.insert((*it)[2]);
  }
  return out;
}

// The attributes (as written in the dump) and the text of the element with this id.
std::pair<std::string, std::string> domElement(const std::string& dom, const std::string& id) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex("<[a-z]+ id=\"" + id + "\"([^>]*)>([^<]*)<"))) {
    ADD_FAILURE() << "no element #" << id << " in the page";
    return {};
  }
  return {m[1].str(), unescapeHtml(m[2].str())};
}

// Where the server's state lets the piece on `from` go.
std::set<std::string> legalTargets(const json& state, const std::string& from) {
  std::set<std::string> out;
  for (const auto& m : state.at("legal_moves"))
    if (m.at("from").is_string() && m.at("from") == from) out.insert(m.at("to").get<std::string>());
  return out;
}

// Runs the page's self-test up to a stop point (web/poppy.js, ?stop=) against a fresh rollout
// server; returns the dumped DOM, the self-test's JSON and the server's state of its game.
struct StoppedPage {
  std::string dom;
  json result, state;
};
StoppedPage stopPageAt(const std::string& name, const std::string& query) {
  StoppedPage p;
  const auto dir = freshTempDir("poppy_test_serve_", name);
  ServerProcess server({}, (dir / "serve.log").string());
  p.dom = runPageSelftest(server.port(), dir, query);
  if (p.dom.empty()) return p;
  p.result = selftestResult(p.dom);
  if (!p.result.is_object() || !p.result.value("done", false)) {
    ADD_FAILURE() << "the self-test did not finish: " << p.result.dump();
    return p;
  }
  httplib::Client client("127.0.0.1", server.port());
  auto r = client.Get(("/api/state?game=" + p.result.at("game").get<std::string>()).c_str());
  if (!r || r->status != 200) {
    ADD_FAILURE() << "no state for the self-test's game";
    return p;
  }
  p.state = json::parse(r->body);
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
  return p;
}

void playThroughThePage(const std::vector<std::string>& serveArgs, const std::string& name, bool network) {
  const auto dir = freshTempDir("poppy_test_serve_", name);
  ServerProcess server(serveArgs, (dir / "serve.log").string());
  const std::string dom = runPageSelftest(server.port(), dir);
  ASSERT_FALSE(dom.empty());
  const json result = selftestResult(dom);
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result.value("done", false), true) << result.dump();

  // Clicked: the page's move and the engine's reply were legal.
  httplib::Client client("127.0.0.1", server.port());
  auto r = client.Get(("/api/state?game=" + result.at("game").get<std::string>()).c_str());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json state = json::parse(r->body);
  json clicked = state;
  clicked["history"] = result.at("history");
  ASSERT_EQ(clicked.at("history").size(), 2u) << result.dump();
  EXPECT_EQ(clicked.at("history")[0], result.at("move"));
  EXPECT_EQ(clicked.at("history")[1], result.at("reply"));
  EXPECT_NO_THROW(replay(clicked)) << result.dump();
  // Undo went back to the start; then the same move by drag and drop, and the engine's reply,
  // are the server's history now.
  EXPECT_TRUE(result.at("undo").at("history").empty()) << result.dump();
  EXPECT_TRUE(result.at("undo").at("board_is_start")) << result.dump();
  ASSERT_EQ(state.at("history").size(), 2u) << state.dump();
  EXPECT_EQ(state.at("history")[0], result.at("move"));
  EXPECT_EQ(state.at("history"), result.at("drag").at("history"));
  EXPECT_EQ(state.at("history")[1], result.at("drag").at("reply"));
  EXPECT_EQ(replay(state), state.at("sfen"));
  EXPECT_EQ(state.at("side_to_move"), "sente");
  EXPECT_EQ(state.at("engine").get<std::string>().rfind(network ? "model" : "rollout", 0), 0u) << state.at("engine");

  // The page shows the server's board, changed from the start. (The highlighted targets and the
  // refusal of the forbidden move are checked in the DOM at the self-test's stop points below.)
  EXPECT_TRUE(result.at("board_changed"));
  EXPECT_EQ(domBoard(dom), boardOf(state));
  EXPECT_NE(state.at("sfen"), state.at("start_sfen"));

  // And with a model, the analysis comes from the network.
  auto a = client.Get(("/api/analysis?playouts=8&game=" + result.at("game").get<std::string>()).c_str());
  ASSERT_TRUE(a);
  EXPECT_EQ(json::parse(a->body).at("network"), network);
  EXPECT_TRUE(server.alive());
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

TEST(Serve, PersonPlaysTheRolloutEngineInTheBrowser) { playThroughThePage({"--model", "none"}, "rollout", false); }

TEST(Serve, PersonPlaysTheModelInTheBrowser) {
  playThroughThePage({"--model", std::string(POPPY_SOURCE_DIR) + "/models/micro/micro-1h.model"}, "model", true);
}

// The dumped DOM right after a click on a piece of the start position: that square is selected
// and exactly the squares the server lets it go to are marked as targets.
TEST(Serve, ClickedPieceShowsItsTargetsInTheBrowser) {
  const StoppedPage p = stopPageAt("targets", "selftest=1&stop=targets");
  ASSERT_TRUE(p.state.is_object());
  ASSERT_TRUE(p.state.at("history").empty()) << "no move was made";
  const std::string from = p.result.at("selected");
  EXPECT_EQ(domSquaresWithClass(p.dom, "selected"), std::set<std::string>{from});
  EXPECT_FALSE(legalTargets(p.state, from).empty());
  EXPECT_EQ(domSquaresWithClass(p.dom, "target"), legalTargets(p.state, from)) << "targets of " << from;
}

// The same for a piece picked up to be dragged (after the undo: the start position again).
TEST(Serve, DraggedPieceShowsItsTargetsInTheBrowser) {
  const StoppedPage p = stopPageAt("drag", "selftest=1&stop=drag");
  ASSERT_TRUE(p.state.is_object());
  ASSERT_TRUE(p.state.at("history").empty()) << "the undo went back to the start";
  const std::string from = p.result.at("selected");
  EXPECT_FALSE(legalTargets(p.state, from).empty());
  EXPECT_EQ(domSquaresWithClass(p.dom, "target"), legalTargets(p.state, from)) << "targets of " << from;
}

// The dumped DOM after the page tried a forbidden move: the message box shows the server's
// refusal as an error, naming the move, and the board is the server's, which kept the two moves
// played before.
TEST(Serve, RefusedMoveIsShownInTheBrowser) {
  const StoppedPage p = stopPageAt("illegal", "selftest=1&stop=illegal");
  ASSERT_TRUE(p.state.is_object());
  EXPECT_EQ(p.state.at("history").size(), 2u) << "the move and the engine's reply, nothing more";
  const std::string move = p.result.at("illegal").at("move");
  const auto [attributes, text] = domElement(p.dom, "message");
  EXPECT_THAT(attributes, HasSubstr("class=\"error\""));
  EXPECT_THAT(attributes, Not(HasSubstr("hidden")));
  EXPECT_THAT(text, HasSubstr("illegal move"));
  EXPECT_THAT(text, HasSubstr(move));
  EXPECT_EQ(domBoard(p.dom), boardOf(p.state));
}

// The dumped DOM with the promotion dialog open: it is shown and offers exactly the two moves
// (promote or not) the server allows from that square to that square.
TEST(Serve, PromotionDialogIsShownInTheBrowser) {
  const StoppedPage p =
      stopPageAt("dialog", "selftest=promotion&stop=dialog&variant=minishogi&side=both&sfen=k4/5/5/4R/4K%20b%20-%201");
  ASSERT_TRUE(p.state.is_object());
  EXPECT_TRUE(p.state.at("history").empty()) << "nothing is played before a choice";
  const std::string move = p.result.at("move");
  ASSERT_EQ(move.back(), '+');
  const auto [attributes, title] = domElement(p.dom, "choice");
  EXPECT_THAT(attributes, Not(HasSubstr("hidden"))) << "the dialog is shown";
  std::set<std::string> offered;
  const std::regex button(R"re(<button type="button" data-usi="([^"]+)")re");
  for (auto it = std::sregex_iterator(p.dom.begin(), p.dom.end(), button); it != std::sregex_iterator(); ++it)
    offered.insert((*it)[1]);
  EXPECT_EQ(offered, (std::set<std::string>{move, move.substr(0, move.size() - 1)}));
  std::set<std::string> legal;
  for (const auto& m : p.state.at("legal_moves")) legal.insert(m.at("usi").get<std::string>());
  for (const auto& usi : offered) EXPECT_EQ(legal.count(usi), 1u) << usi;
}

TEST(Serve, OptionalPromotionIsAskedInTheBrowser) {
  const auto dir = freshTempDir("poppy_test_serve_", "promotion");
  ServerProcess server({}, (dir / "serve.log").string());
  // Minishogi, two people: the rook on 1d may enter the far rank promoted or not.
  const std::string dom =
      runPageSelftest(server.port(), dir, "selftest=promotion&variant=minishogi&side=both&sfen=k4/5/5/4R/4K%20b%20-%201");
  ASSERT_FALSE(dom.empty());
  const json result = selftestResult(dom);
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result.value("done", false), true) << result.dump();
  // The dialog's choices are checked in PromotionDialogIsShownInTheBrowser; here it was answered
  // with promotion and is closed again.
  const std::string move = result.at("move");
  EXPECT_EQ(move.back(), '+');
  EXPECT_THAT(domElement(dom, "choice").first, HasSubstr("hidden")) << "the dialog is closed";
  httplib::Client client("127.0.0.1", server.port());
  auto r = client.Get(("/api/state?game=" + result.at("game").get<std::string>()).c_str());
  ASSERT_TRUE(r);
  const json state = json::parse(r->body);
  EXPECT_EQ(state.at("history"), json::array({move}));
  EXPECT_EQ(state.at("variant"), "minishogi");
  EXPECT_EQ(domBoard(dom), boardOf(state));
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Chu: a lion's double capture is played by clicking the lion, the first piece it takes and the
// square it goes on to (gote pawns on 6f and 6e in front of sente's lion on 6g).
TEST(Serve, LionDoubleMoveByClickingTheMiddleSquare) {
  const auto dir = freshTempDir("poppy_test_serve_", "lion");
  ServerProcess server({}, (dir / "serve.log").string());
  const std::string dom = runPageSelftest(
      server.port(), dir,
      "selftest=lion&variant=chu&side=both&sfen=11k/12/12/12/12/6p5/6N5/12/12/12/12/K11%20b%20-%201");
  ASSERT_FALSE(dom.empty());
  const json result = selftestResult(dom);
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result.value("done", false), true) << result.dump();
  const std::string move = result.at("move");
  EXPECT_EQ(move.substr(0, 4), "6g6f") << "a move through the pawn";
  EXPECT_EQ(move.size(), 6u) << move;
  // After the middle square, the page offers the second steps: on from 6f (8 neighbours, the
  // lion's own square among them) and stopping on 6f itself.
  EXPECT_EQ(result.at("second_step").size(), 9u) << result.dump();
  httplib::Client client("127.0.0.1", server.port());
  auto r = client.Get(("/api/state?game=" + result.at("game").get<std::string>()).c_str());
  ASSERT_TRUE(r);
  const json state = json::parse(r->body);
  EXPECT_EQ(state.at("history"), json::array({move}));
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Mitsugumi: a fire demon on 7g with gote pawns on 8f and 6f (kings in the corners). A move
// that lands next to both pawns (7f, say) burns none, either or both: four moves to one square,
// so the page asks which, and the burn of both is played from the dialog.
const char* const kFireDemonQuery =
    "selftest=burn&variant=mitsugumi&side=both&sfen=12k/13/13/13/13/5p1p5/6Z6/13/13/13/13/13/K12%20b%20-%201";

std::vector<std::string> historyOf(int port, const std::string& game) {
  httplib::Client client("127.0.0.1", port);
  auto r = client.Get(("/api/state?game=" + game).c_str());
  if (!r) return {};
  return json::parse(r->body).at("history").get<std::vector<std::string>>();
}

TEST(Serve, FireDemonBurnChosenInTheDialog) {
  const auto dir = freshTempDir("poppy_test_serve_", "burn");
  ServerProcess server({}, (dir / "serve.log").string());
  const json result = selftestResult(runPageSelftest(server.port(), dir, kFireDemonQuery));
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result.value("done", false), true) << result.dump();
  const std::string move = result.at("move");
  EXPECT_EQ(move.substr(0, 2), "7g") << move;
  EXPECT_NE(move.find("x8f"), std::string::npos) << move;
  EXPECT_NE(move.find("x6f"), std::string::npos) << move;
  // The dialog: no burn, 8f, 6f, both, each named.
  ASSERT_EQ(result.at("choices").size(), 4u) << result.dump();
  int noBurn = 0, both = 0;
  for (const auto& c : result.at("choices")) {
    const std::string text = c;
    noBurn += text.find(": no burn") != std::string::npos;
    both += text.find(" and ") != std::string::npos;
  }
  EXPECT_EQ(noBurn, 1) << result.dump();
  EXPECT_EQ(both, 1) << result.dump();
  EXPECT_EQ(historyOf(server.port(), result.at("game")), std::vector<std::string>{move});
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// The same board: clicking the fire demon twice offers its turn skip and taking both pawns
// without moving (its only double igui); the igui is played.
TEST(Serve, FireDemonDoubleIguiByClickingItTwice) {
  const auto dir = freshTempDir("poppy_test_serve_", "igui");
  ServerProcess server({}, (dir / "serve.log").string());
  const json result = selftestResult(runPageSelftest(server.port(), dir, std::string(kFireDemonQuery) + "&igui=1"));
  ASSERT_TRUE(result.is_object());
  ASSERT_EQ(result.value("done", false), true) << result.dump();
  const std::string move = result.at("move");
  EXPECT_EQ(move.substr(0, 4), "7g7g") << move;
  ASSERT_EQ(result.at("choices").size(), 2u) << result.dump();
  const std::string pass = result.at("choices")[0], igui = result.at("choices")[1];
  const bool passFirst = pass.find(": pass") != std::string::npos;
  EXPECT_NE((passFirst ? igui : pass).find("without moving"), std::string::npos) << result.dump();
  EXPECT_NE((passFirst ? pass : igui).find(": pass"), std::string::npos) << result.dump();
  EXPECT_EQ(historyOf(server.port(), result.at("game")), std::vector<std::string>{move});
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Runs a self-test on a fresh rollout server; returns the DOM and the self-test's JSON (which
// must say done), and leaves the server's state of its game in `state`.
struct PageRun {
  std::string dom;
  json result, state;
};
PageRun runPage(const std::string& name, const std::string& query) {
  PageRun p;
  const auto dir = freshTempDir("poppy_test_serve_", name);
  ServerProcess server({}, (dir / "serve.log").string());
  p.dom = runPageSelftest(server.port(), dir, query);
  if (p.dom.empty()) return p;
  p.result = selftestResult(p.dom);
  if (!p.result.is_object() || !p.result.value("done", false)) {
    ADD_FAILURE() << "the self-test did not finish: " << p.result.dump();
    return p;
  }
  httplib::Client client("127.0.0.1", server.port());
  auto r = client.Get(("/api/state?game=" + p.result.at("game").get<std::string>()).c_str());
  if (r && r->status == 200) p.state = json::parse(r->body);
  server.stop();
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
  return p;
}

// Gote's pieces are turned towards sente. With kanji the characters turn with them, as on a real
// board; in letters mode the tokens stay upright (a turned "+P" or "M" reads as something else),
// and a promoted piece shows its promoted token with its promoted name.
TEST(Serve, LettersStayUprightOnTheOpponentsPieces) {
  // Minishogi with gote's tokin on 4c and sente's on 3b.
  const PageRun p = runPage("letters", "selftest=letters&variant=minishogi&side=both&sfen=rbsgk/2%2BP1p/1%2Bp3/5/KGSBR%20b%20-%201");
  ASSERT_TRUE(p.result.is_object());
  ASSERT_EQ(p.result.at("kanji").size(), 13u) << p.result.dump();
  for (const auto& piece : p.result.at("kanji")) {
    EXPECT_EQ(piece.at("tile_turned"), piece.at("color") == "gote") << piece.dump();
    EXPECT_EQ(piece.at("text_upright"), piece.at("color") == "sente") << piece.dump();  // kanji turn with gote's tiles
  }
  std::map<std::string, std::string> text;
  for (const auto& piece : p.result.at("letters")) {
    EXPECT_EQ(piece.at("tile_turned"), piece.at("color") == "gote") << piece.dump();
    EXPECT_TRUE(piece.at("text_upright")) << piece.dump();
    text[piece.at("square")] = piece.at("text").get<std::string>() + "/" + piece.at("small").get<std::string>();
  }
  EXPECT_EQ(text.at("4c"), "+P/tokin");  // gote's tokin, read from the SFEN above
  EXPECT_EQ(text.at("3b"), "+P/tokin");
  EXPECT_EQ(text.at("1a"), "K/king");
}

// The bar and its text give sente's expected score (win + half the draws) and, apart from it,
// the win, draw and loss chances of the analysis the page received.
TEST(Serve, EvaluationBarShowsTheExpectedScoreAndTheChancesApart) {
  const PageRun p = runPage("analyse", "selftest=analyse");
  ASSERT_TRUE(p.result.is_object());
  const json a = p.result.at("analysis");
  const bool senteToMove = a.at("side_to_move") == "sente";
  const double score = senteToMove ? a.at("win_rate").get<double>() : 1 - a.at("win_rate").get<double>();
  const std::vector<double> wdl = a.at("wdl");
  const double win = senteToMove ? wdl[0] : wdl[2], loss = senteToMove ? wdl[2] : wdl[0];
  auto pct = [](double x) { return std::to_string(int(std::lround(100 * x))) + "%"; };
  const std::string text = domElement(p.dom, "eval-text").second;
  EXPECT_EQ(text, "engine, for sente: expected score " + pct(score) + " (win " + pct(win) + " \u00b7 draw " +
                      pct(wdl[1]) + " \u00b7 loss " + pct(loss) + ")");
  EXPECT_EQ(domElement(p.dom, "eval-label").second, pct(score));
  std::smatch bar;
  ASSERT_TRUE(std::regex_search(p.dom, bar, std::regex("data-sente-score=\"([0-9.]+)\""))) << "no score on the bar";
  EXPECT_NEAR(std::stod(bar[1].str()), score, 0.0006);
  EXPECT_NE(p.dom.find("<div class=\"eval-end\">gote</div>"), std::string::npos);
  EXPECT_NE(p.dom.find("<div class=\"eval-end\">sente</div>"), std::string::npos);
}

// The study board in the browser: a pasted game is loaded, stepped back with the arrow, forward
// by a click on the record, and exported as KIF; the positions are the moves played here on a
// Position, the KIF's move texts are written by hand.
TEST(Serve, StudyBoardStepsThroughAPastedGameAndExportsKif) {
  const PageRun p = runPage("study", "selftest=study&variant=shogi&side=both&game=position%20startpos%20moves%207g7f%203c3d%208h2b%2B%203a2b");
  ASSERT_TRUE(p.result.is_object());
  auto shogi = game::loadVariant("shogi");
  auto after = [&](int n) {
    const std::vector<std::string> line = {"7g7f", "3c3d", "8h2b+", "3a2b"};
    game::Position pos(shogi);
    for (int i = 0; i < n; ++i) pos.makeMove(pos.parseUsi(line[size_t(i)]));
    return pos.sfen();
  };
  const json r = p.result;
  EXPECT_EQ(r.at("loaded").at("record"), json::array({"7g7f", "3c3d", "8h2b+", "3a2b"}));
  EXPECT_EQ(r.at("loaded").at("sfen"), after(4));
  EXPECT_EQ(r.at("back").at("ply"), 2);
  EXPECT_EQ(r.at("back").at("sfen"), after(2));
  EXPECT_EQ(r.at("back").at("shown"), "2 / 4");
  EXPECT_EQ(r.at("clicked").at("ply"), 3);
  EXPECT_EQ(r.at("clicked").at("sfen"), after(3));
  const std::string kif = r.at("kif");
  for (const char* want : {"手合割：平手", "７六歩(77)", "３四歩(33)", "２二角成(88)", "同　銀(31)"})
    EXPECT_NE(kif.find(want), std::string::npos) << want << "\n" << kif;
  EXPECT_TRUE(r.at("download").get<bool>());
  // What a person sees at the end: 3 of 4 moves, the third bold, the fourth ahead.
  EXPECT_EQ(domElement(p.dom, "study-ply").second, "3 / 4");
  EXPECT_NE(p.dom.find("class=\"ply current\" data-ply=\"3\""), std::string::npos);
  EXPECT_NE(p.dom.find("class=\"ply ahead\" data-ply=\"4\""), std::string::npos);
  EXPECT_EQ(p.state.at("sfen"), after(3));
}

// Pointing at a move of the opening explorer shows the board after it, drawn by the server.
TEST(Serve, ExplorerPreviewsTheBoardAfterAMove) {
  const PageRun p = runPage("preview", "selftest=preview");
  ASSERT_TRUE(p.result.is_object());
  const std::string move = p.result.at("move");
  auto v = game::loadVariant("micro");
  game::Position after = game::Position::fromSfen(v, p.result.at("sfen"));
  after.makeMove(after.parseUsi(move));
  int pieces = 0;
  for (game::Square sq = 0; sq < v->numSquares(); ++sq) pieces += after.at(sq) != game::kEmpty;
  for (int k = 0; k < int(v->handKinds.size()); ++k) pieces += after.handCount(0, k) > 0 ? 1 : 0;
  for (int k = 0; k < int(v->handKinds.size()); ++k) pieces += after.handCount(1, k) > 0 ? 1 : 0;
  const size_t at = p.dom.find("id=\"openings-preview-board\"");
  ASSERT_NE(at, std::string::npos);
  const std::string preview = p.dom.substr(at, p.dom.find("</svg>", at) - at);
  EXPECT_NE(preview.find("data-move=\"" + move + "\""), std::string::npos) << preview.substr(0, 200);
  int drawn = 0;
  for (size_t k = preview.find("class=\"piece\""); k != std::string::npos; k = preview.find("class=\"piece\"", k + 1)) ++drawn;
  EXPECT_EQ(drawn, pieces);
  EXPECT_NE(preview.find("class=\"last-move\""), std::string::npos);
  EXPECT_THAT(domElement(p.dom, "openings-preview-caption").second, HasSubstr("after " + move + ": share "));
}

// A person who does not move on a 1-second byoyomi clock loses on time: the server says so and
// the page shows it, the flag on the person's clock.
TEST(Serve, ClockFlagFallsInTheBrowser) {
  const PageRun p = runPage("clock", "selftest=clock&clock=0/1s&side=sente");
  ASSERT_TRUE(p.result.is_object());
  EXPECT_EQ(p.result.at("clock_text"), "0:00.0 + 1s byoyomi");
  ASSERT_TRUE(p.state.is_object());
  EXPECT_TRUE(p.state.at("game_over"));
  EXPECT_EQ(p.state.at("result").at("reason"), "timeout");
  EXPECT_EQ(p.state.at("result").at("winner"), "gote");
  EXPECT_EQ(domElement(p.dom, "status").second, "Game over: sente ran out of time, gote wins");
  const std::string clock = domElement(p.dom, "clock-bottom").first;
  EXPECT_THAT(clock, HasSubstr("flagged"));
  EXPECT_THAT(clock, HasSubstr("data-side=\"sente\""));
}

// Yonin in the browser, the person in west's seat: the engine plays south first and, after the
// person's pawn move, north, east and south, so west is to move again. The board is drawn from
// west's side. Expected layout, worked out from the seed's setup: west's home side is file 9, so
// file 9 is the bottom row and file 1 the top; north (next clockwise) sits on west's left, so
// rank a (north's back rank) is the left column and rank i (south's) the right. Hence the top
// row reads 1a, 1b, ... 1i, the labels along the top are the rank letters a..i and those down
// the side the files 1..9. Each army's tiles point the way it moves: west's up (0 quarter turns),
// north's to the right (1, clockwise), east's down (2), south's to the left (3).
TEST(Serve, FourPlayersFromWestsSeatInTheBrowser) {
  const PageRun p = runPage("yonin", "selftest=yonin&variant=yonin&humans=west");
  ASSERT_TRUE(p.result.is_object());
  EXPECT_EQ(p.result.at("viewer"), "west");
  EXPECT_EQ(p.result.at("before").at("side_to_move"), "west");
  EXPECT_EQ(p.result.at("before").at("history").size(), 1u);  // south's move, the engine's
  EXPECT_EQ(p.result.at("top_labels"), (json{"a", "b", "c", "d", "e", "f", "g", "h", "i"}));
  EXPECT_EQ(p.result.at("side_labels"), (json{"1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_EQ(p.result.at("hands"), (json{"west", "north", "east", "south"}));  // bottom, left, top, right

  // The squares in the order drawn.
  std::vector<std::string> order;
  const std::regex square(R"re(data-square="([0-9]+[a-z])")re");
  for (auto it = std::sregex_iterator(p.dom.begin(), p.dom.end(), square); it != std::sregex_iterator(); ++it)
    order.push_back((*it)[1]);
  ASSERT_EQ(order.size(), 81u);
  EXPECT_EQ(std::vector<std::string>(order.begin(), order.begin() + 9),
            (std::vector<std::string>{"1a", "1b", "1c", "1d", "1e", "1f", "1g", "1h", "1i"}));
  EXPECT_EQ(order[72], "9a");
  EXPECT_EQ(order[80], "9i");

  // Every tile's turn by its army.
  const std::map<std::string, std::string> turns = {{"west", "0"}, {"north", "1"}, {"east", "2"}, {"south", "3"}};
  const std::regex tile(R"re(data-square="([0-9]+[a-z])" data-piece="[^"]*" data-color="([a-z]+)" data-turns="([0-3])")re");
  int tiles = 0;
  for (auto it = std::sregex_iterator(p.dom.begin(), p.dom.end(), tile); it != std::sregex_iterator(); ++it, ++tiles)
    EXPECT_EQ((*it)[3].str(), turns.at((*it)[2].str())) << (*it)[1];
  EXPECT_EQ(tiles, 4 * 9);  // nothing taken in five moves from the start

  // The person's move is west's, the engine's three replies legal, and west to move again.
  ASSERT_TRUE(p.state.is_object());
  ASSERT_EQ(p.state.at("history").size(), 5u) << p.state.dump();
  EXPECT_EQ(p.state.at("history")[1], p.result.at("move"));
  EXPECT_EQ(p.state.at("side_to_move"), "west");
  EXPECT_EQ(replay(p.state), p.state.at("sfen"));
  EXPECT_EQ(domBoard(p.dom), boardOf(p.state));
  EXPECT_EQ(domElement(p.dom, "status").second, "west to move · move 6");
}

#endif  // POPPY_BINARY

}  // namespace
}  // namespace poppy
