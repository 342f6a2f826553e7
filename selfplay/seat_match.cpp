#include "selfplay/seat_match.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "common/parallel_for.h"
#include "mcts/random_player.h"
#include "mcts/rollout_player.h"
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
  std::unique_ptr<mcts::Tree> tree;  // a network player's search of the move to play now
  game::Move rolloutMove;            // a rollout player's move this round
  GameRecord record;
};

// What one of the two players (A or B) needs to choose its moves.
struct SeatPlayer {
  PlayerSpec spec;
  std::unique_ptr<mcts::SearchDriver> driver;                 // network players
  std::vector<std::unique_ptr<mcts::RolloutPlayer>> rollout;  // rollout players: one per game slot
  std::unique_ptr<mcts::RandomPlayer> random;                 // random players
};

}  // namespace

SeatMatchResult playSeatMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                              const PlayerSpec& b, const MatchSettings& settings, const SeatMatchProgress& progress) {
  const int players = variant->numPlayers;
  if (players < 3) throw std::invalid_argument("playSeatMatch: " + variant->name + " has two players (use playMatch)");
  const int slots = std::max(1, std::min(settings.parallelGames, settings.games));
  SeatPlayer seats[2];
  for (int p = 0; p < 2; ++p) {
    SeatPlayer& sp = seats[p];
    sp.spec = p == 0 ? a : b;
    sp.spec.search.rootNoise = sp.spec.search.gumbelConsidered > 0;  // a Gumbel root only: see playMatch
    sp.spec.search.plyCap = settings.plyCap;
    switch (sp.spec.kind) {
      case PlayerSpec::Kind::kNetwork:
        if (!sp.spec.evaluator) throw std::invalid_argument("playSeatMatch: network player '" + sp.spec.name + "' has no model");
        sp.driver = std::make_unique<mcts::SearchDriver>(*sp.spec.evaluator, encoder,
                                                         slots * std::max(1, sp.spec.search.leavesPerTree));
        break;
      case PlayerSpec::Kind::kRollout:
        sp.rollout = rolloutPlayersPerSlot(sp.spec.simulations, settings, p, slots);
        break;
      case PlayerSpec::Kind::kRandom:
        sp.random = std::make_unique<mcts::RandomPlayer>(settings.seed * 37 + uint64_t(p));
        break;
      case PlayerSpec::Kind::kExternal:
        throw std::invalid_argument("playSeatMatch: " + sp.spec.name + ": no engine plays " + variant->name +
                                    "; its players are model:, uniform:, rollout: and random");
    }
  }
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
  std::vector<size_t> rolloutSlots;
  while (result.games() < settings.games) {
    for (auto& t : trees) t.clear();
    rolloutSlots.clear();
    bool anyActive = false;
    for (size_t slot = 0; slot < games.size(); ++slot) {
      Game& g = games[slot];
      if (g.number < 0) continue;
      anyActive = true;
      const int p = playerOf(g);
      if (seats[p].driver) {
        if (!g.tree)
          g.tree = std::make_unique<mcts::Tree>(*g.pos, seats[p].spec.search, settings.seed * 7919 + uint64_t(g.number));
        trees[p].push_back(g.tree.get());
      } else if (!seats[p].rollout.empty()) {
        rolloutSlots.push_back(slot);
      }
    }
    if (!anyActive) break;
    for (int p = 0; p < 2; ++p)
      if (!trees[p].empty()) seats[p].driver->search(trees[p], seats[p].spec.search.playouts);
    // Rollout searches are long and serial: the games' searches run at once (see playMatch).
    common::parallelFor(int(rolloutSlots.size()), common::hardwareThreads(), [&](int i) {
      const size_t slot = rolloutSlots[size_t(i)];
      Game& g = games[slot];
      g.rolloutMove = seats[playerOf(g)].rollout[slot]->choose(*g.pos);
    });
    for (Game& g : games) {
      if (g.number < 0) continue;
      const SeatPlayer& player = seats[playerOf(g)];
      game::Move move;
      if (g.tree) {
        const float temperature = g.pos->gamePly() < settings.openingTemperaturePlies ? 1.0f : 0.0f;
        move = g.tree->pickMove(temperature, rng);
      } else if (!player.rollout.empty()) {
        move = g.rolloutMove;
      } else {
        move = player.random->choose(*g.pos);
      }
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
