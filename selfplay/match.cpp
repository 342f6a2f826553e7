#include "selfplay/match.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <future>
#include <memory>
#include <random>
#include <stdexcept>

#include "common/parallel_for.h"
#include "game/variant_loader.h"
#include "mcts/eval_cache.h"
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

std::pair<double, double> MatchResult::scoreInterval95() const {
  const double n = games();
  if (n < 1) return {0, 1};
  const double s = score(), z = 1.96, z2 = z * z;
  const double center = (s + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(s * (1 - s) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(center - half, 0.0), std::min(center + half, 1.0)};
}

std::pair<double, double> MatchResult::eloInterval95() const {
  if (games() < 1) return {-1200, 1200};
  const auto [lo, hi] = scoreInterval95();
  return {eloFromScore(lo), eloFromScore(hi)};
}

double MatchResult::eloMargin95() const {
  const auto [lo, hi] = eloInterval95();
  return (hi - lo) / 2;
}

namespace {

using Clock = std::chrono::steady_clock;

// 2^16 positions a network player (about 35 MB on micro): what self-play's workers keep too.
constexpr int kMatchCacheBits = 16;

struct Side {
  const PlayerSpec* spec;
  // A network player's answers by position, for all its games (transpositions in a tree, and
  // the openings every game starts from): one call fewer each time a position comes again.
  std::unique_ptr<mcts::EvalCache> cache;
  std::unique_ptr<mcts::SearchDriver> driver;
  // One per game slot: the games' rollout searches run at once, on threads of their own.
  std::vector<std::unique_ptr<mcts::RolloutPlayer>> rollout;
  std::unique_ptr<mcts::RandomPlayer> random;
  std::vector<std::unique_ptr<MovePlayer>> external;  // one per game slot
};

struct Game {
  std::unique_ptr<game::Position> pos;
  std::unique_ptr<mcts::Tree> trees[2];  // per player (A, B), for network players
  GameRecord record;
  int index = 0;
  int firstFreePly = 0;  // game ply of the first move the players choose (after the opening)
  bool active = false;
  // This round's move of the player to move:
  game::Move bookMove;
  game::Move rolloutMove;
  std::future<MoveChoice> externalMove;
  // A timed match: both sides' clocks, what the mover was told, and when it was asked and answered.
  common::GameClock clock;
  ClockReading reading;
  int64_t askedMs = 0, answeredMs = 0;
  Adjudicator adjudicator;
};

int64_t steadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// Charges the external mover of g for its move (asked at g.askedMs, answered at g.answeredMs).
// Returns the failure detail when it answered more than graceMs after its time ran out ("": in time).
std::string chargeTheClock(Game& g, int64_t graceMs) {
  const int mover = g.pos->sideToMove();
  g.clock.start(mover, g.askedMs);
  const int64_t flagAt = g.clock.flagAtMs(g.askedMs);
  if (g.answeredMs > flagAt + graceMs) {
    g.clock.stop();
    return "lost on time: answered after " + std::to_string(g.answeredMs - g.askedMs) + " ms with " +
           std::to_string(flagAt - g.askedMs) + " ms on its clock (" + common::clockText(g.clock.settings()) + ")";
  }
  g.clock.moved(std::min(g.answeredMs, flagAt));  // a late answer within the grace is charged the time it had
  g.clock.stop();
  return "";
}

bool aIsSente(const Game& g) { return g.index % 2 == 0; }

// Which player (0 = A, 1 = B) is to move in game g.
int playerToMove(const Game& g) {
  const bool senteToMove = g.pos->sideToMove() == 0;
  return senteToMove == aIsSente(g) ? 0 : 1;
}

// Makes every slot's external player, in parallel threads (engines may take seconds to start).
std::vector<std::unique_ptr<MovePlayer>> makeExternalPlayers(const PlayerSpec& spec, int slots) {
  if (!spec.external) throw std::invalid_argument("external player '" + spec.name + "' has no factory");
  std::vector<std::future<std::unique_ptr<MovePlayer>>> pending;
  for (int i = 0; i < slots; ++i) pending.push_back(std::async(std::launch::async, spec.external, i));
  std::vector<std::unique_ptr<MovePlayer>> players;
  std::exception_ptr error;
  for (auto& f : pending) {
    try {
      players.push_back(f.get());
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return players;
}

// The rollout search of one move with a time limit: simulations in small steps until either
// limit is reached, then the most visited root move.
game::Move timedRolloutMove(mcts::RolloutPlayer& player, const game::Position& pos, int simulations, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  player.startSearch(pos);
  while (player.rootVisits() < simulations && Clock::now() < deadline)
    player.searchMore(std::min(16, simulations - player.rootVisits()));
  game::Move best = player.mostVisitedMove();
  if (best == game::Move::none()) {  // no simulation finished in time: any legal move
    game::MoveList moves;
    pos.generateLegal(moves);
    if (moves.size() > 0) best = moves[0];
  }
  return best;
}

}  // namespace

int gameNumberOf(const std::string& id, const std::string& idPrefix) {
  if (id.rfind(idPrefix, 0) != 0 || id.size() <= idPrefix.size() || id.size() - idPrefix.size() >= 9 ||
      id.find_first_not_of("0123456789", idPrefix.size()) != std::string::npos)
    return -1;
  return std::stoi(id.substr(idPrefix.size()));
}

std::vector<std::unique_ptr<mcts::RolloutPlayer>> rolloutPlayersPerSlot(int simulations, const MatchSettings& settings,
                                                                        int player, int slots) {
  std::vector<std::unique_ptr<mcts::RolloutPlayer>> out;
  for (int slot = 0; slot < slots; ++slot)
    out.push_back(std::make_unique<mcts::RolloutPlayer>(
        simulations, settings.seed * 31 + uint64_t(player) + uint64_t(slot) * 1000003, settings.plyCap));
  return out;
}

MatchResult resultOfRecords(const std::vector<GameRecord>& records, const std::string& idPrefix, std::set<int>& numbers) {
  MatchResult r;
  for (const GameRecord& rec : records) {
    const int n = gameNumberOf(rec.id, idPrefix);
    if (n < 0) throw std::invalid_argument("record '" + rec.id + "' is not game of the match '" + idPrefix + "N'");
    if (!numbers.insert(n).second) throw std::invalid_argument("game " + rec.id + " is recorded twice");
    const bool aSente = n % 2 == 0;
    const int aResult = rec.result == "draw" ? 0 : ((rec.result == "sente") == aSente ? 1 : -1);
    if (aResult == 0) ++r.draws, r.drawsAAsSente += aSente;
    else if (aResult > 0) ++r.winsA, r.winsAAsSente += aSente;
    else ++r.lossesA, r.lossesAAsSente += aSente;
    r.records.push_back(rec);
    r.aWasSente.push_back(aSente);
  }
  return r;
}

MatchResult playMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                      const PlayerSpec& b, const MatchSettings& settings, const MatchProgress& progress,
                      MatchResult resumed) {
  game::requireTwoPlayers(*variant, "a match");  // sides, colours and Elo are for two
  const PlayerSpec* specs[2] = {&a, &b};
  const bool timed = settings.clock.enabled();
  for (const PlayerSpec* s : specs)
    if (timed && s->kind != PlayerSpec::Kind::kExternal)
      throw std::invalid_argument("player '" + s->name + "' cannot play on a clock: only external players (usi:) can");
  const int slots = std::max(1, std::min(settings.parallelGames, settings.games));
  Side sides[2];
  for (int p = 0; p < 2; ++p) {
    sides[p].spec = specs[p];
    const PlayerSpec& s = *specs[p];
    switch (s.kind) {
      case PlayerSpec::Kind::kNetwork:
        if (!s.evaluator) throw std::invalid_argument("network player '" + s.name + "' has no model");
        sides[p].cache = std::make_unique<mcts::EvalCache>(kMatchCacheBits, 128, encoder.valueSize());
        sides[p].driver = std::make_unique<mcts::SearchDriver>(
            *s.evaluator, encoder, settings.parallelGames * s.search.leavesPerTree, sides[p].cache.get());
        break;
      case PlayerSpec::Kind::kRollout:
        sides[p].rollout = rolloutPlayersPerSlot(s.simulations, settings, p, slots);
        break;
      case PlayerSpec::Kind::kRandom:
        sides[p].random = std::make_unique<mcts::RandomPlayer>(settings.seed * 37 + p);
        break;
      case PlayerSpec::Kind::kExternal:
        sides[p].external = makeExternalPlayers(s, slots);
        break;
    }
  }
  std::mt19937 rng(uint32_t(settings.seed));
  MatchResult result = std::move(resumed);
  const game::Position variantStart(variant);
  std::vector<Game> games(slots);
  // Games started (or played before, in a resumed match) and the next game number to start.
  int started = result.games(), next = 0;
  auto startGame = [&](Game& g, int slot) {
    while (settings.alreadyPlayed.count(next)) ++next;
    g.index = next++;
    ++started;
    if (settings.openings.empty()) {
      g.pos = std::make_unique<game::Position>(variantStart);
    } else {
      const MatchOpening& o = settings.openings[size_t(g.index / 2) % settings.openings.size()];
      g.pos = std::make_unique<game::Position>(game::Position::fromSfen(variant, o.sfen));
    }
    g.record = GameRecord{};
    g.record.start = g.pos->sfen();
    if (!settings.openings.empty()) {
      for (const std::string& m : settings.openings[size_t(g.index / 2) % settings.openings.size()].moves) {
        g.pos->makeMove(g.pos->parseUsi(m));
        g.record.moves.push_back(m);
      }
    }
    g.firstFreePly = g.pos->gamePly();
    for (int p = 0; p < 2; ++p) {
      g.trees[p].reset();
      if (specs[p]->kind == PlayerSpec::Kind::kNetwork) {
        mcts::SearchParams params = specs[p]->search;
        // No Dirichlet noise in a match; a Gumbel root (--gumbel-actions) needs the flag, and its
        // sampled moves take the noise's place (mcts/search_params.h).
        params.rootNoise = params.gumbelConsidered > 0;
        params.plyCap = settings.plyCap;
        g.trees[p] = std::make_unique<mcts::Tree>(*g.pos, params, settings.seed * 1000003 + uint64_t(g.index) * 2 + p);
      }
      if (!sides[p].external.empty()) sides[p].external[size_t(slot)]->newGame(*g.pos);
    }
    g.clock = common::GameClock(settings.clock);
    g.adjudicator = Adjudicator(settings.adjudication);
    g.record.id = settings.idPrefix + std::to_string(g.index);
    g.record.variant = variant->name;
    g.record.model = (aIsSente(g) ? a.name : b.name) + " vs " + (aIsSente(g) ? b.name : a.name);
    g.active = true;
  };
  for (size_t slot = 0; slot < games.size(); ++slot)
    if (started < settings.games) startGame(games[slot], int(slot));

  // Ends game g: winner is a colour or -1 for a draw; tells external players and starts the
  // next game in the slot.
  int finished = result.games();
  auto endGame = [&](Game& g, int slot, game::Color winner) {
    const bool aSente = aIsSente(g);
    const int aResult = winner < 0 ? 0 : ((winner == 0) == aSente ? 1 : -1);
    if (aResult == 0) ++result.draws, result.drawsAAsSente += aSente;
    else if (aResult > 0) ++result.winsA, result.winsAAsSente += aSente;
    else ++result.lossesA, result.lossesAAsSente += aSente;
    for (int p = 0; p < 2; ++p)
      if (!sides[p].external.empty()) sides[p].external[size_t(slot)]->gameOver(p == 0 ? aResult : -aResult);
    result.records.push_back(std::move(g.record));
    result.aWasSente.push_back(aSente);
    ++finished;
    if (progress) progress(result, settings.games);
    if (started < settings.games) startGame(g, slot);
    else g.active = false;
  };

  std::vector<mcts::Tree*> batch;
  while (finished < settings.games) {
    // Book moves first, then external players start thinking in their own threads.
    for (size_t slot = 0; slot < games.size(); ++slot) {
      Game& g = games[slot];
      if (!g.active) continue;
      const int p = playerToMove(g);
      g.bookMove = specs[p]->book ? specs[p]->book(*g.pos, rng) : game::Move::none();
      if (g.bookMove == game::Move::none() && !sides[p].external.empty()) {
        MovePlayer* player = sides[p].external[slot].get();
        const ClockReading* reading = nullptr;
        if (timed) {
          const int64_t now = steadyMs();
          g.reading = ClockReading{g.clock.mainLeftMs(0, now), g.clock.mainLeftMs(1, now), settings.clock.byoyomiMs,
                                   settings.clock.incrementMs};
          reading = &g.reading;
        }
        g.externalMove = std::async(std::launch::async, [player, &g, reading] {
          g.askedMs = steadyMs();
          MoveChoice choice = player->choose(GameSoFar{*g.pos, g.record.start, g.record.moves, reading});
          g.answeredMs = steadyMs();
          return choice;
        });
      }
    }
    // Network players: one batched search over every game where it is their turn.
    for (int p = 0; p < 2; ++p) {
      if (!sides[p].driver) continue;
      batch.clear();
      for (Game& g : games)
        if (g.active && playerToMove(g) == p && g.bookMove == game::Move::none()) batch.push_back(g.trees[p].get());
      if (batch.empty()) continue;
      const PlayerSpec& s = *specs[p];
      if (s.moveSeconds <= 0) {
        sides[p].driver->search(batch, s.search.playouts);
      } else {  // one deadline for the round (see the header)
        const auto deadline = Clock::now() + std::chrono::duration<double>(s.moveSeconds);
        while (sides[p].driver->round(batch, s.search.playouts) && Clock::now() < deadline) {
        }
      }
    }
    // Rollout players: each game's search is long and serial, so the games where it is their
    // turn are searched at once, one thread each (up to the hardware's threads).
    std::vector<size_t> rolloutSlots;
    for (size_t slot = 0; slot < games.size(); ++slot)
      if (games[slot].active && !sides[playerToMove(games[slot])].rollout.empty() &&
          games[slot].bookMove == game::Move::none())
        rolloutSlots.push_back(slot);
    common::parallelFor(int(rolloutSlots.size()), common::hardwareThreads(), [&](int i) {
      const size_t slot = rolloutSlots[size_t(i)];
      Game& g = games[slot];
      const PlayerSpec& s = *specs[playerToMove(g)];
      mcts::RolloutPlayer& player = *sides[playerToMove(g)].rollout[slot];
      g.rolloutMove = s.moveSeconds > 0 ? timedRolloutMove(player, *g.pos, s.simulations, s.moveSeconds)
                                        : player.choose(*g.pos);
    });
    for (size_t slot = 0; slot < games.size(); ++slot) {
      Game& g = games[slot];
      if (!g.active) continue;
      const int p = playerToMove(g);
      game::Move move = g.bookMove;
      std::optional<int> scoreCp;  // the mover's own score, for adjudication
      if (move != game::Move::none()) {
      } else if (sides[p].driver) {
        // Sampled plies count from the end of the opening: an opening played more than twice
        // then still gives different games.
        const float t = g.pos->gamePly() - g.firstFreePly < settings.openingTemperaturePlies ? 1.0f : 0.0f;
        move = g.trees[p]->pickMove(t, rng);
        scoreCp = centipawnsOfValue(g.trees[p]->rootValue());
      } else if (!sides[p].rollout.empty()) {
        move = g.rolloutMove;
      } else if (sides[p].random) {
        move = sides[p].random->choose(*g.pos);
      } else {
        MoveChoice choice = g.externalMove.get();
        if (timed && choice.failure.empty()) {
          choice.detail = chargeTheClock(g, settings.flagGraceMs);
          if (!choice.detail.empty()) choice.failure = kLostOnTime;
        }
        if (choice.failure.empty()) {
          try {
            move = g.pos->parseUsi(choice.usi);
          } catch (const game::MoveError& e) {
            choice.failure = "illegal_move";
            choice.detail = "played '" + (choice.engineText.empty() ? choice.usi : choice.engineText) + "'" +
                            (choice.engineText.empty() ? "" : " ('" + choice.usi + "' in Poppy's notation)") + ": " +
                            e.what();
          }
        }
        if (choice.failure == kRuleDisagreement) {  // neither side's fault: drawn, and named so
          const game::Color mover = g.pos->sideToMove();
          g.record.result = "draw";
          g.record.reason = choice.failure;
          g.record.detail = std::string(mover == 0 ? "sente" : "gote") + " (" + specs[p]->name + ") " + choice.detail;
          g.record.plies = int(g.record.moves.size());
          endGame(g, int(slot), -1);
          continue;
        }
        if (!choice.failure.empty()) {  // a forfeit: the player to move loses
          const game::Color mover = g.pos->sideToMove();
          g.record.result = mover == 0 ? "gote" : "sente";
          g.record.reason = choice.failure;
          g.record.detail = std::string(mover == 0 ? "sente" : "gote") + " (" + specs[p]->name + ") " + choice.detail;
          g.record.plies = int(g.record.moves.size());
          endGame(g, int(slot), game::Color(1 - mover));
          continue;
        }
        scoreCp = choice.scoreCp;
      }
      const game::Color mover = g.pos->sideToMove();
      g.record.moves.push_back(g.pos->moveToUsi(move));
      g.pos->makeMove(move);
      for (auto& tree : g.trees)
        if (tree) tree->advance(move);
      const game::Outcome outcome = g.pos->outcome(settings.plyCap);
      if (outcome.over()) {
        finishRecord(g.record, outcome, 2);
        endGame(g, int(slot), outcome.winner);
      } else if (settings.adjudication.enabled()) {
        if (const auto verdict = g.adjudicator.afterMove(mover, scoreCp, g.pos->gamePly())) {
          g.record.result = verdict->winner < 0 ? "draw" : verdict->winner == 0 ? "sente" : "gote";
          g.record.reason = kAdjudication;
          g.record.detail = verdict->detail;
          g.record.plies = int(g.record.moves.size());
          endGame(g, int(slot), verdict->winner < 0 ? game::Color(-1) : game::Color(verdict->winner));
        }
      }
    }
  }
  return result;
}

}  // namespace poppy::selfplay
