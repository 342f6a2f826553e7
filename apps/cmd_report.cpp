// `poppy report RUN_DIR`: SVG charts of a training run and an index.html that shows them; with
// --reference, first the matches of chosen generations against fixed opponents whose Elo the
// report charts (RUN_DIR/reference, report/reference_elo.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "apps/commands.h"
#include "program/match_runner.h"
#include "common/generation_name.h"
#include "common/run_lock.h"
#include "common/stop_signal.h"
#include "report/match_report.h"
#include "report/reference_elo.h"
#include "report/run_metrics.h"
#include "report/run_report.h"

namespace poppy::apps {
namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::string runDir, out;
  std::vector<std::string> references;  // player descriptions, as poppy match --b
  std::vector<std::string> compared;    // other run directories whose learning curves are drawn beside
  std::string generations = "every:5";
  int watchSeconds = 0;  // --watch: write the report again this often while a trainer holds the run
  int games = 40, playouts = 128, plyCap = 200, parallel = 32;
};

// Now, as HH:MM:SS local time.
std::string clockText() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", std::localtime(&now));
  return text;
}

// The generations with a model in RUN_DIR/models, ascending.
std::vector<int> modelGenerations(const std::string& runDir) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(runDir) / "models", ec))
    if (e.path().extension() == ".model") {
      const int g = common::generationNumber(e.path().stem().string());
      if (g >= 0) out.push_back(g);
    }
  std::sort(out.begin(), out.end());
  return out;
}

// "all", "last", "every:N" (0, N, 2N, ... and the last) or "3,7,12": the generations to match,
// among those with a model. Throws std::invalid_argument naming what is wrong.
std::vector<int> chooseGenerations(const std::string& spec, const std::vector<int>& have) {
  if (have.empty()) throw std::invalid_argument("the run has no models yet (RUN_DIR/models/gen-NNNN.model)");
  std::set<int> chosen;
  if (spec == "all") {
    chosen.insert(have.begin(), have.end());
  } else if (spec == "last") {
    chosen.insert(have.back());
  } else if (spec.rfind("every:", 0) == 0) {
    int n = 0;
    try {
      n = std::stoi(spec.substr(6));
    } catch (const std::exception&) {
    }
    if (n < 1) throw std::invalid_argument("--generations " + spec + ": every:N needs a whole N of at least 1");
    for (int g : have)
      if (g % n == 0) chosen.insert(g);
    chosen.insert(have.back());
  } else {
    std::stringstream list(spec);
    std::string item;
    while (std::getline(list, item, ',')) {
      int g = -1;
      try {
        size_t used = 0;
        g = std::stoi(item, &used);
        if (used != item.size()) g = -1;
      } catch (const std::exception&) {
      }
      if (g < 0) throw std::invalid_argument("--generations: '" + item + "' is not all, last, every:N or a generation number");
      if (!std::binary_search(have.begin(), have.end(), g))
        throw std::invalid_argument("--generations: the run has no model of generation " + std::to_string(g));
      chosen.insert(g);
    }
  }
  return {chosen.begin(), chosen.end()};
}

// A finished summary of `games` games at `path`.
bool alreadyPlayed(const std::string& path, int games) {
  if (!fs::exists(path)) return false;
  try {
    const report::MatchSummaryTotals t = report::readMatchSummary(path);
    return t.finished && t.games >= games;
  } catch (const std::exception&) {
    return false;  // a damaged summary: the match is played again
  }
}

void playReferenceMatches(const ReportArgs& a, const std::string& variant) {
  const std::vector<int> generations = chooseGenerations(a.generations, modelGenerations(a.runDir));
  fs::create_directories(report::referenceDir(a.runDir));
  for (const std::string& opponent : a.references)
    for (int g : generations) {
      const std::string model = (fs::path(a.runDir) / "models" / (common::generationName(g) + ".model")).string();
      const std::string stem = (fs::path(report::referenceDir(a.runDir)) /
                                (common::generationName(g) + "-vs-" + report::shortPlayerName(opponent))).string();
      if (alreadyPlayed(stem + ".summary.json", a.games)) {
        std::fprintf(stderr, "report: %s against %s: already played (%s.summary.json)\n",
                     common::generationName(g).c_str(), opponent.c_str(), stem.c_str());
        continue;
      }
      // A match stopped before its end is played again from the start.
      fs::remove(stem + ".jsonl");
      fs::remove(stem + ".summary.json");
      program::MatchRunArgs m;
      m.variant = variant;
      m.a.player = "model:" + model + ":" + std::to_string(a.playouts);
      m.b.player = opponent;
      m.games = a.games;
      m.parallel = a.parallel;
      m.plyCap = a.plyCap;
      m.records = stem + ".jsonl";
      m.summary = stem + ".summary.json";
      program::runMatchCommand(m, true);
    }
}

}  // namespace

