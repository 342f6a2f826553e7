// `poppy match` for more than two players (yonin shogi): player A in one seat, player B in all
// the others, A's seat going round (selfplay/seat_match.h). Network, rollout and random players
// (no engine plays these games); records as for two players, and a summary with A's win rate and share of the points
// in place of an Elo difference.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "program/match_runner.h"
#include "common/atomic_file.h"
#include "common/progress_line.h"
#include "report/match_report.h"
#include "selfplay/seat_match.h"

namespace poppy::program {

namespace {

// Playouts of a network player, simulations of a rollout player, 0 for a random player.
int nodesPerMove(const selfplay::PlayerSpec& spec) {
  switch (spec.kind) {
    case selfplay::PlayerSpec::Kind::kNetwork: return spec.search.playouts;
    case selfplay::PlayerSpec::Kind::kRollout: return spec.simulations;
    default: return 0;
  }
}

}  // namespace

void runSeatMatchCommand(const MatchRunArgs& o, const game::VariantPtr& variant, const nn::Encoder& encoder) {
  const std::string players = variant->name + " has " + std::to_string(variant->numPlayers) + " players";
  if (o.resume) throw std::invalid_argument("--resume is for two-player matches (" + players + ")");
  if (!o.openings.empty()) throw std::invalid_argument("--openings is for two-player matches (" + players + ")");
  MatchPlayer a = makeMatchPlayer(o.a, "-a", o.players, variant);
  MatchPlayer b = makeMatchPlayer(o.b, "-b", o.players, variant);
  for (const auto& [p, flag] : {std::pair{&a, "-a"}, std::pair{&b, "-b"}})
    if (p->loaded.spec.kind == selfplay::PlayerSpec::Kind::kExternal)
      throw std::invalid_argument("-" + std::string(flag) + " " + p->loaded.spec.name + ": " + players +
                                  ", which no engine plays: its players are model:, uniform:, shipped:, rollout: and random");
  selfplay::MatchSettings ms;
  ms.games = o.games;
  ms.parallelGames = o.parallel;
  ms.plyCap = o.plyCap;
  ms.openingTemperaturePlies = o.openingPlies;
  ms.seed = o.seed;
  ms.idPrefix = recordIdPrefix("match");
  std::string records = o.records, summary = o.summary;
  const std::string stem = report::defaultMatchFileStem(o.a.player, o.b.player);
  if (records.empty()) records = stem + ".jsonl";
  if (summary.empty()) summary = stem + ".summary.json";
  if (records == "none") records.clear();
  if (summary == "none") summary.clear();
  if (!records.empty()) selfplay::appendGameRecords(records, {});  // unwritable: found now

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  auto summaryJson = [&](const selfplay::SeatMatchResult& r, bool complete) {
    const auto [lo, hi] = r.winRateInterval95();
    const double t = seconds();
    return nlohmann::json{
        {"variant", variant->name},        {"players", r.players},
        {"a", o.a.player},                 {"b", o.b.player},
        {"seating", "a in one seat, b in the others; a's seat is game number mod players"},
        {"games", r.games()},              {"games_wanted", o.games},
        {"wins_a", r.winsA},               {"wins_b", r.winsOthers},
        {"draws", r.draws},                {"draw_points_a", r.drawPointsA},
        {"share_a", r.share()},            {"equal_share", 1.0 / r.players},
        {"win_rate_a", r.winRate()},       {"win_rate_a_95", {lo, hi}},
        {"win_rate_b_per_seat", r.games() ? double(r.winsOthers) / r.games() / (r.players - 1) : 0.0},
        {"seconds", t},                    {"games_per_hour", t > 0 ? r.games() * 3600.0 / t : 0.0},
        {"complete", complete},
        {"settings", {{"a_nodes", nodesPerMove(a.loaded.spec)}, {"b_nodes", nodesPerMove(b.loaded.spec)},
                      {"parallel", o.parallel}, {"ply_cap", o.plyCap},
                      {"opening_plies", o.openingPlies}, {"gumbel_actions", o.players.search.gumbelConsidered}, {"seed", o.seed}, {"records", records}}}};
  };
  double lastSummary = 0;
  common::ProgressLine progressLine;
  std::fprintf(stderr, "%s in one seat, %s in the other %d: %d games, %d at once\n", o.a.player.c_str(),
               o.b.player.c_str(), variant->numPlayers - 1, o.games, std::min(o.parallel, o.games));
  const selfplay::SeatMatchResult r = selfplay::playSeatMatch(
      variant, encoder, a.loaded.spec, b.loaded.spec, ms, [&](const selfplay::SeatMatchResult& s, int wanted) {
        if (!records.empty()) selfplay::appendGameRecords(records, {s.records.back()});
        const double t = seconds();
        if (!summary.empty() && t - lastSummary >= 10) {
          common::writeFileAtomically(summary, summaryJson(s, false).dump(2) + "\n");
          lastSummary = t;
        }
        const double rate = t > 0 ? s.games() / t : 0;
        char line[256];
        std::snprintf(line, sizeof line, "%d/%d games: A won %d, B's seats %d, drawn %d; A's share %.3f (equal %.3f); %.0f games/h, %.0f s left",
                      s.games(), wanted, s.winsA, s.winsOthers, s.draws, s.share(), 1.0 / s.players, rate * 3600,
                      rate > 0 ? (wanted - s.games()) / rate : 0.0);
        progressLine.update(line, s.games() == wanted);
      });
  progressLine.finish();
  if (!summary.empty()) common::writeFileAtomically(summary, summaryJson(r, true).dump(2) + "\n");
  const auto [lo, hi] = r.winRateInterval95();
  // An equal player's win rate is a quarter of the decisive games: compared with each of B's
  // seats, not with 0.25; its share of the points (draws shared) is 0.25.
  const double perSeat = r.games() ? double(r.winsOthers) / r.games() / (r.players - 1) : 0.0;
  std::printf("%s in one seat vs %s in the other %d: %d games, A won %d (win rate %.3f, 95%%: %.3f to %.3f), B's "
              "seats won %d (%.3f each), drawn %d; A's share of the points %.3f (an equal player's: %.3f)\n",
              o.a.player.c_str(), o.b.player.c_str(), r.players - 1, r.games(), r.winsA, r.winRate(), lo, hi,
              r.winsOthers, perSeat, r.draws, r.share(), 1.0 / r.players);
  if (!records.empty()) std::printf("records: %s\n", records.c_str());
  if (!summary.empty()) std::printf("summary: %s\n", summary.c_str());
}

}  // namespace poppy::program
