#include "report/reference_elo.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/generation_name.h"

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
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      const nlohmann::json j = nlohmann::json::parse(text.str());
      if (j.value("format", "") != "poppy-match-summary") throw std::runtime_error("not a poppy match summary");
      ReferenceResult r;
      r.generation = generationOf(j.at("a").at("player").get<std::string>());
      if (r.generation < 0) throw std::runtime_error("player A is not a generation's model (models/gen-NNNN.model)");
      r.opponent = j.at("b").at("player").get<std::string>();
      r.games = j.at("games").get<int>();
      r.wins = j.at("wins").get<int>();
      r.draws = j.at("draws").get<int>();
      r.losses = j.at("losses").get<int>();
      r.elo = j.at("elo").get<double>();
      r.eloLow = j.at("elo_low").get<double>();
      r.eloHigh = j.at("elo_high").get<double>();
      r.finished = j.at("finished").get<bool>();
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

LineChart referenceLearningCurve(const std::vector<ReferenceResult>& results,
                                 const std::map<int, GenerationProgress>& progress, ProgressAxis axis) {
  LineChart c;
  double span = 0;
  for (const auto& [generation, p] : progress) span = std::max(span, p.hours);
  const bool minutes = axis == ProgressAxis::kHours && span < 2;  // a short run's axis reads minutes
  switch (axis) {
    case ProgressAxis::kHours:
      c.title = "Learning curve: Elo against fixed opponents by training time";
      c.xLabel = std::string("time since the run began when the model was promoted (") + (minutes ? "minutes" : "hours") +
                 ", wall clock)";
      break;
    case ProgressAxis::kGames:
      c.title = "Learning curve: Elo against fixed opponents by self-play games";
      c.xLabel = "self-play games played when the model was promoted";
      break;
    case ProgressAxis::kSteps:
      c.title = "Learning curve: Elo against fixed opponents by training steps";
      c.xLabel = "trainer steps of the model";
      break;
  }
  c.yLabel = "Elo against the opponent (95% interval)";
  std::vector<std::string> opponents;
  for (const ReferenceResult& r : results)
    if (std::find(opponents.begin(), opponents.end(), r.opponent) == opponents.end()) opponents.push_back(r.opponent);
  for (const std::string& o : opponents) {
    LineSeries s{o, {}, {}};
    for (const ReferenceResult& r : results) {  // sorted by generation: the line runs forward
      const auto at = progress.find(r.generation);
      if (r.opponent != o || at == progress.end()) continue;
      const GenerationProgress& p = at->second;
      s.x.push_back(axis == ProgressAxis::kHours ? p.hours * (minutes ? 60 : 1)
                    : axis == ProgressAxis::kGames ? p.games
                                                   : p.steps);
      s.y.push_back(r.elo);
      s.low.push_back(r.eloLow);
      s.high.push_back(r.eloHigh);
    }
    c.series.push_back(s);
  }
  c.references.push_back({0, "even with the opponent"});
  return c;
}

}  // namespace poppy::report
