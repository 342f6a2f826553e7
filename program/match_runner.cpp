#include "program/match_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <utility>

#include "common/game_clock.h"
#include "common/progress_line.h"
#include "common/stop_signal.h"
#include "game/position.h"
#include "game/variant_loader.h"
#include "nn/network_backend.h"
#include "play/engines/xboard_client.h"
#include "play/openings/match_openings.h"
#include "report/match_report.h"
#include "report/match_statistics.h"

namespace poppy::program {
namespace {
// Thrown from the progress callback once Ctrl-C or SIGTERM asked the match to stop (after the
// summary has been written): it leaves playMatch, whose players are closed on the way out.
struct MatchInterrupted {
  int games;
};
// Thrown from the progress callback when the SPRT has decided: the games still being played are
// left unfinished (and unrecorded), as fastchess does.
struct SprtDecided {};

std::optional<report::SprtSettings> sprtSettingsOf(const std::vector<double>& values, int minPairs) {
  if (values.empty()) return std::nullopt;
  if (values.size() != 2 && values.size() != 4)
    throw std::invalid_argument("--sprt: give ELO0 ELO1, or ELO0 ELO1 ALPHA BETA (" + std::to_string(values.size()) +
                                " numbers given)");
  report::SprtSettings s;
  s.elo0 = values[0];
  s.elo1 = values[1];
  if (values.size() == 4) {
    s.alpha = values[2];
    s.beta = values[3];
  }
  s.minPairs = minPairs;
  try {
    report::checkSprtSettings(s);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--sprt: ") + e.what());
  }
  return s;
}
}  // namespace

void runMatchCommand(MatchRunArgs o, bool gamesGiven) {
  nn::setNetworkThreads(o.threads);
  const auto variant = game::loadVariant(o.variant);
  const nn::Encoder encoder(variant);
  if (variant->numPlayers > 2) return runSeatMatchCommand(o, variant, encoder);
  const std::optional<report::SprtSettings> sprt = sprtSettingsOf(o.sprt, o.sprtMinPairs);
  selfplay::MatchSettings ms;
  if (!o.openings.empty()) {
    ms.openings = play::loadOpenings(o.openings, variant, o.plyCap);
    if (!gamesGiven) o.games = int(2 * ms.openings.size());
  }
  // XBoard engines start from the variant's start position (play/engines/xboard_client.h).
  for (const SideArgs* side : {&o.a, &o.b}) {
    if (side->player.rfind("xboard:", 0) != 0) continue;
    const std::string start = game::Position(variant).sfen();
    for (const auto& opening : ms.openings)
      if (game::Position::fromSfen(variant, opening.sfen).sfen() != start)
        throw std::invalid_argument("--openings " + o.openings + ": the xboard: player starts from the start position only; '" +
                                    opening.sfen + "' is another (write openings as 'startpos moves ...')");
  }
  try {
    ms.clock = common::parseClock(o.clock);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--tc: ") + e.what());
  }
  if (ms.clock.enabled()) {
    // Poppy plays on a clock through its own USI engine, whose time manager reads it.
    for (const auto& [side, suffix] : {std::pair{&o.a, "-a"}, std::pair{&o.b, "-b"}}) {
      const bool xboard = side->player.rfind("xboard:", 0) == 0;
      if (side->player.rfind("usi:", 0) != 0 && !xboard)
        throw std::invalid_argument("--tc: player '" + side->player + "' cannot play on a clock; only usi: and xboard: "
                                    "players can (Poppy as usi:\"poppy usi --model MODEL\")");
      if (xboard) {
        const std::string why = play::xboardClockRefusal(ms.clock);
        if (!why.empty()) throw std::invalid_argument("--tc " + o.clock + " for player '" + side->player + "': " + why);
      }
      if (side->movetimeMs > 0)
        throw std::invalid_argument(std::string("--tc and --movetime") + suffix + " are two time limits: give one");
    }
    ms.flagGraceMs = o.players.graceMs;
  }
  if (!o.resign.empty()) selfplay::parseResignRule(o.resign, ms.adjudication);
  if (!o.draw.empty()) selfplay::parseDrawRule(o.draw, ms.adjudication);
  if (o.resignTwoSided && o.resign.empty()) throw std::invalid_argument("--resign-two-sided needs --resign MOVES:CP");
  ms.adjudication.resignTwoSided = o.resignTwoSided;
  // An SPRT match plays until it decides; the openings go round as often as needed.
  if (sprt && !gamesGiven) o.games = kSprtDefaultGames;
  const std::string stem = report::defaultMatchFileStem(o.a.player, o.b.player);
  if (o.records.empty()) o.records = stem + ".jsonl";
  if (o.summary.empty()) o.summary = stem + ".summary.json";
  if (o.records == "none") o.records.clear();
  if (o.summary == "none") o.summary.clear();

  // An unwritable records file is found now, not after the first game.
  if (o.resume && o.records.empty()) throw std::invalid_argument("--resume needs the match's --records file");
  if (!o.records.empty()) selfplay::appendGameRecords(o.records, {});
  MatchPlayer a = makeMatchPlayer(o.a, "-a", o.players, variant);
  MatchPlayer b = makeMatchPlayer(o.b, "-b", o.players, variant);
  selfplay::MatchResult resumed;
  std::string idPrefix = recordIdPrefix("match");
  if (o.resume) {
    // The games already in the records file are kept and not played again.
    const std::vector<selfplay::GameRecord> done = selfplay::readGameRecords(o.records);
    if (!done.empty()) {
      const std::string& first = done.front().id;
      idPrefix = first.substr(0, first.find_last_not_of("0123456789") + 1);
      const std::string pair = a.loaded.spec.name + " vs " + b.loaded.spec.name;
      const std::string swapped = b.loaded.spec.name + " vs " + a.loaded.spec.name;
      for (const selfplay::GameRecord& r : done)
        if (r.variant != variant->name || (r.model != pair && r.model != swapped))
          throw std::invalid_argument("--resume: game " + r.id + " of " + o.records + " is " + r.variant + ", " + r.model +
                                      ", not this match (" + variant->name + ", " + pair + ")");
      resumed = selfplay::resultOfRecords(done, idPrefix, ms.alreadyPlayed);
      std::fprintf(stderr, "resuming: %d of %d games already played (%s)\n", resumed.games(), o.games, o.records.c_str());
    }
  }
  ms.games = o.games;
  ms.parallelGames = o.parallel;
  ms.plyCap = o.plyCap;
  ms.openingTemperaturePlies = o.openingPlies;
  ms.seed = o.seed;
  ms.idPrefix = idPrefix;

  report::MatchInfo info;
  info.variant = variant->name;
  info.a = {o.a.player, o.a.nodes, o.a.movetimeMs, o.a.book};
  info.b = {o.b.player, o.b.nodes, o.b.movetimeMs, o.b.book};
  info.gamesWanted = o.games;
  info.parallel = o.parallel;
  info.plyCap = o.plyCap;
  info.seed = o.seed;
  info.tactics = o.players.search.solver;
  info.leafMatePlies = o.players.search.leafMatePlies;
  info.rootMatePlies = o.players.search.rootMatePlies;
  info.openingPlies = o.openingPlies;
  info.gumbelActions = o.players.search.gumbelConsidered;
  info.openings = o.openings;
  info.openingsCount = int(ms.openings.size());
  info.records = o.records;
  info.resumedGames = resumed.games();
  info.idPrefix = idPrefix;
  info.sprt = sprt;
  info.clock = ms.clock.enabled() ? common::clockText(ms.clock) : "";
  if (!o.resign.empty()) info.adjudication = "resign " + o.resign + (o.resignTwoSided ? " two-sided" : "");
  if (!o.draw.empty()) info.adjudication += (info.adjudication.empty() ? "draw " : ", draw ") + o.draw;

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  double lastSummary = 0;
  common::ProgressLine progressLine;
  std::fprintf(stderr, "%s vs %s: %d games, %d at once\n", o.a.player.c_str(), o.b.player.c_str(), o.games,
               std::min(o.parallel, o.games));
  // The first Ctrl-C or SIGTERM stops the match once the next game ends, its record and the
  // summary written (a second one ends the process at once).
  const common::StopOnSignal stopOnSignal;
  selfplay::MatchResult r;
  try {
    r = selfplay::playMatch(variant, encoder, a.loaded.spec, b.loaded.spec, ms,
                            [&](const selfplay::MatchResult& s, int wanted) {
      // Each game is saved as soon as it ends, so an interrupted match keeps its games.
      if (!o.records.empty()) selfplay::appendGameRecords(o.records, {s.records.back()});
      const double t = seconds();
      const bool stopping = common::StopOnSignal::requested() && s.games() < wanted;
      if (!o.summary.empty() && (t - lastSummary >= 10 || stopping)) {
        report::writeMatchSummary(o.summary, info, s, t, false);
        lastSummary = t;
      }
      std::string line = report::progressLine(s, wanted, t, info.resumedGames, ms.parallelGames);
      bool decided = false;
      if (sprt) {
        const report::SprtStatus st = report::sprtStatus(report::pentanomialOf(s, idPrefix), *sprt);
        line += "  " + report::sprtProgressText(st);
        decided = st.verdict != report::SprtVerdict::kContinue;
      }
      progressLine.update(line, s.games() == wanted || decided);
      if (decided) {
        r = s;
        throw SprtDecided{};
      }
      if (stopping) throw MatchInterrupted{s.games()};
    }, std::move(resumed));
  } catch (const SprtDecided&) {
    // r holds the games up to the deciding one; the summary below says why the match ended.
  } catch (const MatchInterrupted& stopped) {
    progressLine.finish();
    std::printf("interrupted after %d of %d games%s%s; run the same command with --resume to play the rest\n",
                stopped.games, o.games, o.records.empty() ? "" : ", records in ", o.records.c_str());
    if (!o.summary.empty()) std::printf("summary (unfinished): %s\n", o.summary.c_str());
    return;
  }
  progressLine.finish();
  if (!o.summary.empty()) report::writeMatchSummary(o.summary, info, r, seconds(), true);
  std::printf("%s\n", report::resultLine(r, o.a.player, o.b.player).c_str());
  std::printf("%s\n", report::pairsLine(r, idPrefix).c_str());
  if (sprt) std::printf("%s\n", report::sprtLine(report::sprtStatus(report::pentanomialOf(r, idPrefix), *sprt), *sprt, r.games()).c_str());
  const int forfeits = report::forfeitCount(r);
  if (forfeits > 0) std::printf("%d games ended by a forfeit (resign, illegal move, timeout, loss on time or crash): see the records\n", forfeits);
  const std::map<std::string, int> reasons = report::endReasons(r);
  if (reasons.count(selfplay::kAdjudication))
    std::printf("%d games adjudicated (--resign, --draw): see the records\n", reasons.at(selfplay::kAdjudication));
  if (reasons.count(selfplay::kRuleDisagreement))
    std::printf("%d games stopped on a rule the two programs disagree about, scored as draws: see the records' "
                "reason rule_disagreement\n", reasons.at(selfplay::kRuleDisagreement));
  if (!o.records.empty()) std::printf("records: %s\n", o.records.c_str());
  if (!o.summary.empty()) std::printf("summary: %s\n", o.summary.c_str());
}

}  // namespace poppy::program
