#include "report/reference_elo.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "common/generation_name.h"
#include "report/match_report.h"

namespace poppy::report {
namespace {

namespace fs = std::filesystem;

// The generation in a model player's description: "model:runs/x/models/gen-0012.model:128" -> 12.
int generationOf(const std::string& player) {
  if (player.rfind("model:", 0) != 0) return -1;
  const size_t at = player.rfind("gen-");
  if (at == std::string::npos) return -1;
  size_t end = at + 4;
  while (end < player.size() && std::isdigit(static_cast<unsigned char>(player[end]))) ++end;
  return common::generationNumber(player.substr(at, end - at));
}

}  // namespace

std::string referenceDir(const std::string& runDir) { return (fs::path(runDir) / "reference").string(); }

std::vector<ReferenceResult> loadReferenceResults(const std::string& runDir, std::vector<std::string>& problems) {
  std::vector<ReferenceResult> out;
  const fs::path dir = referenceDir(runDir);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 13 && name.compare(name.size() - 13, 13, ".summary.json") == 0) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    try {
      const MatchSummaryTotals t = readMatchSummary(file.string());
      ReferenceResult r;
      r.generation = generationOf(t.a);
      if (r.generation < 0) throw std::runtime_error("player A is not a generation's model (models/gen-NNNN.model)");
      r.opponent = t.b;
      r.games = t.games;
      r.wins = t.wins;
      r.draws = t.draws;
      r.losses = t.losses;
      r.elo = t.elo;
      r.eloLow = t.eloLow;
      r.eloHigh = t.eloHigh;
      r.finished = t.finished;
      r.file = file.string();
      if (r.games > 0) out.push_back(r);
    } catch (const std::exception& e) {
      problems.push_back(file.string() + ": " + e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const ReferenceResult& a, const ReferenceResult& b) {
    return a.generation != b.generation ? a.generation < b.generation : a.opponent < b.opponent;
  });
  return out;
}

BarChart referenceEloChart(const std::vector<ReferenceResult>& results) {
  BarChart c;
  c.title = "Elo against fixed opponents";
  c.xLabel = "generation";
  c.yLabel = "Elo against the opponent (95% interval)";
  std::vector<int> generations;
  std::vector<std::string> opponents;
  for (const ReferenceResult& r : results) {
    if (std::find(generations.begin(), generations.end(), r.generation) == generations.end()) generations.push_back(r.generation);
    if (std::find(opponents.begin(), opponents.end(), r.opponent) == opponents.end()) opponents.push_back(r.opponent);
  }
  std::sort(generations.begin(), generations.end());
  for (int g : generations) c.categories.push_back(common::generationName(g));
  for (const std::string& o : opponents) {
    BarSeries s;
    s.name = o;
    s.values.assign(generations.size(), kMissing);
    s.low.assign(generations.size(), kMissing);
    s.high.assign(generations.size(), kMissing);
    for (const ReferenceResult& r : results) {
      if (r.opponent != o) continue;
      const size_t i = size_t(std::find(generations.begin(), generations.end(), r.generation) - generations.begin());
      s.values[i] = r.elo;
      s.low[i] = r.eloLow;
      s.high[i] = r.eloHigh;
    }
    c.series.push_back(s);
  }
  c.references.push_back({0, "even with the opponent"});
  return c;
}

namespace {

const char* axisTitle(ProgressAxis axis) {
  switch (axis) {
    case ProgressAxis::kHours: return "Learning curve: Elo against fixed opponents by training time";
    case ProgressAxis::kGames: return "Learning curve: Elo against fixed opponents by self-play games";
    case ProgressAxis::kSteps: return "Learning curve: Elo against fixed opponents by training steps";
  }
  return "";
}

std::string axisLabel(ProgressAxis axis, bool minutes) {
  switch (axis) {
    case ProgressAxis::kHours:
      return std::string("time since the run began when the model was promoted (") + (minutes ? "minutes" : "hours") +
             ", wall clock)";
    case ProgressAxis::kGames: return "self-play games played when the model was promoted";
    case ProgressAxis::kSteps: return "trainer steps of the model";
  }
  return "";
}

std::vector<std::string> opponentsOf(const std::vector<ReferenceResult>& results) {
  std::vector<std::string> opponents;
  for (const ReferenceResult& r : results)
    if (std::find(opponents.begin(), opponents.end(), r.opponent) == opponents.end()) opponents.push_back(r.opponent);
  return opponents;
}

// One run's line against one opponent.
LineSeries curveAgainst(const std::string& name, const std::string& opponent, const RunCurve& run, ProgressAxis axis,
                        bool minutes) {
  LineSeries s;
  s.name = name;
  for (const ReferenceResult& r : run.results) {  // sorted by generation: the line runs forward
    const auto at = run.progress.find(r.generation);
    if (r.opponent != opponent || at == run.progress.end()) continue;
    const GenerationProgress& p = at->second;
    s.x.push_back(axis == ProgressAxis::kHours ? p.hours * (minutes ? 60 : 1)
                  : axis == ProgressAxis::kGames ? p.games
                                                 : p.steps);
    s.y.push_back(r.elo);
    s.low.push_back(r.eloLow);
    s.high.push_back(r.eloHigh);
  }
  return s;
}

// Minutes when every run spans under 2 hours.
bool minutesAxis(const std::vector<RunCurve>& runs, ProgressAxis axis) {
  double span = 0;
  for (const RunCurve& run : runs)
    for (const auto& [generation, p] : run.progress) span = std::max(span, p.hours);
  return axis == ProgressAxis::kHours && span < 2;
}

}  // namespace

LineChart referenceLearningCurve(const std::vector<ReferenceResult>& results,
                                 const std::map<int, GenerationProgress>& progress, ProgressAxis axis) {
  const RunCurve run{"", results, progress};
  const bool minutes = minutesAxis({run}, axis);
  LineChart c;
  c.title = axisTitle(axis);
  c.xLabel = axisLabel(axis, minutes);
  c.yLabel = "Elo against the opponent (95% interval)";
  for (const std::string& o : opponentsOf(results)) c.series.push_back(curveAgainst(o, o, run, axis, minutes));
  c.references.push_back({0, "even with the opponent"});
  return c;
}

LineChart comparedLearningCurves(const std::vector<RunCurve>& runs, ProgressAxis axis) {
  const bool minutes = minutesAxis(runs, axis);
  std::vector<std::string> all;  // every opponent of every run
  for (const RunCurve& run : runs)
    for (const std::string& o : opponentsOf(run.results))
      if (std::find(all.begin(), all.end(), o) == all.end()) all.push_back(o);
  bool oneShared = all.size() == 1;
  for (const RunCurve& run : runs) oneShared = oneShared && opponentsOf(run.results).size() == 1;
  LineChart c;
  switch (axis) {
    case ProgressAxis::kHours: c.title = "Runs compared: Elo by training time"; break;
    case ProgressAxis::kGames: c.title = "Runs compared: Elo by self-play games"; break;
    case ProgressAxis::kSteps: c.title = "Runs compared: Elo by training steps"; break;
  }
  c.xLabel = axisLabel(axis, minutes);
  c.yLabel = "Elo against " + (oneShared ? all[0] : std::string("the opponent")) + " (95% interval)";
  for (const RunCurve& run : runs)
    for (const std::string& o : opponentsOf(run.results))
      c.series.push_back(curveAgainst(oneShared ? run.label : run.label + ": " + o, o, run, axis, minutes));
  c.references.push_back({0, "even with the opponent"});
  return c;
}

}  // namespace poppy::report
