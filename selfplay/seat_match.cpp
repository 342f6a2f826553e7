#include "selfplay/seat_match.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "mcts/search.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::selfplay {

double SeatMatchResult::share() const { return games() ? (winsA + drawPointsA) / games() : 0.0; }

double SeatMatchResult::winRate() const { return games() ? double(winsA) / games() : 0.0; }

std::pair<double, double> SeatMatchResult::winRateInterval95() const {
  const double n = games();
  if (n < 1) return {0, 1};
  const double p = winRate(), z = 1.96, z2 = z * z;
  const double center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(center - half, 0.0), std::min(center + half, 1.0)};
}

namespace {

struct Game {
  int number = -1;
  int seatOfA = 0;
  std::unique_ptr<game::Position> pos;
  std::unique_ptr<mcts::Tree> tree;  // the search of the move to play now
  GameRecord record;
};

}  // namespace

SeatMatchResult playSeatMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                              const PlayerSpec& b, const MatchSettings& settings, const SeatMatchProgress& progress) {
  const int players = variant->numPlayers;
  if (players < 3) throw std::invalid_argument("playSeatMatch: " + variant->name + " has two players (use playMatch)");
  for (const PlayerSpec* p : {&a, &b})
    if (p->kind != PlayerSpec::Kind::kNetwork || !p->evaluator)
      throw std::invalid_argument("playSeatMatch: " + p->name + ": four-player games are between network players");
  PlayerSpec specs[2] = {a, b};
  for (PlayerSpec& p : specs) {
    p.search.rootNoise = p.search.gumbelConsidered > 0;  // a Gumbel root only: see playMatch
    p.search.plyCap = settings.plyCap;
  }
  const int slots = std::max(1, std::min(settings.parallelGames, settings.games));
  const int leaves = slots * std::max(1, std::max(a.search.leavesPerTree, b.search.leavesPerTree));
  mcts::SearchDriver drivers[2] = {mcts::SearchDriver(*a.evaluator, encoder, leaves),
                                   mcts::SearchDriver(*b.evaluator, encoder, leaves)};
  std::mt19937 rng(uint32_t(settings.seed * 2654435761u + 17));
  SeatMatchResult result;
  result.players = players;
  std::vector<Game> games(static_cast<size_t>(slots));
  int started = 0;
  const std::string startSfen = game::Position(variant).sfen();
  auto start = [&](Game& g) {
    g.number = started++;
    g.seatOfA = g.number % players;
    g.pos = std::make_unique<game::Position>(variant);
    g.tree.reset();
    g.record = GameRecord{};
    g.record.id = settings.idPrefix + std::to_string(g.number);
    g.record.variant = variant->name;
    g.record.start = startSfen;
    g.record.model = a.name + " as " + winnerName(players, g.seatOfA) + ", " + b.name + " in the other seats";
  };
  for (Game& g : games) start(g);
  auto playerOf = [&](const Game& g) { return g.pos->sideToMove() == g.seatOfA ? 0 : 1; };

  std::vector<mcts::Tree*> trees[2];
  while (result.games() < settings.games) {
    for (auto& t : trees) t.clear();
    for (Game& g : games) {
      if (g.number < 0) continue;
      const int p = playerOf(g);
      if (!g.tree) g.tree = std::make_unique<mcts::Tree>(*g.pos, specs[p].search, settings.seed * 7919 + uint64_t(g.number));
      trees[p].push_back(g.tree.get());
    }
    if (trees[0].empty() && trees[1].empty()) break;
    for (int p = 0; p < 2; ++p)
      if (!trees[p].empty()) drivers[p].search(trees[p], specs[p].search.playouts);
    for (Game& g : games) {
      if (g.number < 0 || !g.tree) continue;
      const float temperature = g.pos->gamePly() < settings.openingTemperaturePlies ? 1.0f : 0.0f;
      const game::Move move = g.tree->pickMove(temperature, rng);
      g.tree.reset();
      g.record.moves.push_back(g.pos->moveToUsi(move));
      g.pos->makeMove(move);
      const game::Outcome outcome = g.pos->outcome(settings.plyCap);
      if (!outcome.over()) continue;
      finishRecord(g.record, outcome, players);
      if (outcome.winner == g.seatOfA) {
        ++result.winsA;
      } else if (outcome.winner >= 0) {
        ++result.winsOthers;
      } else {
        ++result.draws;
        int in = 0;
        for (game::Color c = 0; c < players; ++c) in += !g.pos->isOut(c);
        if (!g.pos->isOut(g.seatOfA)) result.drawPointsA += 1.0 / in;
      }
      result.records.push_back(g.record);
      result.seatOfA.push_back(g.seatOfA);
      if (progress) progress(result, settings.games);
      if (started < settings.games) start(g);
      else g.number = -1;
    }
  }
  return result;
}

}  // namespace poppy::selfplay
