// The game logic behind `poppy serve`, independent of HTTP: games kept in memory, moves checked
// by the rules engine, the engine's replies and analysis through play::Analyzer, and the
// opening explorer. Requests and replies are JSON (nlohmann), so the whole API is tested
// without sockets; apps/cmd_serve.cpp only moves bytes between httplib and route().
//
// Endpoints (all replies are JSON; errors are {"error": "..."} with a 4xx status):
//   GET  /api/variants                      the variants, their sizes, players and who plays them
//   POST /api/new     {variant?, side?, humans?, sfen?, clock?}   a new game -> state; side:
//                                            sente, gote or both (two players), a seat (south,
//                                            west, north, east) or "all" (four players);
//                                            humans: a list of seats, any of them (instead of
//                                            side); clock: "5m/30s" (byoyomi) or "5m+10s"
//                                            (Fischer), common/game_clock.h, two players only
//   GET  /api/state   ?game=ID
//   POST /api/move    {game, move}           a person's move (USI); illegal -> 400 with the reason
//   POST /api/engine-move {game, playouts?}  the engine plays the side to move -> {move, state, analysis}
//   POST /api/undo    {game}                 takes back to a person's previous turn
//   GET  /api/analysis ?game=ID[&playouts=N] the engine's view of the current position
//   GET  /api/openings ?variant=V[&sfen=S][&playouts=N]  the engine's preferred children of a
//                                            position (shares, win rates, child SFENs), and the
//                                            opening book's moves when a book is loaded
//   GET  /api/board   ?variant=V&sfen=S[&move=USI][&letters=1]  {"svg"}: the position (after
//                                            the move, highlighted) drawn by play/human/board_svg.h
// The study board (play/human/web_study.cpp): a game's "record" is its whole line of moves, of
// which "history" is the part up to the position shown ("record_at" moves in); a move that leaves
// the line starts a new one from there.
//   POST /api/load    {text, variant?}       a pasted SFEN ("... moves ..."), USI position
//                                            command, KIF, CSA or JSONL game record -> a game
//                                            people play on both sides, at the record's end
//   POST /api/goto    {game, ply}            shows the position after `ply` moves of the record
//                                            (0 to the record's length)
//   GET  /api/kif     ?game=ID               {"kif"}: the record as a KIF file (the variants KIF
//                                            writes: shogi, minishogi, judkins, gorogoro)
//
// Four players (yonin): sides are seats (south, west, north, east, in turn order); pieces carry
// their army's seat and the seat that moves them ("controller": a mated army's pieces are its
// mater's); "armies" lists who is out and who moves each army. Without a model for the variant
// the engine is the four-player search with the uniform network (rollout MCTS is for two).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "game/position.h"
#include "mcts/evaluator.h"
#include "play/analyzer.h"
#include "common/game_clock.h"
#include "play/openings/opening_book.h"

namespace poppy::play {

// A request the API refuses: the HTTP status (400 bad input, 404 unknown game or path, 409 the
// game is over) and a message that names the input and what is wrong.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

struct WebApiOptions {
  std::string defaultVariant = "micro";
  int playouts = 800;        // per engine move and analysis, unless a request asks for fewer/more
  int maxPlayouts = 100000;  // the most a request may ask for
  // No search holds the engine longer than this (others wait meanwhile), whether or not its
  // client is still there. 0: no limit. (A search whose client left stops sooner: route()'s
  // `abandoned` flag.)
  double maxSearchSeconds = 10;
  int plyCap = 200;          // a game this long is adjudicated (draw, or impasse points in shogi)
  int searchThreads = 1;     // threads per search (Analyzer::setThreads)
  // The networks, by the name of the variant each was trained for (`poppy serve`: the shipped
  // models and --model's); a variant without one is played by rollout MCTS (two players) or the
  // uniform network (four).
  struct Model {
    mcts::Evaluator* evaluator = nullptr;
    std::string name;  // shown on the page, e.g. the file name
  };
  std::map<std::string, Model> models;
  const OpeningBook* book = nullptr;     // optional, for the variant named by book->variant()
  size_t maxGames = 1000;                // the oldest games are forgotten beyond this
  uint64_t seed = 1;
  // Milliseconds on a steady clock, for the games' clocks (tests give a counter they advance).
  std::function<int64_t()> nowMs;
};

// The status of a request whose client left before the answer (nginx's "client closed request").
inline constexpr int kAbandonedStatus = 499;

struct ApiReply {
  int status = 200;
  nlohmann::json body;
};

class WebApi {
 public:
  // variants: every variant the page may offer (the first of a name wins).
  WebApi(std::vector<game::VariantPtr> variants, WebApiOptions options);

