// The charts of a training run (losses, self-play speed, gates, Elo, game length, results) built
// from RunMetrics, and the report folder that shows them: one SVG and one CSV per chart and an
// index.html with a summary table. Every file is written atomically; output is deterministic.
#pragma once
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "report/reference_elo.h"
#include "report/run_metrics.h"
#include "report/svg_chart.h"

namespace poppy::report {

struct NamedChart {
  std::string name;     // file stem: NAME.svg, NAME.csv
  std::string caption;  // one sentence under the chart in index.html
  std::variant<LineChart, BarChart> chart;
};

// The charts of a run, in the order index.html shows them (the step-by-step losses only for runs
// that logged "steps" events; the reference Elo and learning curves only with reference matches).
std::vector<NamedChart> runCharts(const RunMetrics& run);

// The summary table (label, value) shown at the top of index.html.
std::vector<std::pair<std::string, std::string>> runSummary(const RunMetrics& run);

// extraSvgs: other charts already in the folder (file names), shown after the run's charts.
// refreshSeconds > 0: the page reloads itself that often (`poppy report --watch`).
std::string indexHtml(const RunMetrics& run, const std::vector<NamedChart>& charts,
                      const std::vector<std::string>& extraSvgs = {}, int refreshSeconds = 0);

// When each generation became the best model: its gate's time, its trainer step and the
// self-play games played by then (gen-0000: the start).
std::map<int, GenerationProgress> generationProgress(const RunMetrics& run);

// The learning curves of `run` and of `others` on one chart each by hours, games and steps
// (compare-learning-curve-*), and their policy and value losses by training step
// (compare-policy-loss, compare-value-loss), for `poppy report RUN --compare OTHER`; runs without
// reference matches add no learning curve. Throws std::runtime_error when the runs play different variants, or a run
// has four players.
std::vector<NamedChart> comparisonCharts(const RunMetrics& run, const std::vector<RunMetrics>& others);

// Writes the charts (SVG + CSV) and index.html into outDir (created); returns the paths written.
// The charts of `poppy openings history` found in outDir are shown in index.html too, and
// `extraCharts` (comparisonCharts) after the run's own.
std::vector<std::string> writeRunReport(const RunMetrics& run, const std::string& outDir,
                                        const std::vector<NamedChart>& extraCharts = {}, int refreshSeconds = 0);

}  // namespace poppy::report
