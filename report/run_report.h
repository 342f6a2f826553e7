// The charts of a training run (losses, self-play speed, gates, Elo, game length, results) built
// from RunMetrics, and the report folder that shows them: one SVG and one CSV per chart and an
// index.html with a summary table. Every file is written atomically; output is deterministic.
#pragma once
#include <string>
#include <variant>
#include <vector>

#include "report/run_metrics.h"
#include "report/svg_chart.h"

namespace poppy::report {

struct NamedChart {
  std::string name;     // file stem: NAME.svg, NAME.csv
  std::string caption;  // one sentence under the chart in index.html
  std::variant<LineChart, BarChart> chart;
};

// The six charts of a run, in the order index.html shows them.
std::vector<NamedChart> runCharts(const RunMetrics& run);

// The summary table (label, value) shown at the top of index.html.
std::vector<std::pair<std::string, std::string>> runSummary(const RunMetrics& run);

// extraSvgs: other charts already in the folder (file names), shown after the run's charts.
std::string indexHtml(const RunMetrics& run, const std::vector<NamedChart>& charts,
                      const std::vector<std::string>& extraSvgs = {});

// Writes the charts (SVG + CSV) and index.html into outDir (created); returns the paths written.
// The charts of `poppy openings history` found in outDir are shown in index.html too.
std::vector<std::string> writeRunReport(const RunMetrics& run, const std::string& outDir);

}  // namespace poppy::report