  // One request: method "GET"/"POST", path "/api/...", the query parameters and the raw body.
  // Never throws: every failure becomes a 4xx reply with {"error": message}. Thread-safe.
  // abandoned (optional): set by the caller when the client goes away; a search under way then
  // stops at once and the request fails with kAbandonedStatus, changing nothing (an engine move
  // is not played).
  ApiReply route(const std::string& method, const std::string& path, const std::map<std::string, std::string>& query,
                 const std::string& body, const std::atomic<bool>* abandoned = nullptr);

  // The endpoints, for callers that already hold JSON. They throw ApiError.
  nlohmann::json variants() const;
  nlohmann::json newGame(const nlohmann::json& request);
  nlohmann::json state(const std::string& gameId);
  nlohmann::json move(const nlohmann::json& request);
  nlohmann::json engineMove(const nlohmann::json& request, const std::atomic<bool>* abandoned = nullptr);
  nlohmann::json undo(const nlohmann::json& request);
  nlohmann::json analysis(const std::string& gameId, int playouts, const std::atomic<bool>* abandoned = nullptr);
  nlohmann::json openings(const std::string& variant, const std::string& sfen, int playouts,
                          const std::atomic<bool>* abandoned = nullptr);
  nlohmann::json board(const std::string& variant, const std::string& sfen, const std::string& move,
                       bool letters) const;
  nlohmann::json load(const nlohmann::json& request);
  nlohmann::json gotoPly(const nlohmann::json& request);
  nlohmann::json kif(const std::string& gameId);

  size_t gameCount() const;

 private:
  struct Game {
    // `mutex` guards the fields below and is held for microseconds (reads such as GET
    // /api/state never wait for a search); `searchMutex` lets one search of this game run at a
    // time and is held while it runs, never while waiting for `mutex` the other way round.
    std::mutex mutex;
    std::mutex searchMutex;
    uint64_t version = 0;  // counts changes (moves, undo): a search on an older copy is stale
    std::string id;
    game::Position pos;
    std::string startSfen;
    unsigned humans = 1;  // bit per seat played by people (two players: 1 sente, 2 gote, 3 both)
    bool isHuman(game::Color seat) const { return (humans >> seat) & 1; }
    std::vector<std::string> history;  // USI moves since startSfen
    std::vector<std::string> record;   // the whole line: history, then the moves stepped back over
    common::GameClock clock;    // settings().enabled() false: no clock
    int flagged = -1;   // the side whose time ran out (the game is then over), -1 none
    explicit Game(game::Position p) : pos(std::move(p)) {}
  };

  game::VariantPtr findVariant(const std::string& name) const;
  std::shared_ptr<Game> findGame(const std::string& id) const;
  int playoutsOr(int requested) const;
  // The model for its variant; the uniform network for a four-player variant without one; else
  // null (rollout MCTS).
  mcts::Evaluator* evaluatorFor(const game::Variant& v) const;
  std::string engineName(const game::Variant& v) const;
  // Runs one search under the engine lock (the evaluator serves one search at a time); throws
  // ApiError(kAbandonedStatus) when *abandoned is set by the end.
  // seconds > 0: at most that long (a clock's budget), within maxSearchSeconds.
  Analysis search(const game::Position& pos, int playouts, const std::atomic<bool>* abandoned, double seconds = 0);
  int64_t now() const;
  // Ends the game if the side to move has run out of time by `nowMs`; then, or if the game was
  // already over, throws ApiError 409 naming why (when `orThrow`).
  void checkTime(Game& g, int64_t nowMs, bool orThrow);
  nlohmann::json stateJson(const Game& g) const;
  // Plays `m` in g (history and record: a move off the record's line replaces the rest of it).
  static void playMove(Game& g, const game::Move& m);
  // Adds a game to games_ (forgetting the oldest beyond maxGames) under a fresh id.
  std::shared_ptr<Game> keep(std::unique_ptr<Game> g);
  nlohmann::json analysisJson(const game::Position& pos, const Analysis& a) const;

  std::vector<game::VariantPtr> variants_;
  WebApiOptions options_;
  std::map<std::string, std::unique_ptr<mcts::Evaluator>> uniformEvaluators_;  // by variant name

  mutable std::mutex gamesMutex_;
  std::map<std::string, std::shared_ptr<Game>> games_;
  std::vector<std::string> gameOrder_;  // creation order, for forgetting the oldest
  uint64_t nextGame_ = 1;

  std::mutex engineMutex_;  // one search at a time; guards analyzers_
  std::map<std::string, std::unique_ptr<Analyzer>> analyzers_;  // by variant name, made at its first search

  std::mutex openingsMutex_;
  std::map<std::string, nlohmann::json> openingsCache_;
};

// JSON of a position, for the page: board squares with pieces, hands, side to move, legal moves
// (with source, target, dropped kind and the face shown after the move), check and outcome.
nlohmann::json positionJson(const game::Position& pos, int plyCap);

}  // namespace poppy::play
