#include "training/gate.h"

#include <cstdio>

#include "report/match_report.h"
#include "report/match_statistics.h"
#include "selfplay/match.h"
#include "selfplay/seat_match.h"

namespace poppy::training {
namespace {

nlohmann::json twoPlayerEvent(const selfplay::MatchResult& r, bool promoted, const std::string& bestName,
                              double threshold) {
  return {{"event", "gate"},     {"games", r.games()},          {"wins", r.winsA},
          {"draws", r.draws},    {"losses", r.lossesA},         {"score", r.score()},
          {"elo_diff", r.elo()}, {"elo_margin", r.eloMargin95()}, {"promoted", promoted},
          {"opponent", bestName}, {"threshold", threshold}};
}

// Thrown from the progress callback when the gate's SPRT has decided; the games still in play
// are dropped.
struct SprtDecided {};

GateVerdict gateTwoPlayers(const GateInputs& in, const selfplay::PlayerSpec& a, const selfplay::PlayerSpec& b,
                           const selfplay::MatchSettings& ms, RunLog& log) {
  const double start = nowSeconds();
  const TrainRunConfig& c = in.config;
  const report::SprtSettings sprt{c.gateSprtElo0, c.gateSprtElo1, c.gateSprtAlpha, c.gateSprtBeta, c.gateSprtMinPairs};
  auto sprtOf = [&](const selfplay::MatchResult& s) {
    return report::sprtStatus(report::pentanomialOf(s, ms.idPrefix), sprt);
  };
  selfplay::MatchResult r;
  try {
    r = selfplay::playMatch(in.variant, in.encoder, a, b, ms, [&](const selfplay::MatchResult& s, int wanted) {
      char line[200];
      int n = std::snprintf(line, sizeof line, "iter %d gate %d/%d: candidate +%d =%d -%d", in.iteration, s.games(),
                            wanted, s.winsA, s.draws, s.lossesA);
      if (!c.gateSprt) return log.status(line);
      const report::SprtStatus st = sprtOf(s);
      std::snprintf(line + n, sizeof line - size_t(n), "  %s", report::sprtProgressText(st).c_str());
      log.status(line);
      if (st.verdict != report::SprtVerdict::kContinue) {
        r = s;
        throw SprtDecided{};
      }
    });
  } catch (const SprtDecided&) {
    // r holds the games up to the deciding one.
  }
  // With the SPRT: its verdict, or gate.threshold where it ran out of games undecided.
  const report::SprtStatus st = c.gateSprt ? sprtOf(r) : report::SprtStatus{};
  const bool decided = c.gateSprt && st.verdict != report::SprtVerdict::kContinue;
  const bool promote = decided ? st.verdict == report::SprtVerdict::kAcceptH1 : r.score() >= c.gateThreshold;
  char line[320];
  int n = std::snprintf(line, sizeof line, "iter %d gate: candidate +%d =%d -%d vs %s, score %.3f, Elo %+.0f +- %.0f",
                        in.iteration, r.winsA, r.draws, r.lossesA, in.bestName.c_str(), r.score(), r.elo(),
                        r.eloMargin95());
  if (c.gateSprt)
    n += std::snprintf(line + n, sizeof line - size_t(n), ", SPRT [%g, %g] LLR %.2f (%.2f, %.2f): %s", sprt.elo0,
                       sprt.elo1, st.llr, st.lower, st.upper,
                       decided ? report::sprtVerdictText(st.verdict).c_str() : "undecided: by the threshold");
  std::snprintf(line + n, sizeof line - size_t(n), ": %s (%.0fs)", promote ? "promoted" : "kept", nowSeconds() - start);
  log.status(line, true);
  nlohmann::json event = twoPlayerEvent(r, promote, in.bestName, c.gateThreshold);
  if (c.gateSprt)
    event["sprt"] = {{"elo0", sprt.elo0}, {"elo1", sprt.elo1}, {"alpha", sprt.alpha}, {"beta", sprt.beta},
                     {"min_pairs", c.gateSprtMinPairs},
                     {"llr", st.llr},     {"lower", st.lower}, {"upper", st.upper},
                     {"verdict", decided ? report::sprtVerdictText(st.verdict) : "undecided"}};
  return {promote, r.elo(), event};
}

GateVerdict gateSeats(const GateInputs& in, const selfplay::PlayerSpec& a, const selfplay::PlayerSpec& b,
                      const selfplay::MatchSettings& ms, RunLog& log) {
  const double start = nowSeconds();
  const selfplay::SeatMatchResult r =
      selfplay::playSeatMatch(in.variant, in.encoder, a, b, ms, [&](const selfplay::SeatMatchResult& s, int wanted) {
        char line[160];
        std::snprintf(line, sizeof line, "iter %d gate %d/%d: candidate won %d, the best's seats %d, drawn %d",
                      in.iteration, s.games(), wanted, s.winsA, s.winsOthers, s.draws);
        log.status(line);
      });
  const bool promote = r.share() >= in.config.gateThreshold;
  const auto [lo, hi] = r.winRateInterval95();
  char line[256];
  std::snprintf(line, sizeof line,
                "iter %d gate: candidate won %d of %d in one seat of %d (win rate %.3f, 95%%: %.3f to %.3f), "
                "share %.3f against %.3f for an equal player: %s (%.0fs)",
                in.iteration, r.winsA, r.games(), r.players, r.winRate(), lo, hi, r.share(), 1.0 / r.players,
                promote ? "promoted" : "kept", nowSeconds() - start);
  log.status(line, true);
  const nlohmann::json event = {
      {"event", "gate"},         {"games", r.games()}, {"wins", r.winsA},     {"draws", r.draws},
      {"losses", r.winsOthers},  {"score", r.share()}, {"share", r.share()},  {"players", r.players},
      {"win_rate", r.winRate()}, {"win_rate_low", lo}, {"win_rate_high", hi}, {"promoted", promote},
      {"opponent", in.bestName}, {"threshold", in.config.gateThreshold}};
  return {promote, 0, event};  // Elo is for two players: the share says how a candidate did
}

}  // namespace

GateVerdict playGate(const GateInputs& in, RunLog& log) {
  selfplay::PlayerSpec a, b;
  a.kind = b.kind = selfplay::PlayerSpec::Kind::kNetwork;
  a.name = "candidate";
  b.name = in.bestName;
  a.evaluator = &in.candidate;
  b.evaluator = &in.best;
  for (selfplay::PlayerSpec* p : {&a, &b}) p->search = in.config.gateSearch.applyTo(p->search);
  selfplay::MatchSettings ms;
  ms.games = in.config.gateGames;
  ms.parallelGames = in.config.gateParallelGames;
  ms.plyCap = in.config.plyCap;
  ms.seed = in.config.seed * 13 + uint64_t(in.iteration);
  return in.variant->numPlayers > 2 ? gateSeats(in, a, b, ms, log) : gateTwoPlayers(in, a, b, ms, log);
}

GateVerdict promoteUngated(const game::Variant& variant, const std::string& bestName, double threshold) {
  if (variant.numPlayers > 2)
    return {true, 0,
            {{"event", "gate"}, {"games", 0}, {"promoted", true}, {"players", variant.numPlayers},
             {"opponent", bestName}, {"threshold", threshold}}};
  return {true, 0, twoPlayerEvent(selfplay::MatchResult{}, true, bestName, threshold)};
}

}  // namespace poppy::training
