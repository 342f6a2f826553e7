#include "report/run_metrics.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.h"
#include "selfplay/game_record.h"

namespace poppy::report {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A field that must be there: a number (a bool for "promoted"); throws naming it.
double number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(std::string("no \"") + key + "\"");
  if (!it->is_number()) throw std::runtime_error(std::string("\"") + key + "\" is not a number");
  const double v = it->get<double>();
  if (!std::isfinite(v)) throw std::runtime_error(std::string("\"") + key + "\" is not finite");
  return v;
}
// A field that may be missing (older or newer runs); a wrong type is still an error.
double optionalNumber(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return kMissing;
  return number(j, key);
}
int64_t integer(const json& j, const char* key) {
  const double v = number(j, key);
  if (v != std::floor(v)) throw std::runtime_error(std::string("\"") + key + "\" is not a whole number");
  return int64_t(v);
}
std::string optionalString(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (!it->is_string()) throw std::runtime_error(std::string("\"") + key + "\" is not a string");
  return it->get<std::string>();
}

SelfplayEvent selfplayEvent(const json& j) {
  SelfplayEvent e;
  e.iteration = int(integer(j, "iteration"));
  e.time = number(j, "time");
  e.seconds = number(j, "seconds");
  e.games = int(integer(j, "games"));
  e.totalGames = integer(j, "total_games");
  if (e.games < 0 || e.totalGames < e.games) throw std::runtime_error("\"games\" and \"total_games\" disagree");
  e.gamesPerHour = optionalNumber(j, "games_per_hour");
  if (isMissing(e.gamesPerHour) && e.seconds > 0) e.gamesPerHour = e.games * 3600.0 / e.seconds;
  e.avgPlies = optionalNumber(j, "avg_plies");
  e.decisive = optionalNumber(j, "decisive");
  e.evalsPerSecond = optionalNumber(j, "evals_per_second");
  if (j.contains("complete")) {
    if (!j["complete"].is_boolean()) throw std::runtime_error("\"complete\" is not true or false");
    e.complete = j["complete"].get<bool>();
  }
  return e;
}

FreshEvent freshEvent(const json& j) {
  FreshEvent e;
  e.iteration = int(integer(j, "iteration"));
  e.time = number(j, "time");
  e.step = integer(j, "step");
  e.samples = int(integer(j, "samples"));
  e.policyLoss = number(j, "fresh_policy_loss");
  e.valueLoss = number(j, "fresh_value_loss");
  e.constantValueLoss = optionalNumber(j, "constant_value_loss");
  return e;
}

TrainEvent trainEvent(const json& j) {
  TrainEvent e;
  e.iteration = int(integer(j, "iteration"));
  e.time = number(j, "time");
  e.step = integer(j, "step");
  e.steps = int(integer(j, "steps"));
  e.seconds = optionalNumber(j, "seconds");
  e.policyLoss = number(j, "policy_loss");
  e.valueLoss = number(j, "value_loss");
  e.totalLoss = optionalNumber(j, "total_loss");
  if (isMissing(e.totalLoss)) e.totalLoss = e.policyLoss + e.valueLoss;
  e.learningRate = optionalNumber(j, "learning_rate");
  e.samplesPerSecond = optionalNumber(j, "samples_per_second");
  const double window = optionalNumber(j, "window");
  e.window = isMissing(window) ? 0 : int64_t(window);
  return e;
}

