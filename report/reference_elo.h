// Elo of a run's generations against fixed opponents: the summaries of matches (`poppy match`'s
// summary JSON, report/match_report.h) in RUN_DIR/reference/, which `poppy report --reference`
// plays and writes, or which anyone may put there. Unlike the gate Elo (each candidate against
// the previous best, summed) these have a fixed zero: the opponent.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "report/svg_chart.h"

namespace poppy::report {

struct ReferenceResult {
  int generation = -1;  // of player A, from its model file's name (gen-0012)
  std::string opponent;  // player B as the summary names it
  int games = 0, wins = 0, draws = 0, losses = 0;
  double elo = kMissing, eloLow = kMissing, eloHigh = kMissing;  // A's, with the 95% interval
  bool finished = false;  // false: the match was stopped (its figures so far)
  std::string file;
};

// The reference folder of a run.
std::string referenceDir(const std::string& runDir);

// Every *.summary.json of RUN_DIR/reference whose player A is a generation's model, sorted by
// generation then opponent. A file that cannot be read, or is not such a summary, is skipped with
// "FILE: what is wrong" in `problems`. No folder: nothing.
std::vector<ReferenceResult> loadReferenceResults(const std::string& runDir, std::vector<std::string>& problems);

// One bar per (generation, opponent), Elo with its 95% interval as a whisker.
BarChart referenceEloChart(const std::vector<ReferenceResult>& results);

// How far the run had come when a generation became the best model (gen-0000: the start).
struct GenerationProgress {
  double hours = 0;   // wall clock since the run began
  double games = 0;   // self-play games played by then
  double steps = 0;   // trainer steps of the model
};

enum class ProgressAxis { kHours, kGames, kSteps };

// The learning curve (issue 47): each opponent's line of Elo against hours, games or steps of
// training, with the 95% intervals as error bars. Generations with no progress entry are left
// out (a model not promoted by this run's gates).
LineChart referenceLearningCurve(const std::vector<ReferenceResult>& results,
                                 const std::map<int, GenerationProgress>& progress, ProgressAxis axis);

// One run's side of a comparison of learning curves (`poppy report RUN --compare OTHER`).
struct RunCurve {
  std::string label;  // names the run in the legend (its folder's name)
  std::vector<ReferenceResult> results;
  std::map<int, GenerationProgress> progress;
};

// The learning curves of several runs on one chart: a line per run and opponent, named
// "LABEL: opponent" (only "LABEL" when every run was matched against the same one opponent, which
// the y axis then names). The time axis reads minutes when every run is under 2 hours.
LineChart comparedLearningCurves(const std::vector<RunCurve>& runs, ProgressAxis axis);

}  // namespace poppy::report