void addReportCommand(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Charts of a training run (losses, self-play speed, gates, Elo, game length, results) as SVG + CSV, "
                "with an index.html to open in a browser");
  cmd->add_option("run_dir", args->runDir, "Run directory of poppy train")->required();
  cmd->add_option("--out", args->out, "Folder for the report (default RUN_DIR/report)");
  cmd->add_option("--reference", args->references,
                  "Fixed opponent to match chosen generations against first (repeatable; as poppy match --b: "
                  "rollout:1000, usi:fairy-stockfish, model:PATH:N ...); results go to RUN_DIR/reference and are charted");
  cmd->add_option("--compare", args->compared,
                  "Another run directory (repeatable) whose learning curves (from its reference matches) are drawn "
                  "beside this run's: compare-learning-curve-hours/-games/-steps");
  cmd->add_option("--generations", args->generations, "Generations to match: all, last, every:N (and the last) or 3,7,12")
      ->capture_default_str();
  cmd->add_option("--games", args->games, "Games per reference match (colours alternate)")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  cmd->add_option("--playouts", args->playouts, "Playouts per move of the run's models in reference matches")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--ply-cap", args->plyCap, "Ply cap of reference games")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--parallel", args->parallel, "Reference games played at once")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--watch", args->watchSeconds,
                  "Write the report again every this many seconds while `poppy train` runs in RUN_DIR (its "
                  "index.html reloads itself as often); stops when the trainer stops, or on Ctrl-C")
      ->check(CLI::Range(1, 86400));
  cmd->callback([args] {
    report::RunMetrics run = report::loadRunMetrics(args->runDir);
    if (!args->references.empty()) {
      if (run.variant.empty()) throw std::runtime_error("the run's config.yaml names no variant: cannot play reference matches");
      playReferenceMatches(*args, run.variant);
    }
    const std::string out = args->out.empty() ? (fs::path(args->runDir) / "report").string() : args->out;
    const common::StopOnSignal stopOnSignal;
    for (bool first = true;; first = false) {
      if (!first || !args->references.empty()) run = report::loadRunMetrics(args->runDir);
      // Warnings once: a watched run says the same ones at every pass.
      if (first)
        for (const std::string& p : run.problems) std::fprintf(stderr, "warning: %s\n", p.c_str());
      std::vector<report::RunMetrics> others;
      for (const std::string& dir : args->compared) {
        others.push_back(report::loadRunMetrics(dir));
        if (first)
          for (const std::string& p : others.back().problems) std::fprintf(stderr, "warning: %s: %s\n", dir.c_str(), p.c_str());
      }
      const std::vector<report::NamedChart> extra =
          others.empty() ? std::vector<report::NamedChart>{} : report::comparisonCharts(run, others);
      const std::string holder = args->watchSeconds > 0 ? common::directoryLockHolder(args->runDir) : "";
      const auto written = report::writeRunReport(run, out, extra, holder.empty() ? 0 : args->watchSeconds);
      if (first)
        std::printf("wrote %zu files to %s: open %s in a browser\n", written.size(), out.c_str(),
                    (fs::path(out) / "index.html").string().c_str());
      if (args->watchSeconds == 0) return;
      if (holder.empty()) {
        std::printf("report: no trainer holds %s (%s): the report is as the run stands, not watched\n",
                    args->runDir.c_str(), first ? "not running" : "it stopped");
        return;
      }
      std::printf("report: iteration %d, %lld games, written %s; again in %d s while %s trains (Ctrl-C stops)\n",
                  run.iteration, (long long)run.totalGames, clockText().c_str(), args->watchSeconds,
                  holder.c_str());
      std::fflush(stdout);
      for (int waited = 0; waited < args->watchSeconds * 10; ++waited) {
        if (common::StopOnSignal::requested()) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  });
}

}  // namespace poppy::apps