GateEvent gateEvent(const json& j) {
  GateEvent e;
  e.iteration = int(integer(j, "iteration"));
  e.time = number(j, "time");
  e.step = integer(j, "step");
  e.games = int(integer(j, "games"));
  e.wins = int(integer(j, "wins"));
  e.draws = int(integer(j, "draws"));
  e.losses = int(integer(j, "losses"));
  if (e.wins < 0 || e.draws < 0 || e.losses < 0 || e.wins + e.draws + e.losses != e.games)
    throw std::runtime_error("wins + draws + losses is not games");
  e.score = number(j, "score");
  e.eloDiff = optionalNumber(j, "elo_diff");
  e.eloMargin = optionalNumber(j, "elo_margin");
  e.threshold = optionalNumber(j, "threshold");
  const auto promoted = j.find("promoted");
  if (promoted == j.end() || !promoted->is_boolean()) throw std::runtime_error("\"promoted\" is not true or false");
  e.promoted = promoted->get<bool>();
  e.opponent = optionalString(j, "opponent");
  e.newBest = optionalString(j, "new_best");
  e.bestElo = optionalNumber(j, "best_elo");
  if (j.contains("players")) e.players = int(integer(j, "players"));
  if (e.promoted && (e.newBest.empty() || isMissing(e.bestElo)))
    throw std::runtime_error("a promotion without \"new_best\" and \"best_elo\"");
  return e;
}

void readState(RunMetrics& run, const fs::path& path) {
  try {
    const json j = json::parse(common::readWholeFile(path.string()));
    run.iteration = int(integer(j, "iteration"));
    run.phase = optionalString(j, "phase");
    run.totalGames = integer(j, "total_games");
    run.totalSamples = integer(j, "total_samples");
    run.generation = int(integer(j, "generation"));
    run.bestElo = optionalNumber(j, "best_elo");
    run.secondsTrained = optionalNumber(j, "seconds");
  } catch (const std::exception& e) {
    run.problems.push_back(path.string() + ": unreadable run state (" + e.what() + ")");
  }
}

void readConfig(RunMetrics& run, const fs::path& path) {
  if (!fs::exists(path)) return;
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    if (root["variant"]) run.variant = root["variant"].as<std::string>();
    if (root["gate"] && root["gate"]["threshold"]) run.gateThreshold = root["gate"]["threshold"].as<double>();
  } catch (const std::exception& e) {
    run.problems.push_back(path.string() + ": unreadable config (" + e.what() + ")");
  }
}

}  // namespace

ParsedMetrics parseMetrics(const std::string& text, const std::string& fileName) {
  ParsedMetrics out;
  std::istringstream in(text);
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      json j;
      try {
        j = json::parse(line);
      } catch (const json::exception&) {
        throw std::runtime_error("not JSON");
      }
      if (!j.is_object()) throw std::runtime_error("not a JSON object");
      const std::string event = optionalString(j, "event");
      if (event == "selfplay") {
        out.selfplay.push_back(selfplayEvent(j));
        out.selfplay.back().line = lineNo;
      } else if (event == "train") {
        out.train.push_back(trainEvent(j));
        out.train.back().line = lineNo;
      } else if (event == "steps") {
        out.steps.push_back(trainEvent(j));
        out.steps.back().line = lineNo;
      } else if (event == "fresh") {
        out.fresh.push_back(freshEvent(j));
        out.fresh.back().line = lineNo;
      } else if (event == "gate") {
        out.gate.push_back(gateEvent(j));
        out.gate.back().line = lineNo;
      } else if (event.empty()) {
        throw std::runtime_error("no \"event\"");
      } else {
        ++out.unknownEvents;
      }
    } catch (const std::exception& e) {
      out.problems.push_back(fileName + ":" + std::to_string(lineNo) + ": " + e.what() + ", line skipped");
    }
  }
  return out;
}

