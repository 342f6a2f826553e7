// The study board's endpoints of play/human/web_api.h: a pasted game loaded as a record, a step
// to any ply of it, and the record as KIF.
#include <stdexcept>

#include "play/game_files/game_file.h"
#include "play/game_files/game_text.h"
#include "play/game_files/kif_format.h"
#include "play/human/web_api.h"
#include "play/human/web_request.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::play {

nlohmann::json WebApi::load(const nlohmann::json& request) {
  const std::string text = stringField(request, "text", true);
  const std::string variantName = stringField(request, "variant", false, options_.defaultVariant);
  selfplay::GameRecord record;
  try {
    record = gameFromText(text, variantName);
  } catch (const GameFileError& e) {
    throw ApiError(400, e.what());
  }
  const game::VariantPtr v = findVariant(record.variant);
  if (!v) throw ApiError(400, "the game is of variant \"" + record.variant + "\", which this server does not offer");
  std::unique_ptr<Game> g;
  try {
    g = std::make_unique<Game>(game::Position::fromSfen(v, record.start));
  } catch (const game::SfenError& e) {
    throw ApiError(400, std::string("the game's start: bad SFEN: ") + e.what());
  }
  g->startSfen = g->pos.sfen();
  g->humans = (1u << v->numPlayers) - 1;  // a study: people move every side
  for (size_t i = 0; i < record.moves.size(); ++i) {
    try {
      playMove(*g, g->pos.parseUsi(record.moves[i]));
    } catch (const game::MoveError& e) {
      throw ApiError(400, "move " + std::to_string(i + 1) + " of the game (" + record.moves[i] + ") is illegal: " + e.what());
    }
  }
  std::shared_ptr<Game> shared = keep(std::move(g));
  std::lock_guard<std::mutex> lock(shared->mutex);
  return stateJson(*shared);
}

nlohmann::json WebApi::gotoPly(const nlohmann::json& request) {
  auto g = findGame(stringField(request, "game", true));
  if (!request.contains("ply")) throw ApiError(400, "the request needs \"ply\"");
  const int ply = intField(request, "ply", -1);
  std::lock_guard<std::mutex> lock(g->mutex);
  if (g->clock.settings().enabled()) throw ApiError(409, "a game on a clock cannot step through its moves");
  if (ply < 0 || size_t(ply) > g->record.size())
    throw ApiError(400, "ply " + std::to_string(ply) + " is not in the record (0 to " + std::to_string(g->record.size()) + ")");
  // Back by unmaking, forward by the record's moves (legal: each was played from this line).
  while (g->history.size() > size_t(ply)) {
    g->pos.unmakeMove();
    g->history.pop_back();
  }
  while (g->history.size() < size_t(ply)) {
    const std::string& usi = g->record[g->history.size()];
    g->pos.makeMove(g->pos.parseUsi(usi));
    g->history.push_back(usi);
  }
  ++g->version;
  return stateJson(*g);
}

nlohmann::json WebApi::kif(const std::string& gameId) {
  auto g = findGame(gameId);
  std::lock_guard<std::mutex> lock(g->mutex);
  selfplay::GameRecord r;
  r.id = g->id;
  r.variant = g->pos.variant().name;
  r.start = g->startSfen;
  r.moves = g->record;
  r.plies = int(r.moves.size());
  r.model = "poppy serve";
  // How the record ends: the rules' word where its last position is over, else unfinished.
  game::Position end = game::Position::fromSfen(g->pos.variantPtr(), g->startSfen);
  for (const std::string& usi : g->record) end.makeMove(end.parseUsi(usi));
  const game::Outcome o = end.outcome(options_.plyCap);
  r.result = o.over() && !o.draw() ? selfplay::winnerName(end.variant().numPlayers, o.winner) : "draw";
  r.reason = o.over() ? selfplay::reasonName(o.reason) : "unfinished";
  try {
    return {{"kif", gameToKif(r, g->pos.variantPtr())}};
  } catch (const std::invalid_argument& e) {
    throw ApiError(400, std::string("no KIF for this game: ") + e.what());
  }
}

}  // namespace poppy::play
