#include "report/run_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/generation_name.h"

namespace poppy::report {
namespace fs = std::filesystem;
namespace {

using common::generationNumber;

std::string fixed(double v, int decimals) {
  if (isMissing(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

LineChart lossChart(const RunMetrics& run) {
  LineChart c;
  c.title = "Training losses";
  c.xLabel = "training steps";
  c.yLabel = "loss (mean over each train phase)";
  c.yFromZero = true;
  LineSeries policy{"policy loss", {}, {}}, value{"value loss", {}, {}}, total{"total loss", {}, {}};
  for (const TrainEvent& e : run.metrics.train) {
    for (LineSeries* s : {&policy, &value, &total}) s->x.push_back(double(e.step));
    policy.y.push_back(e.policyLoss);
    value.y.push_back(e.valueLoss);
    total.y.push_back(e.totalLoss);
  }
  c.series = {policy, value, total};
  // The value loss on each iteration's new games before training on them, beside a constant
  // guess's: above the guess, the value head has learned the games it saw by heart.
  if (!run.metrics.fresh.empty()) {
    LineSeries fresh{"value loss on new games (before training on them)", {}, {}},
        guess{"a constant guess's value loss on them", {}, {}};
    for (const FreshEvent& e : run.metrics.fresh) {
      fresh.x.push_back(double(e.step));
      fresh.y.push_back(e.valueLoss);
      guess.x.push_back(double(e.step));
      guess.y.push_back(e.constantValueLoss);
    }
    c.series.push_back(fresh);
    c.series.push_back(guess);
  }
  return c;
}

// The losses every training.log_every_steps steps ("steps" events): the view inside a phase.
LineChart stepLossChart(const RunMetrics& run) {
  LineChart c;
  c.title = "Training losses, step by step";
  c.xLabel = "training steps";
  c.yLabel = "loss (mean over each logged stretch of steps)";
  c.yFromZero = true;
  LineSeries policy{"policy loss", {}, {}}, value{"value loss", {}, {}};
  for (const TrainEvent& e : run.metrics.steps) {
    policy.x.push_back(double(e.step));
    value.x.push_back(double(e.step));
    policy.y.push_back(e.policyLoss);
    value.y.push_back(e.valueLoss);
  }
  c.series = {policy, value};
  return c;
}

LineChart speedChart(const RunMetrics& run) {
  LineChart c;
  c.title = "Self-play speed";
  c.yLabel = "games per hour";
  c.yFromZero = true;
  LineSeries s{"games per hour", {}, {}};
  const double start = run.startTime();
  double span = 0;
  for (const SelfplayEvent& e : run.metrics.selfplay) span = std::max(span, e.time - start);
  // Minutes for short runs, so the axis does not read 0.0002 hours.
  const bool minutes = span < 2 * 3600;
  c.xLabel = std::string("time since the run began (") + (minutes ? "minutes" : "hours") + ", wall clock)";
  // Phases cut short or resumed are drawn apart: their rates miss a head or a tail of games.
  LineSeries partial{"partial phases (stopped or resumed)", {}, {}};
  for (const SelfplayEvent& e : run.metrics.selfplay) {
    LineSeries& to = e.complete ? s : partial;
    to.x.push_back((e.time - start) / (minutes ? 60.0 : 3600.0));
    to.y.push_back(e.gamesPerHour);
  }
  c.series = {s};
  if (!partial.x.empty()) c.series.push_back(partial);
  return c;
}

BarChart gateChart(const RunMetrics& run) {
  BarChart c;
  c.title = "Gates: candidate's score against the best model";
  c.xLabel = "iteration";
  c.yLabel = "score (win = 1, draw = 1/2)";
  c.stacked = true;  // each gate is either promoted or kept: one bar, coloured by the outcome
  c.fixedY = true;
  c.yMin = 0;
  c.yMax = 1;
  BarSeries promoted{"promoted", {}}, kept{"kept", {}};
  std::set<double> thresholds;
  for (const GateEvent& e : run.metrics.gate) {
    c.categories.push_back(std::to_string(e.iteration));
    promoted.values.push_back(e.promoted ? e.score : kMissing);
    kept.values.push_back(e.promoted ? kMissing : e.score);
    thresholds.insert(e.threshold);
  }
  if (run.metrics.gate.empty()) thresholds.insert(run.gateThreshold);
  for (double t : thresholds) c.references.push_back({t, "pass threshold " + formatNumber(t, 3)});
  c.series = {promoted, kept};
  return c;
}

LineChart eloChart(const RunMetrics& run) {
  LineChart c;
  c.title = "Gate Elo of each promoted model (summed gate results, no fixed opponent)";
  c.xLabel = "generation of the best model";
  c.yLabel = "Elo (gen-0000 = 0, summed gate results)";
  LineSeries s{"best model", {0.0}, {0.0}};
  for (const GateEvent& e : run.metrics.gate) {
    if (!e.promoted) continue;
    const int gen = generationNumber(e.newBest);
    s.x.push_back(gen >= 0 ? double(gen) : kMissing);
    s.y.push_back(e.bestElo);
  }
  c.series = {s};
  c.references.push_back({0.0, "gen-0000"});
  return c;
}

LineChart lengthChart(const RunMetrics& run) {
  LineChart c;
  c.title = "Average game length";
  c.xLabel = "iteration";
  c.yLabel = "plies per self-play game";
  c.yFromZero = true;
  LineSeries s{"average plies", {}, {}};
  if (run.haveGameRecords) {
    for (const IterationGames& g : run.iterations) {
      s.x.push_back(g.iteration);
      s.y.push_back(g.averagePlies());
    }
  } else {
    for (const SelfplayEvent& e : run.metrics.selfplay) {
      s.x.push_back(e.iteration);
      s.y.push_back(e.avgPlies);
    }
  }
  c.series = {s};
  return c;
}

BarChart resultChart(const RunMetrics& run) {
  BarChart c;
  c.title = "Self-play results";
  c.xLabel = "iteration";
  c.yLabel = "share of the iteration's games";
  c.stacked = true;
  c.fixedY = true;
  c.yMin = 0;
  c.yMax = 1;
  if (run.players() > 2) {
    // Four players: who won, by seat (south moves first), and the draws.
    BarSeries seats[4] = {{"south wins", {}}, {"west wins", {}}, {"north wins", {}}, {"east wins", {}}};
    BarSeries draws{"draws", {}};
    for (const IterationGames& g : run.iterations) {
      if (g.games == 0) continue;
      c.categories.push_back(std::to_string(g.iteration));
      for (int s = 0; s < 4; ++s) seats[s].values.push_back(double(g.seatWins[s]) / g.games);
      draws.values.push_back(double(g.draws) / g.games);
    }
    c.series = {seats[0], seats[1], seats[2], seats[3], draws};
    return c;
  }
  BarSeries sente{"sente wins", {}}, draws{"draws", {}}, gote{"gote wins", {}};
  for (const IterationGames& g : run.iterations) {
    if (g.games == 0) continue;
    c.categories.push_back(std::to_string(g.iteration));
    sente.values.push_back(double(g.senteWins) / g.games);
    draws.values.push_back(double(g.draws) / g.games);
    gote.values.push_back(double(g.goteWins) / g.games);
  }
  c.series = {sente, draws, gote};
  return c;
}

std::string render(const NamedChart& c) {
  return std::visit([](const auto& chart) { return renderSvg(chart); }, c.chart);
}
std::string csv(const NamedChart& c) {
  return std::visit([](const auto& chart) { return toCsv(chart); }, c.chart);
}

}  // namespace

// The self-play games by a generation's promotion: those of the last self-play phase that ended
// before its gate.
std::map<int, GenerationProgress> generationProgress(const RunMetrics& run) {
  std::map<int, GenerationProgress> out;
  out[0] = {};
  const double start = run.startTime();
  for (const GateEvent& e : run.metrics.gate) {
    const int generation = generationNumber(e.newBest);
    if (!e.promoted || generation < 0) continue;
    GenerationProgress p;
    p.hours = (e.time - start) / 3600.0;
    p.steps = double(e.step);
    for (const SelfplayEvent& sp : run.metrics.selfplay)
      if (sp.time <= e.time) p.games = std::max(p.games, double(sp.totalGames));
    out[generation] = p;
  }
  return out;
}

std::vector<NamedChart> runCharts(const RunMetrics& run) {
  const bool four = run.players() > 2;
  std::vector<NamedChart> charts = {
      {"losses",
       "Mean policy, value and total (policy + value x training.value_loss_weight) loss of each train phase; "
       "where the run logged them, the value loss on each iteration's new games before training on them, "
       "and a constant guess's on the same games (docs/commands/train.md, \"Value overfitting\").",
       lossChart(run)},
      {"games-per-hour", "Self-play games finished per hour in each self-play phase.", speedChart(run)},
      {"step-losses",
       "Mean policy and value loss of every training.log_every_steps steps (the \"steps\" events of metrics.jsonl): "
       "the losses inside each train phase, as they come.",
       stepLossChart(run)},
      {"gates",
       four ? "Share of the points of each candidate in one seat against the best model in the other three (an "
              "equal player's is 0.25); the dashed line is the pass threshold."
            : "Score of each candidate against the best model; the dashed line is the pass threshold.",
       gateChart(run)},
      {"elo",
       "Gate Elo of each new best model: the sum of the gate results that promoted it and its ancestors, each "
       "against the model before it. It grows whenever a gate passes, so it measures no strength against a fixed "
       "opponent: see the reference Elo for that (poppy report --reference).",
       eloChart(run)},
      {"game-length", "Average number of plies of the self-play games of each iteration.", lengthChart(run)},
      {"results", run.haveGameRecords ? "How the self-play games of each iteration ended."
                                      : "No games.jsonl in the run: no results to show.",
       resultChart(run)},
  };
  // Runs from before the "steps" events have none to draw.
  if (run.metrics.steps.empty())
    charts.erase(std::find_if(charts.begin(), charts.end(), [](const NamedChart& c) { return c.name == "step-losses"; }));
  // Elo is for two players: a four-player run's gates are measured by the share above.
  if (four) charts.erase(std::find_if(charts.begin(), charts.end(), [](const NamedChart& c) { return c.name == "elo"; }));
  if (!run.references.empty())
    charts.push_back({"reference-elo",
                      "Elo of chosen generations against fixed opponents, from the matches in the run's reference "
                      "folder, with 95% intervals: a measure with a fixed zero, unlike the gate Elo.",
                      referenceEloChart(run.references)});
  if (!run.references.empty() && !four) {
    // The learning curve (issue 47): the same Elo against how much training each model had.
    const std::map<int, GenerationProgress> progress = generationProgress(run);
    const char* what = "Elo of each promoted generation against the fixed opponents of the reference matches, with 95% "
                       "intervals, against ";
    charts.push_back({"learning-curve-hours",
                      std::string(what) + "the wall-clock time since the run began when the generation was promoted.",
                      referenceLearningCurve(run.references, progress, ProgressAxis::kHours)});
    charts.push_back({"learning-curve-games", std::string(what) + "the self-play games played by its promotion.",
                      referenceLearningCurve(run.references, progress, ProgressAxis::kGames)});
    charts.push_back({"learning-curve-steps", std::string(what) + "its trainer steps.",
                      referenceLearningCurve(run.references, progress, ProgressAxis::kSteps)});
  }
  return charts;
}

std::vector<NamedChart> comparisonCharts(const RunMetrics& run, const std::vector<RunMetrics>& others) {
  std::vector<const RunMetrics*> runs = {&run};
  for (const RunMetrics& o : others) runs.push_back(&o);
  std::vector<RunCurve> curves;
  std::string names;
  for (const RunMetrics* r : runs) {
    if (r->players() > 2)
      throw std::runtime_error(r->runDir + " is a four-player run: its models have no Elo to compare");
    if (r->variant != run.variant)
      throw std::runtime_error("cannot compare runs of different variants: " + run.runDir + " plays " + run.variant +
                               ", " + r->runDir + " plays " + r->variant);
    // The folder's name labels the run; the whole path where two names are the same.
    std::string label = fs::path(r->runDir).lexically_normal().filename().string();
    if (label.empty()) label = fs::path(r->runDir).lexically_normal().parent_path().filename().string();
    for (const RunCurve& c : curves)
      if (c.label == label) label = r->runDir;
    curves.push_back({label, r->references, generationProgress(*r)});
    names += (names.empty() ? "" : ", ") + label;
  }
  const std::string what = "Learning curves of the runs " + names +
                           ": each promoted generation's Elo against the fixed opponents of its run's reference matches, "
                           "with 95% intervals, against ";
  // The losses of every run on one chart: train phases' means by trainer step.
  auto lossesOf = [&](const char* title, double TrainEvent::*loss) {
    LineChart c;
    c.title = title;
    c.xLabel = "training steps";
    c.yLabel = "loss (mean over each train phase)";
    c.yFromZero = true;
    for (size_t i = 0; i < runs.size(); ++i) {
      LineSeries s{curves[i].label, {}, {}};
      for (const TrainEvent& e : runs[i]->metrics.train) {
        s.x.push_back(double(e.step));
        s.y.push_back(e.*loss);
      }
      c.series.push_back(s);
    }
    return c;
  };
  std::vector<NamedChart> charts = {
      {"compare-learning-curve-hours", what + "the wall-clock time since its run began when it was promoted.",
           comparedLearningCurves(curves, ProgressAxis::kHours)},
          {"compare-learning-curve-games", what + "the self-play games its run had played by then.",
           comparedLearningCurves(curves, ProgressAxis::kGames)},
      {"compare-learning-curve-steps", what + "its trainer steps.", comparedLearningCurves(curves, ProgressAxis::kSteps)},
      {"compare-policy-loss", "Policy loss of the runs " + names + ": the mean of each train phase, by trainer step.",
       lossesOf("Policy loss, run by run", &TrainEvent::policyLoss)},
      {"compare-value-loss", "Value loss of the runs " + names + ": the mean of each train phase, by trainer step.",
       lossesOf("Value loss, run by run", &TrainEvent::valueLoss)}};
  return charts;
}

std::vector<std::pair<std::string, std::string>> runSummary(const RunMetrics& run) {
  std::vector<std::pair<std::string, std::string>> rows;
  int64_t steps = 0;
  for (const TrainEvent& e : run.metrics.train) steps = std::max(steps, e.step);
  int promoted = 0;
  for (const GateEvent& e : run.metrics.gate) promoted += e.promoted;
  rows.push_back({"run directory", run.runDir});
  rows.push_back({"variant", run.variant.empty() ? "-" : run.variant});
  rows.push_back({"iterations finished", std::to_string(run.iteration) +
                                             (run.phase.empty() ? "" : " (now in " + run.phase + ")")});
  rows.push_back({"self-play games", std::to_string(run.totalGames)});
  rows.push_back({"training samples", std::to_string(run.totalSamples)});
  rows.push_back({"training steps", std::to_string(steps)});
  rows.push_back({"time trained", fixed(isMissing(run.secondsTrained) ? kMissing : run.secondsTrained / 3600.0, 2) +
                                      " hours"});
  rows.push_back({"gates", std::to_string(run.metrics.gate.size()) + " (" + std::to_string(promoted) + " promoted)"});
  if (run.players() > 2)
    rows.push_back({"best model", common::generationName(run.generation) + " (four players: gates promote on the share "
                                                                            "of the points, no Elo)"});
  else
    rows.push_back({"best model", common::generationName(run.generation) + ", Elo " + fixed(run.bestElo, 0)});
  if (!run.metrics.train.empty()) {
    const TrainEvent& last = run.metrics.train.back();
    rows.push_back({"last losses", "policy " + fixed(last.policyLoss, 3) + ", value " + fixed(last.valueLoss, 3) +
                                       ", total " + fixed(last.totalLoss, 3)});
  }
  const SelfplayEvent* lastComplete = nullptr;
  for (const SelfplayEvent& e : run.metrics.selfplay)
    if (e.complete) lastComplete = &e;
  if (lastComplete) {
    rows.push_back({"last self-play", fixed(lastComplete->gamesPerHour, 0) + " games/hour, " +
                                          fixed(lastComplete->avgPlies, 1) + " plies/game (last whole phase)"});
  }
  rows.push_back({"problems in the files", std::to_string(run.problems.size())});
  return rows;
}

std::string indexHtml(const RunMetrics& run, const std::vector<NamedChart>& charts,
                      const std::vector<std::string>& extraSvgs, int refreshSeconds) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // `poppy report --watch`: the page reloads itself as often as the report is written again.
  if (refreshSeconds > 0) h += "<meta http-equiv=\"refresh\" content=\"" + std::to_string(refreshSeconds) + "\">\n";
  h += "<title>Poppy run report: " + xmlEscape(run.runDir) + "</title>\n";
  h += "<style>body{font-family:sans-serif;margin:2em;max-width:800px}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}figure{margin:2em 0}"
       "figcaption{color:#444}img{max-width:100%}</style>\n</head>\n<body>\n";
  h += "<h1>Poppy run report</h1>\n<table class=\"summary\">\n";
  for (const auto& [label, value] : runSummary(run))
    h += "<tr><th>" + xmlEscape(label) + "</th><td>" + xmlEscape(value) + "</td></tr>\n";
  h += "</table>\n";
  for (const NamedChart& c : charts) {
    h += "<figure id=\"" + c.name + "\">\n<img src=\"" + c.name + ".svg\" alt=\"" +
         xmlEscape(std::visit([](const auto& chart) { return chart.title; }, c.chart)) + "\">\n";
    h += "<figcaption>" + xmlEscape(c.caption) + " Data: <a href=\"" + c.name + ".csv\">" + c.name +
         ".csv</a></figcaption>\n</figure>\n";
  }
  for (const std::string& svg : extraSvgs)
    h += "<figure>\n<img src=\"" + xmlEscape(svg) + "\" alt=\"" + xmlEscape(svg) + "\">\n</figure>\n";
  if (!run.problems.empty()) {
    h += "<h2>Problems in the run's files (skipped)</h2>\n<ul class=\"problems\">\n";
    for (const std::string& p : run.problems) h += "<li>" + xmlEscape(p) + "</li>\n";
    h += "</ul>\n";
  }
  h += "</body>\n</html>\n";
  return h;
}

std::vector<std::string> writeRunReport(const RunMetrics& run, const std::string& outDir,
                                        const std::vector<NamedChart>& extraCharts, int refreshSeconds) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) throw common::FileError("cannot create the report directory " + outDir + ": " + ec.message());
  std::vector<NamedChart> charts = runCharts(run);
  charts.insert(charts.end(), extraCharts.begin(), extraCharts.end());
  std::vector<std::string> written;
  auto write = [&](const std::string& name, const std::string& contents) {
    const std::string path = (fs::path(outDir) / name).string();
    common::writeFileAtomically(path, contents);
    written.push_back(path);
  };
  for (const NamedChart& c : charts) {
    write(c.name + ".svg", render(c));
    write(c.name + ".csv", csv(c));
  }
  std::vector<std::string> extra;
  for (const char* name : {"openings-history.svg", "openings-history-second.svg", "openings-history-position.svg",
                           "openings-history-divergence.svg", "openings-history-played.svg"})
    if (fs::exists(fs::path(outDir) / name)) extra.push_back(name);
  write("index.html", indexHtml(run, charts, extra, refreshSeconds));
  return written;
}

}  // namespace poppy::report