std::vector<IterationGames> groupGamesByIteration(const std::vector<GameResultLite>& games,
                                                  const std::vector<SelfplayEvent>& selfplay, int currentIteration) {
  // Games of the run after each iteration's self-play (the last event of an iteration wins:
  // a resumed phase logs again with the larger total).
  std::map<int, int64_t> endOf;
  for (const SelfplayEvent& e : selfplay) endOf[e.iteration] = std::max(endOf[e.iteration], e.totalGames);
  std::map<int, IterationGames> byIteration;
  auto it = endOf.begin();
  for (size_t i = 0; i < games.size(); ++i) {
    while (it != endOf.end() && int64_t(i) >= it->second) ++it;
    const int iteration = it != endOf.end() ? it->first : std::max(currentIteration, endOf.empty() ? 0 : endOf.rbegin()->first + 1);
    IterationGames& g = byIteration[iteration];
    g.iteration = iteration;
    ++g.games;
    g.plies += games[i].plies;
    static const char* const kSeats[] = {"south", "west", "north", "east"};
    const std::string& result = games[i].result;
    if (result == "sente") ++g.senteWins;
    else if (result == "gote") ++g.goteWins;
    else if (const auto seat = std::find(std::begin(kSeats), std::end(kSeats), result); seat != std::end(kSeats))
      ++g.seatWins[seat - std::begin(kSeats)];
    else ++g.draws;
  }
  std::vector<IterationGames> out;
  for (const auto& [iteration, g] : byIteration) out.push_back(g);
  return out;
}

int RunMetrics::players() const {
  for (const GateEvent& e : metrics.gate)
    if (e.players > 2) return e.players;
  for (const IterationGames& g : iterations)
    for (int w : g.seatWins)
      if (w > 0) return 4;
  return 2;
}

double RunMetrics::startTime() const {
  double start = kMissing;
  auto consider = [&](double t) {
    if (!isMissing(t) && (isMissing(start) || t < start)) start = t;
  };
  for (const SelfplayEvent& e : metrics.selfplay) consider(e.time - e.seconds);
  for (const TrainEvent& e : metrics.train) consider(e.time - (isMissing(e.seconds) ? 0 : e.seconds));
  for (const GateEvent& e : metrics.gate) consider(e.time);
  return start;
}

RunMetrics loadRunMetrics(const std::string& runDir) {
  const fs::path dir(runDir);
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw RunDirError("run directory " + runDir + " does not exist");
  if (!fs::is_directory(dir, ec)) throw RunDirError(runDir + " is not a directory (expected a run directory of poppy train)");
  if (!fs::exists(dir / "state.json"))
    throw RunDirError(runDir + " is not a run directory of poppy train (it has no state.json)");
  RunMetrics run;
  run.runDir = runDir;
  readState(run, dir / "state.json");
  readConfig(run, dir / "config.yaml");

  const fs::path metricsPath = dir / "metrics.jsonl";
  if (!fs::exists(metricsPath))
    throw RunDirError(metricsPath.string() + " does not exist: the run has not finished a phase yet, nothing to report");
  run.metrics = parseMetrics(common::readWholeFile(metricsPath.string()), metricsPath.string());
  run.problems.insert(run.problems.end(), run.metrics.problems.begin(), run.metrics.problems.end());
  if (run.metrics.empty())
    throw RunDirError(metricsPath.string() + " has no selfplay, train or gate events" +
                      (run.metrics.problems.empty() ? std::string() : " (" + run.metrics.problems.front() + ")") +
                      ": nothing to report");
  for (GateEvent& g : run.metrics.gate)
    if (isMissing(g.threshold)) g.threshold = run.gateThreshold;

  const fs::path gamesPath = dir / "games.jsonl";
  if (fs::exists(gamesPath)) {
    const selfplay::GameRecordFile file = selfplay::readGameRecordFile(gamesPath.string());
    run.problems.insert(run.problems.end(), file.errors.begin(), file.errors.end());
    std::vector<GameResultLite> games;
    for (const selfplay::GameRecord& r : file.records) games.push_back({r.result, r.plies});
    run.haveGameRecords = true;
    run.gameRecords = int64_t(games.size());
    run.iterations = groupGamesByIteration(games, run.metrics.selfplay, run.iteration);
  } else {
    run.problems.push_back(gamesPath.string() + ": missing, so game lengths and results come from metrics.jsonl");
  }
  run.references = loadReferenceResults(runDir, run.problems);
  return run;
}

}  // namespace poppy::report
