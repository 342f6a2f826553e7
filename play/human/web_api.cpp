// The `poppy serve` game API: see web_api.h.
#include "play/human/web_api.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "common/json_integer.h"
#include "game/neighbours.h"
#include "mcts/evaluator.h"
#include "mcts/play_time_search.h"
#include "nn/encoder.h"
#include "play/human/board_svg.h"
#include "play/human/four_player_board_text.h"
#include "play/human/web_request.h"
#include "play/game_files/piece_kanji.h"
#include "play/engines/time_manager.h"

namespace poppy::play {

using nlohmann::json;

namespace {

// A bit per seat: every seat of the variant.
unsigned allSeats(const game::Variant& v) { return (1u << v.numPlayers) - 1; }

// The names of the seats in `seats` (a bit per seat), in turn order.
std::vector<std::string> seatNames(const game::Variant& v, unsigned seats) {
  std::vector<std::string> out;
  for (game::Color c = 0; c < v.numPlayers; ++c)
    if ((seats >> c) & 1) out.push_back(sideName(v, c));
  return out;
}

std::string joinSeats(const game::Variant& v, unsigned seats) {
  std::string out;
  for (const std::string& name : seatNames(v, seats)) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "nobody" : out;
}

std::string endText(const game::Position& pos, const game::Outcome& o) {
  switch (o.reason) {
    case game::EndReason::kNoLegalMove:
      return pos.inCheck() ? "checkmate" : "no legal move";
    case game::EndReason::kRepetition:
      return "repetition";
    case game::EndReason::kPerpetualCheck:
      return "perpetual check";
    case game::EndReason::kPlyCap:
      return "move limit";
    case game::EndReason::kRoyalsCaptured:
      return "royals captured";
    case game::EndReason::kBareKing:
      return "bare king";
    case game::EndReason::kBareKings:
      return "bare kings";
    case game::EndReason::kStalemate:
      return "stalemate";
    case game::EndReason::kSecondMate:
      return "second checkmate";
    case game::EndReason::kChecks:
      return std::to_string(pos.variant().checksToWin) + " checks given";
    case game::EndReason::kPerpetualAttack:
      return "perpetual attack";
    case game::EndReason::kNone:
      break;
  }
  return "";
}

// The face a piece shows after move m (before m is made).
int faceAfter(const game::Position& pos, game::Move m) {
  if (m.isDrop()) return m.dropFace();
  const int face = game::faceOf(pos.at(m.from));
  return m.isFlip() ? pos.variant().faces[face].flipTo : face;
}

json pieceJson(const game::Position& pos, game::Piece p) {
  const game::Variant& v = pos.variant();
  const game::Face& f = v.faces[game::faceOf(p)];
  const game::Color army = game::colorOf(p);
  json out = {{"color", sideName(v, army)},
              {"token", f.token()},
              {"letter", f.letterToken()},
              {"name", f.name},
              {"kanji", pieceKanji(f.name, army % 2)},
              {"promoted", f.promoted}};
  // Among four, the seat that moves the piece: its army's mater once the army is taken over.
  if (v.numPlayers > 2) out["controller"] = sideName(v, pos.controllerOf(army));
  return out;
}

// The seats people play, a bit per seat: "humans" (a list of seats, any of them), else "side"
// (two players: sente, gote or both; four: a seat or "all"); sente / south by default.
unsigned humanSeats(const game::Variant& v, const json& request) {
  const bool four = v.numPlayers > 2;
  auto seatOf = [&](const std::string& name) -> int {
    if (four) return parseSeat(name);
    if (name == "sente" || name == "black") return 0;
    if (name == "gote" || name == "white") return 1;
    return -1;
  };
  const std::string seatList = four ? "south, west, north or east" : "sente or gote";
  const auto humans = request.find("humans");
  if (humans != request.end() && !humans->is_null()) {
    if (request.contains("side") && !request.at("side").is_null())
      throw ApiError(400, "give \"side\" or \"humans\", not both");
    if (!humans->is_array() || humans->empty())
      throw ApiError(400, "\"humans\" must be a list of the seats people play (" + seatList + "), at least one");
    unsigned seats = 0;
    for (const json& h : *humans) {
      const int seat = h.is_string() ? seatOf(h.get<std::string>()) : -1;
      if (seat < 0) throw ApiError(400, "\"humans\" lists " + h.dump() + ", which is not a seat of " + v.name + " (" + seatList + ")");
      if ((seats >> seat) & 1) throw ApiError(400, "\"humans\" lists " + h.dump() + " twice");
      seats |= 1u << seat;
    }
    return seats;
  }
  const std::string side = stringField(request, "side", false, four ? "south" : "sente");
  if (side == (four ? "all" : "both")) return allSeats(v);
  const int seat = seatOf(side);
  if (seat < 0)
    throw ApiError(400, "side \"" + side + "\" must be " + (four ? "south, west, north, east or all (" + v.name + " has four players)" : std::string("sente, gote or both")));
  return 1u << seat;
}

int intParam(const std::map<std::string, std::string>& query, const char* key, int fallback) {
  const auto it = query.find(key);
  if (it == query.end() || it->second.empty()) return fallback;
  try {
    size_t used = 0;
    const long value = std::stol(it->second, &used);
    if (used == it->second.size() && value >= 0 && value <= 1000000000) return int(value);
  } catch (const std::exception&) {
  }
  throw ApiError(400, std::string("query parameter ") + key + "=\"" + it->second + "\" is not a whole number");
}

// Error messages quote the request, whose bytes need not be UTF-8, and a JSON string with bytes
// that are not UTF-8 cannot be dumped (nlohmann throws): each such byte becomes U+FFFD.
std::string validUtf8(const std::string& text) {
  return json::parse(json(text).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
}

std::string param(const std::map<std::string, std::string>& query, const char* key, bool required) {
  const auto it = query.find(key);
  if (it == query.end() || it->second.empty()) {
    if (required) throw ApiError(400, std::string("the request needs the query parameter \"") + key + "\"");
    return "";
  }
  return it->second;
}

}  // namespace

json positionJson(const game::Position& pos, int plyCap) {
  const game::Variant& v = pos.variant();
  json out;
  out["sfen"] = pos.sfen();
  out["files"] = v.files;
  out["ranks"] = v.ranks;
  out["players"] = v.numPlayers;
  out["seats"] = seatNames(v, allSeats(v));
  out["side_to_move"] = sideName(v, pos.sideToMove());
  out["check"] = pos.inCheck();
  out["ply"] = pos.gamePly();

  json board = json::array();
  for (game::Square s = 0; s < v.numSquares(); ++s) {
    json sq = {{"square", pos.squareName(s)}, {"file", v.fileNumber(s)}, {"rank", std::string(1, char('a' + v.rankOf(s)))}};
    sq["piece"] = pos.at(s) ? pieceJson(pos, pos.at(s)) : json(nullptr);
    board.push_back(std::move(sq));
  }
  out["board"] = std::move(board);

  json hands = json::object();
  for (game::Color c = 0; c < v.numPlayers; ++c) {
    json hand = json::array();
    for (int k = 0; k < int(v.handKinds.size()); ++k) {
      const int count = pos.handCount(c, k);
      if (count == 0) continue;
      const game::HandKind& hk = v.handKinds[k];
      hand.push_back({{"letter", v.faces[hk.setupFace].letterToken()},
                      {"count", count},
                      {"token", v.faces[hk.setupFace].token()},
                      {"name", v.faces[hk.setupFace].name},
                      {"kanji", pieceKanji(v.faces[hk.setupFace].name, c % 2)}});
    }
    hands[sideName(v, c)] = std::move(hand);
  }
  out["hands"] = std::move(hands);
  if (v.numPlayers > 2) {
    json armies = json::array();
    for (game::Color c = 0; c < v.numPlayers; ++c)
      armies.push_back({{"seat", sideName(v, c)}, {"out", pos.isOut(c)}, {"controller", sideName(v, pos.controllerOf(c))}});
    out["armies"] = std::move(armies);
  }

  const game::Outcome o = pos.outcome(plyCap);
  out["game_over"] = o.over();
  if (o.over()) {
    out["result"] = {{"reason", endText(pos, o)}, {"winner", o.winner >= 0 ? json(sideName(v, o.winner)) : json(nullptr)}};
  } else {
    out["result"] = nullptr;
  }

  json legal = json::array();
  if (!o.over()) {
    game::MoveList moves;
    pos.generateLegal(moves);
    for (const game::Move& m : moves) {
      const game::Face& after = v.faces[faceAfter(pos, m)];
      json jm = {{"usi", pos.moveToUsi(m)},
                 {"to", pos.squareName(m.to)},
                 {"flip", m.isFlip()},
                 {"face", after.token()},
                 {"name", after.name},
                 {"kanji", pieceKanji(after.name, pos.sideToMove() % 2)}};
      if (m.isDrop()) {
        jm["from"] = nullptr;
        jm["drop"] = v.faces[m.dropFace()].letterToken();
      } else {
        jm["from"] = pos.squareName(m.from);
        jm["drop"] = nullptr;
      }
      // A lion's double move, igui or pass (chu): the square its first step goes to.
      jm["mid"] = m.isTwoLeg() ? json(pos.squareName(m.mid())) : json(nullptr);
      // A burn or double igui (mitsugumi): the squares it also empties, in the USI text's order.
      json burns = json::array();
      if (m.isBurn())
        for (int d = 0; d < 8; ++d)
          if ((m.burnMask() >> d) & 1) burns.push_back(pos.squareName(game::neighbourOf(v, m.to, d)));
      jm["burns"] = std::move(burns);
      legal.push_back(std::move(jm));
    }
  }
  out["legal_moves"] = std::move(legal);
  return out;
}

WebApi::WebApi(std::vector<game::VariantPtr> variants, WebApiOptions options) : options_(std::move(options)) {
  for (auto& v : variants)
    if (v && !findVariant(v->name)) variants_.push_back(std::move(v));
  if (variants_.empty()) throw std::runtime_error("poppy serve: no variants to offer");
  if (!findVariant(options_.defaultVariant))
    throw std::runtime_error("unknown variant \"" + options_.defaultVariant + "\" for the page");
  // Rollout MCTS plays two players only: four-player variants without their model search with
  // the uniform network (equal priors, every position a draw among the players still in).
  for (const auto& v : variants_)
    if (v->numPlayers > 2) {
      const nn::Encoder encoder(v);
      uniformEvaluators_[v->name] = std::make_unique<mcts::UniformEvaluator>(encoder.policySize(), encoder.valueSize());
    }
}

game::VariantPtr WebApi::findVariant(const std::string& name) const {
  for (const auto& v : variants_)
    if (v->name == name) return v;
  return nullptr;
}

std::shared_ptr<WebApi::Game> WebApi::findGame(const std::string& id) const {
  std::lock_guard<std::mutex> lock(gamesMutex_);
  const auto it = games_.find(id);
  if (it == games_.end())
    throw ApiError(404, "unknown game \"" + id + "\" (the server may have restarted or forgotten it; start a new game)");
  return it->second;
}

size_t WebApi::gameCount() const {
  std::lock_guard<std::mutex> lock(gamesMutex_);
  return games_.size();
}

int WebApi::playoutsOr(int requested) const {
  if (requested <= 0) return options_.playouts;
  if (requested > options_.maxPlayouts)
    throw ApiError(400, "playouts " + std::to_string(requested) + " is more than the server allows (" +
                            std::to_string(options_.maxPlayouts) + ")");
  return requested;
}

mcts::Evaluator* WebApi::evaluatorFor(const game::Variant& v) const {
  if (const auto model = options_.models.find(v.name); model != options_.models.end()) return model->second.evaluator;
  const auto uniform = uniformEvaluators_.find(v.name);
  return uniform != uniformEvaluators_.end() ? uniform->second.get() : nullptr;
}

std::string WebApi::engineName(const game::Variant& v) const {
  if (const auto model = options_.models.find(v.name); model != options_.models.end()) return "model " + model->second.name;
  return v.numPlayers > 2 ? "uniform network" : "rollout MCTS";
}

int64_t WebApi::now() const {
  if (options_.nowMs) return options_.nowMs();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void WebApi::checkTime(Game& g, int64_t nowMs, bool orThrow) {
  const int running = g.clock.running();
  if (g.flagged < 0 && running >= 0 && g.clock.flagged(running, nowMs)) {
    g.flagged = running;
    g.clock.stop();
  }
  if (orThrow && g.flagged >= 0)
    throw ApiError(409, "the game is over: " + sideName(g.pos.variant(), g.flagged) + " ran out of time");
}

Analysis WebApi::search(const game::Position& pos, int playouts, const std::atomic<bool>* abandoned, double seconds) {
  mcts::SearchParams params = mcts::playTimeSearchParams();
  params.playouts = playouts;
  params.plyCap = options_.plyCap;
  std::lock_guard<std::mutex> lock(engineMutex_);
  // One analyzer per variant, kept: a search that continues the game of the last one (the
  // person's reply, the analysis after an engine move) starts from that search's subtree, and
  // its position cache answers transpositions, as in `poppy usi` and `play`.
  std::unique_ptr<Analyzer>& kept = analyzers_[pos.variant().name];
  if (!kept) {
    kept = std::make_unique<Analyzer>(pos.variantPtr(), evaluatorFor(pos.variant()), params, options_.seed);
    kept->setThreads(options_.searchThreads);
    kept->setTreeReuse(true);
  }
  Analyzer& analyzer = *kept;
  analyzer.setParams(params);
  SearchLimits limits;
  limits.playouts = playouts;
  limits.seconds = options_.maxSearchSeconds;
  if (seconds > 0) limits.seconds = limits.seconds > 0 ? std::min(limits.seconds, seconds) : seconds;
  Analysis a = analyzer.analyze(pos, limits, abandoned);
  // A search cut short because its client left is not an answer: nothing is played or cached.
  if (abandoned && abandoned->load()) throw ApiError(kAbandonedStatus, "the client closed the request");
  return a;
}

json WebApi::variants() const {
  json list = json::array();
  for (const auto& v : variants_) {
    list.push_back({{"name", v->name},
                    {"description", v->description},
                    {"files", v->files},
                    {"ranks", v->ranks},
                    {"start", v->startSfen},
                    {"players", v->numPlayers},
                    {"seats", seatNames(*v, allSeats(*v))},
                    {"engine", engineName(*v)}});
  }
  return {{"variants", list}, {"default", options_.defaultVariant}, {"playouts", options_.playouts}};
}

json WebApi::stateJson(const Game& g) const {
  json out = positionJson(g.pos, options_.plyCap);
  out["game"] = g.id;
  out["variant"] = g.pos.variant().name;
  out["start_sfen"] = g.startSfen;
  const game::Variant& v = g.pos.variant();
  // "human": the seat the page is drawn from (the first person's), or both/all.
  const std::vector<std::string> humans = seatNames(v, g.humans);
  if (g.humans == allSeats(v)) out["human"] = v.numPlayers > 2 ? "all" : "both";
  else out["human"] = humans.front();
  out["humans"] = humans;
  out["engine"] = engineName(v);
  out["history"] = g.history;
  out["record"] = g.record;
  out["record_at"] = g.history.size();  // moves of the record played to reach this position
  if (g.flagged >= 0) {
    // Lost on time: over, whatever the board says.
    out["game_over"] = true;
    out["result"] = {{"reason", "timeout"}, {"winner", sideName(v, 1 - g.flagged)}};  // as game records say it
    out["legal_moves"] = json::array();
  }
  if (!g.clock.settings().enabled()) {
    out["clock"] = nullptr;
  } else {
    const int64_t t = now();
    const common::ClockSettings& cs = g.clock.settings();
    json clock = {{"text", common::clockText(cs)},
                  {"main_ms", cs.mainMs},
                  {"byoyomi_ms", cs.byoyomiMs},
                  {"increment_ms", cs.incrementMs},
                  {"running", g.clock.running() >= 0 ? json(sideName(v, g.clock.running())) : json(nullptr)}};
    for (int side = 0; side < 2; ++side)
      clock[sideName(v, side)] = {{"main_left_ms", g.clock.mainLeftMs(side, t)},
                                {"byoyomi_left_ms", g.clock.byoyomiLeftMs(side, t)}};
    out["clock"] = std::move(clock);
  }
  if (g.history.empty()) {
    out["last_move"] = nullptr;
  } else {
    const game::Move m = g.pos.lastMove();
    out["last_move"] = {{"usi", g.history.back()},
                        {"from", m.isDrop() ? json(nullptr) : json(g.pos.squareName(m.from))},
                        {"to", g.pos.squareName(m.to)}};
  }
  return out;
}

json WebApi::newGame(const json& request) {
  const std::string variantName = stringField(request, "variant", false, options_.defaultVariant);
  const game::VariantPtr v = findVariant(variantName);
  if (!v) throw ApiError(400, "unknown variant \"" + variantName + "\"");
  const unsigned humans = humanSeats(*v, request);
  const std::string sfen = stringField(request, "sfen", false);
  common::ClockSettings clock;
  try {
    clock = common::parseClock(stringField(request, "clock", false));
  } catch (const std::invalid_argument& e) {
    throw ApiError(400, e.what());
  }
  if (clock.enabled() && v->numPlayers > 2)
    throw ApiError(400, "clocks are for two-player games (" + v->name + " has " + std::to_string(v->numPlayers) +
                            " players)");
  std::unique_ptr<Game> g;
  try {
    g = std::make_unique<Game>(sfen.empty() ? game::Position(v) : game::Position::fromSfen(v, sfen));
  } catch (const game::SfenError& e) {
    throw ApiError(400, std::string("bad SFEN: ") + e.what());
  }
  g->humans = humans;
  g->startSfen = g->pos.sfen();
  if (clock.enabled()) {
    g->clock = common::GameClock(clock);
    if (!g->pos.outcome(options_.plyCap).over()) g->clock.start(g->pos.sideToMove(), now());
  }
  std::shared_ptr<Game> shared = keep(std::move(g));
  std::lock_guard<std::mutex> lock(shared->mutex);
  return stateJson(*shared);
}

std::shared_ptr<WebApi::Game> WebApi::keep(std::unique_ptr<Game> g) {
  std::shared_ptr<Game> shared(std::move(g));
  std::lock_guard<std::mutex> lock(gamesMutex_);
  // Ids are not guessable across restarts, so a stale page gets "unknown game", not another's.
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  shared->id = "g" + std::to_string(nextGame_++) + "-" + std::to_string(rng() % 1000000);
  games_[shared->id] = shared;
  gameOrder_.push_back(shared->id);
  while (games_.size() > options_.maxGames) {
    games_.erase(gameOrder_.front());
    gameOrder_.erase(gameOrder_.begin());
  }
  return shared;
}

void WebApi::playMove(Game& g, const game::Move& m) {
  const std::string usi = g.pos.moveToUsi(m);
  const size_t ply = g.history.size();
  if (ply >= g.record.size() || g.record[ply] != usi) {
    g.record.resize(ply);
    g.record.push_back(usi);
  }
  g.history.push_back(usi);
  g.pos.makeMove(m);
  ++g.version;
}

json WebApi::state(const std::string& gameId) {
  auto g = findGame(gameId);
  std::lock_guard<std::mutex> lock(g->mutex);
  checkTime(*g, now(), false);
  return stateJson(*g);
}

namespace {

// After a move: the clock of the side now to move runs, unless the game ended.
void passTheClock(common::GameClock& clock, const game::Position& pos, int plyCap, int64_t nowMs) {
  if (!clock.settings().enabled()) return;
  if (pos.outcome(plyCap).over()) clock.stop();
  else clock.start(pos.sideToMove(), nowMs);
}

}  // namespace

json WebApi::move(const json& request) {
  auto g = findGame(stringField(request, "game", true));
  const std::string text = stringField(request, "move", true);
  std::lock_guard<std::mutex> lock(g->mutex);
  const int64_t t = now();
  checkTime(*g, t, true);
  const game::Outcome o = g->pos.outcome(options_.plyCap);
  if (o.over()) throw ApiError(409, "the game is over (" + endText(g->pos, o) + ")");
  const game::Variant& v = g->pos.variant();
  if (!g->isHuman(g->pos.sideToMove()))
    throw ApiError(409, "it is the engine's move (" + sideName(v, g->pos.sideToMove()) + "): people play " +
                            joinSeats(v, g->humans) + " in this game");
  game::Move m;
  try {
    m = g->pos.parseUsi(text);
  } catch (const game::MoveError& e) {
    throw ApiError(400, std::string("illegal move: ") + e.what());
  }
  playMove(*g, m);
  g->clock.moved(t);
  passTheClock(g->clock, g->pos, options_.plyCap, t);
  return stateJson(*g);
}

json WebApi::engineMove(const json& request, const std::atomic<bool>* abandoned) {
  auto g = findGame(stringField(request, "game", true));
  const int playouts = playoutsOr(intField(request, "playouts", 0));
  std::lock_guard<std::mutex> searchLock(g->searchMutex);
  std::unique_lock<std::mutex> lock(g->mutex);
  checkTime(*g, now(), true);
  const game::Outcome o = g->pos.outcome(options_.plyCap);
  if (o.over()) throw ApiError(409, "the game is over (" + endText(g->pos, o) + ")");
  const game::Variant& v = g->pos.variant();
  // A person's turn is theirs, unless people play every seat (then the engine moves on request).
  if (g->humans != allSeats(v) && g->isHuman(g->pos.sideToMove()))
    throw ApiError(409, "it is your move (" + sideName(v, g->pos.sideToMove()) + "): the engine plays only " +
                            joinSeats(v, allSeats(v) & ~g->humans) + " in this game");
  // On a clock the engine thinks as `poppy usi` would with this time left (play/engines/time_manager.h).
  double seconds = 0;
  if (g->clock.settings().enabled()) {
    const int side = g->pos.sideToMove();
    const common::ClockSettings& cs = g->clock.settings();
    seconds = std::max<int64_t>(1, clockBudgetMs(g->clock.mainLeftMs(side, now()), cs.incrementMs, cs.byoyomiMs,
                                                 TimeSettings{})) /
              1000.0;
  }
  // The search runs on a copy, without the game's lock: the state can be read meanwhile.
  const game::Position searched = g->pos;
  const uint64_t version = g->version;
  lock.unlock();
  const Analysis a = search(searched, playouts, abandoned, seconds);
  lock.lock();
  if (g->version != version) throw ApiError(409, "the game changed during the engine's search (a move or an undo)");
  if (a.moves.empty()) throw ApiError(409, "the engine has no move here");
  json analysisOut = analysisJson(g->pos, a);
  const game::Move m = a.moves.front().move;  // the most visited move
  const int64_t t = now();
  checkTime(*g, t, false);  // an engine too slow for its clock loses like anyone
  if (g->flagged >= 0) return {{"move", nullptr}, {"analysis", std::move(analysisOut)}, {"state", stateJson(*g)}};
  playMove(*g, m);
  g->clock.moved(t);
  passTheClock(g->clock, g->pos, options_.plyCap, t);
  return {{"move", g->history.back()}, {"analysis", std::move(analysisOut)}, {"state", stateJson(*g)}};
}

json WebApi::undo(const json& request) {
  auto g = findGame(stringField(request, "game", true));
  std::lock_guard<std::mutex> lock(g->mutex);
  if (g->history.empty()) throw ApiError(400, "nothing to undo: no move was played in this game");
  if (g->clock.settings().enabled()) throw ApiError(409, "a game on a clock cannot be taken back");
  // Take back one move, then the engine's moves before it, so a person is to move again.
  do {
    g->pos.unmakeMove();
    g->history.pop_back();
  } while (!g->history.empty() && !g->isHuman(g->pos.sideToMove()));
  ++g->version;
  return stateJson(*g);
}

json WebApi::analysisJson(const game::Position& pos, const Analysis& a) const {
  const game::Variant& v = pos.variant();
  json moves = json::array();
  std::vector<double> heatPrior(v.numSquares(), 0.0), heatVisits(v.numSquares(), 0.0);
  for (const MoveInfo& m : a.moves) {
    moves.push_back({{"usi", m.usi},
                     {"visits", m.visits},
                     {"share", m.share},
                     {"prior", m.prior},
                     {"win_rate", m.winRate},
                     {"wdl", m.wdl},
                     {"pv", m.pv},
                     {"to", pos.squareName(m.move.to)},
                     {"from", m.move.isDrop() ? json(nullptr) : json(pos.squareName(m.move.from))}});
    heatPrior[m.move.to] += m.prior;
    heatVisits[m.move.to] += m.share;
  }
  // The policy heat map: the prior of every move summed per destination square.
  json heat = json::object(), heatShare = json::object();
  for (game::Square s = 0; s < v.numSquares(); ++s) {
    if (heatPrior[s] > 0) heat[pos.squareName(s)] = heatPrior[s];
    if (heatVisits[s] > 0) heatShare[pos.squareName(s)] = heatVisits[s];
  }
  return {{"side_to_move", sideName(v, pos.sideToMove())},
          {"win_rate", a.winRate},
          {"wdl", a.wdl},
          {"centipawns", a.centipawns()},
          {"playouts", a.playouts},
          {"seconds", a.seconds},
          {"network", a.network},
          {"terminal", a.terminal},
          {"moves", std::move(moves)},
          {"heat", std::move(heat)},
          {"heat_visits", std::move(heatShare)}};
}

json WebApi::analysis(const std::string& gameId, int playouts, const std::atomic<bool>* abandoned) {
  auto g = findGame(gameId);
  const int n = playoutsOr(playouts);
  std::lock_guard<std::mutex> searchLock(g->searchMutex);
  game::Position pos = [&] {
    std::lock_guard<std::mutex> lock(g->mutex);
    return g->pos;
  }();
  // Searched on a copy, without the game's lock: the state can be read (and a person can move)
  // meanwhile; the answer names the position it analysed.
  json out = analysisJson(pos, search(pos, n, abandoned));
  out["game"] = g->id;
  out["sfen"] = pos.sfen();
  return out;
}

json WebApi::openings(const std::string& variantName, const std::string& sfen, int playouts,
                      const std::atomic<bool>* abandoned) {
  const std::string name = variantName.empty() ? options_.defaultVariant : variantName;
  const game::VariantPtr v = findVariant(name);
  if (!v) throw ApiError(400, "unknown variant \"" + name + "\"");
  const int n = playoutsOr(playouts);
  game::Position pos(v);
  if (!sfen.empty()) {
    try {
      pos = game::Position::fromSfen(v, sfen);
    } catch (const game::SfenError& e) {
      throw ApiError(400, std::string("bad SFEN: ") + e.what());
    }
  }
  // Browsing goes up and down the same tree: searched positions are kept (a bounded cache).
  const std::string cacheKey = v->name + "|" + OpeningBook::key(pos) + "|" + std::to_string(n);
  {
    std::lock_guard<std::mutex> lock(openingsMutex_);
    const auto it = openingsCache_.find(cacheKey);
    if (it != openingsCache_.end()) return it->second;
  }
  const Analysis a = search(pos, n, abandoned);
  const std::vector<BookMove>* book =
      options_.book && options_.book->variant() == v->name ? options_.book->find(pos) : nullptr;
  json children = json::array();
  for (const MoveInfo& m : a.moves) {
    game::Position child = pos;
    child.makeMove(m.move);
    json c = {{"move", m.usi},        {"share", m.share}, {"visits", m.visits}, {"prior", m.prior},
              {"win_rate", m.winRate}, {"sfen", child.sfen()}};
    if (book) {
      for (const BookMove& b : *book)
        if (b.move == m.usi) c["book_weight"] = b.weight;
    }
    children.push_back(std::move(c));
  }
  json out = {{"variant", v->name},
              {"sfen", pos.sfen()},
              {"side_to_move", sideName(*v, pos.sideToMove())},
              {"win_rate", a.winRate},
              {"playouts", a.playouts},
              {"network", a.network},
              {"terminal", a.terminal},
              {"in_book", book != nullptr},
              {"children", std::move(children)}};
  std::lock_guard<std::mutex> lock(openingsMutex_);
  if (openingsCache_.size() >= 2000) openingsCache_.clear();
  openingsCache_[cacheKey] = out;
  return out;
}

json WebApi::board(const std::string& variantName, const std::string& sfen, const std::string& move,
                   bool letters) const {
  const std::string name = variantName.empty() ? options_.defaultVariant : variantName;
  const game::VariantPtr v = findVariant(name);
  if (!v) throw ApiError(400, "unknown variant \"" + name + "\"");
  if (v->numPlayers > 2)
    throw ApiError(400, "board pictures are drawn for two-player variants only (" + v->name + " has " +
                            std::to_string(v->numPlayers) + " players)");
  game::Position pos(v);
  try {
    if (!sfen.empty()) pos = game::Position::fromSfen(v, sfen);
  } catch (const game::SfenError& e) {
    throw ApiError(400, std::string("bad SFEN: ") + e.what());
  }
  if (!move.empty()) {
    try {
      pos.makeMove(pos.parseUsi(move));
    } catch (const game::MoveError& e) {
      throw ApiError(400, std::string("illegal move: ") + e.what());
    }
  }
  BoardSvgOptions o;
  o.square = 30;
  o.letters = letters;
  return {{"variant", v->name}, {"sfen", pos.sfen()}, {"svg", boardSvg(pos, o)}};
}

ApiReply WebApi::route(const std::string& method, const std::string& path,
                       const std::map<std::string, std::string>& query, const std::string& body,
                       const std::atomic<bool>* abandoned) {
  ApiReply reply;
  try {
    auto parseBody = [&]() -> json {
      if (method != "POST") throw ApiError(405, path + " needs POST");
      try {
        json j = json::parse(body.empty() ? std::string("{}") : body);
        if (!j.is_object()) throw ApiError(400, "the request body must be a JSON object");
        return j;
      } catch (const json::parse_error& e) {
        throw ApiError(400, std::string("malformed JSON in the request body: ") + e.what());
      }
    };
    auto needGet = [&] {
      if (method != "GET") throw ApiError(405, path + " needs GET");
    };
    if (path == "/api/variants") {
      needGet();
      reply.body = variants();
    } else if (path == "/api/new") {
      reply.body = newGame(parseBody());
    } else if (path == "/api/state") {
      needGet();
      reply.body = state(param(query, "game", true));
    } else if (path == "/api/move") {
      reply.body = move(parseBody());
    } else if (path == "/api/engine-move") {
      reply.body = engineMove(parseBody(), abandoned);
    } else if (path == "/api/undo") {
      reply.body = undo(parseBody());
    } else if (path == "/api/analysis") {
      needGet();
      reply.body = analysis(param(query, "game", true), intParam(query, "playouts", 0), abandoned);
    } else if (path == "/api/openings") {
      needGet();
      reply.body = openings(param(query, "variant", false), param(query, "sfen", false), intParam(query, "playouts", 0),
                            abandoned);
    } else if (path == "/api/load") {
      reply.body = load(parseBody());
    } else if (path == "/api/goto") {
      reply.body = gotoPly(parseBody());
    } else if (path == "/api/kif") {
      needGet();
      reply.body = kif(param(query, "game", true));
    } else if (path == "/api/board") {
      needGet();
      reply.body = board(param(query, "variant", false), param(query, "sfen", false), param(query, "move", false),
                         param(query, "letters", false) == "1");
    } else {
      throw ApiError(404, "no API endpoint " + path);
    }
  } catch (const ApiError& e) {
    reply.status = e.status();
    reply.body = {{"error", validUtf8(e.what())}};
  } catch (const std::exception& e) {
    // Anything else is still the request's fault as far as the page can tell; the server lives on.
    reply.status = 400;
    reply.body = {{"error", validUtf8(e.what())}};
  }
  return reply;
}

}  // namespace poppy::play
