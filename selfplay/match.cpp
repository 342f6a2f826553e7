#include "selfplay/match.h"

#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

#include "mcts/random_player.h"
#include "mcts/rollout_player.h"
#include "mcts/search.h"
#include "selfplay/selfplay_runner.h"

namespace poppy::selfplay {

double eloFromScore(double score) {
  score = std::min(std::max(score, 1e-3), 1 - 1e-3);
  return -400.0 * std::log10(1.0 / score - 1.0);
}

double MatchResult::score() const { return games() ? (winsA + 0.5 * draws) / games() : 0.5; }

double MatchResult::elo() const { return eloFromScore(score()); }

std::pair<double, double> MatchResult::eloInterval95() const {
  const double n = games();
  if (n < 1) return {-1200, 1200};
  const double s = score(), z = 1.96, z2 = z * z;
  const double center = (s + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(s * (1 - s) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {eloFromScore(std::max(center - half, 0.0)), eloFromScore(std::min(center + half, 1.0))};
}

double MatchResult::eloMargin95() const {
  const auto [lo, hi] = eloInterval95();
  return (hi - lo) / 2;
}

namespace {

struct Side {
  const PlayerSpec* spec;
  std::unique_ptr<mcts::SearchDriver> driver;
  std::unique_ptr<mcts::RolloutPlayer> rollout;
  std::unique_ptr<mcts::RandomPlayer> random;
};

struct Game {
  std::unique_ptr<game::Position> pos;
  std::unique_ptr<mcts::Tree> trees[2];  // per player (A, B), for network players
  GameRecord record;
  int index = 0;
  bool active = false;
};

}  // namespace

MatchResult playMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                      const PlayerSpec& b, const MatchSettings& settings, const MatchProgress& progress) {
  const PlayerSpec* specs[2] = {&a, &b};
  Side sides[2];
  for (int p = 0; p < 2; ++p) {
    sides[p].spec = specs[p];
    const PlayerSpec& s = *specs[p];
    switch (s.kind) {
      case PlayerSpec::Kind::kNetwork:
        if (!s.evaluator) throw std::invalid_argument("network player '" + s.name + "' has no model");
        sides[p].driver = std::make_unique<mcts::SearchDriver>(*s.evaluator, encoder,
                                                               settings.parallelGames * s.search.leavesPerTree);
        break;
      case PlayerSpec::Kind::kRollout:
        sides[p].rollout = std::make_unique<mcts::RolloutPlayer>(s.simulations, settings.seed * 31 + p, settings.plyCap);
        break;
      case PlayerSpec::Kind::kRandom:
        sides[p].random = std::make_unique<mcts::RandomPlayer>(settings.seed * 37 + p);
        break;
    }
  }
  std::mt19937 rng(uint32_t(settings.seed));
  MatchResult result;
  const game::Position startPos(variant);
  std::vector<Game> games(std::min(settings.parallelGames, settings.games));
  int started = 0;
  auto startGame = [&](Game& g) {
    g.index = started++;
    g.pos = std::make_unique<game::Position>(startPos);
    for (int p = 0; p < 2; ++p) {
      g.trees[p].reset();
      if (specs[p]->kind == PlayerSpec::Kind::kNetwork) {
        mcts::SearchParams params = specs[p]->search;
        params.rootNoise = false;
        params.plyCap = settings.plyCap;
        g.trees[p] = std::make_unique<mcts::Tree>(startPos, params, settings.seed * 1000003 + uint64_t(g.index) * 2 + p);
      }
    }
    g.record = GameRecord{};
    g.record.id = "match-" + std::to_string(g.index);
    g.record.variant = variant->name;
    g.record.start = startPos.sfen();
    const bool aIsSente = g.index % 2 == 0;
    g.record.model = (aIsSente ? a.name : b.name) + " vs " + (aIsSente ? b.name : a.name);
    g.active = true;
  };
  for (Game& g : games) startGame(g);

  // Which player (0 = A, 1 = B) is to move in game g.
  auto playerToMove = [](const Game& g) {
    const bool aIsSente = g.index % 2 == 0;
    const bool senteToMove = g.pos->sideToMove() == 0;
    return senteToMove == aIsSente ? 0 : 1;
  };

  std::vector<mcts::Tree*> batch;
  int finished = 0;
  while (finished < settings.games) {
    // Network players: one batched search over every game where it is their turn.
    for (int p = 0; p < 2; ++p) {
      if (!sides[p].driver) continue;
      batch.clear();
      for (Game& g : games)
        if (g.active && playerToMove(g) == p) batch.push_back(g.trees[p].get());
      if (!batch.empty()) sides[p].driver->search(batch, specs[p]->search.playouts);
    }
    for (Game& g : games) {
      if (!g.active) continue;
      const int p = playerToMove(g);
      game::Move move;
      if (sides[p].driver) {
        const float t = g.pos->gamePly() < settings.openingTemperaturePlies ? 1.0f : 0.0f;
        move = g.trees[p]->pickMove(t, rng);
      } else if (sides[p].rollout) {
        move = sides[p].rollout->choose(*g.pos);
      } else {
        move = sides[p].random->choose(*g.pos);
      }
      g.record.moves.push_back(g.pos->moveToUsi(move));
      g.pos->makeMove(move);
      for (auto& tree : g.trees)
        if (tree) tree->advance(move);
      const game::Outcome outcome = g.pos->outcome(settings.plyCap);
      if (!outcome.over()) continue;
      const bool aIsSente = g.index % 2 == 0;
      if (outcome.winner < 0) ++result.draws;
      else if ((outcome.winner == 0) == aIsSente) ++result.winsA;
      else ++result.lossesA;
      finishRecord(g.record, outcome);
      result.records.push_back(std::move(g.record));
      ++finished;
      if (progress) progress(result, settings.games);
      if (started < settings.games) startGame(g);
      else g.active = false;
    }
  }
  return result;
}

}  // namespace poppy::selfplay
