#include "training/selfplay_phase.h"

#include <algorithm>
#include <cstdio>

#include "nn/compute_threads.h"
#include "selfplay/selfplay_pool.h"

namespace poppy::training {

SelfplayPhaseOutcome playSelfplayPhase(const SelfplayPhaseInputs& in, const FinishedGame& onGame, RunLog& log) {
  nn::setComputeThreads(in.config.selfplayThreads);
  selfplay::SelfPlaySettings s = selfplaySettingsFor(in.config);
  s.modelId = in.modelId;
  s.seed = in.seed;
  selfplay::SelfPlayPool runner(in.variant, in.encoder, in.makeEvaluator, s, in.config.selfplayWorkers);
  int64_t plies = 0, decisive = 0, adjudicated = 0;
  int played = 0;
  const double start = nowSeconds();
  runner.play(
      in.games,
      [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
        plies += record.plies;
        ++played;
        decisive += record.result != "draw";
        adjudicated += !record.adjudicated.empty();
        onGame(std::move(samples), std::move(record));
      },
      [&](const selfplay::SelfPlayProgress& p) {
        const double rate = p.seconds > 0 ? p.gamesFinished * 3600.0 / p.seconds : 0;
        const double evals = p.search && p.seconds > 0 ? p.search->evaluations / p.seconds : 0;
        const double eta = p.gamesFinished ? p.seconds * (p.gamesWanted - p.gamesFinished) / p.gamesFinished : 0;
        char line[256];
        std::snprintf(line, sizeof line, "iter %d selfplay %d/%d games  %.0f games/h  %.0f evals/s  eta %.0fs",
                      in.iteration, p.gamesFinished, p.gamesWanted, rate, evals, eta);
        log.status(line);
      },
      in.stop);
  SelfplayPhaseOutcome out;
  out.played = played;
  if (played == 0) return out;
  const double seconds = nowSeconds() - start;
  // Rates mean something only for a whole phase: one cut short by a stop, or resumed with
  // games already played, ends with its tail or its head missing. Such phases are marked.
  const bool complete = !(in.stop && in.stop()) && in.wholePhase && played == in.games;
  char line[256];
  std::snprintf(line, sizeof line,
                "iter %d selfplay done: %d games in %.0fs (%.0f games/h), %.1f plies/game, %.0f%% decisive%s",
                in.iteration, played, seconds, played * 3600.0 / seconds, double(plies) / played,
                100.0 * decisive / played,
                in.config.plyCapAdjudication > 0
                    ? (", " + std::to_string(adjudicated) + " adjudicated at the ply cap").c_str()
                    : "");
  log.status(line, true);
  out.event = {{"event", "selfplay"},
               {"games", played},
               {"seconds", seconds},
               {"games_per_hour", played * 3600.0 / seconds},
               {"avg_plies", double(plies) / played},
               {"decisive", double(decisive) / played},
               {"adjudicated", double(adjudicated) / played},
               {"evals_per_second", runner.searchStats().evaluations / std::max(seconds, 1e-9)},
               {"cache_hits", runner.searchStats().cacheHits},
               {"complete", complete}};
  return out;
}

}  // namespace poppy::training
