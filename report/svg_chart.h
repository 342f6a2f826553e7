// Small SVG charts that any browser shows without scripts: line charts (numeric x, several
// series, gaps where data is missing) and bar charts (categories, grouped or stacked series).
// Axes get "nice" ticks (1, 2 or 5 times a power of ten), a title, axis labels with units and a
// legend. All text is XML-escaped and numbers are printed with fixed precision, so the same data
// always gives the same bytes (reports can be diffed and tested). Each chart's data can also be
// written as CSV for other plotting tools.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/xml_escape.h"

namespace poppy::report {

// A value that is not there (a missing metric): skipped, and a line is broken around it.
constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
inline bool isMissing(double v) { return !std::isfinite(v); }

// Axis ticks covering [lo, hi]: lo/hi are rounded out to multiples of step.
struct Ticks {
  double lo = 0, hi = 1, step = 0.2;
  std::vector<double> values;  // lo, lo + step, ..., hi
  int decimals = 1;            // digits after the point that tell the ticks apart
};
// About `target` ticks over [lo, hi] (lo == hi is widened around the value), at least minStep
// apart (1 for counts such as iterations, so no tick falls between two whole numbers).
Ticks niceTicks(double lo, double hi, int target = 5, double minStep = 0);
// A tick label: fixed decimals, no "-0".
std::string formatTick(double value, int decimals);

// A horizontal line across the plot (a pass threshold, zero).
struct ReferenceLine {
  double y = 0;
  std::string label;
};

struct LineSeries {
  std::string name;
  std::vector<double> x, y;  // same length; a missing y (or x) breaks the line there
  bool markers = true;       // a dot at each point (a lone point still shows)
  bool dashed = false;
  // Optional error bars: a whisker from low[i] to high[i] at x[i] (empty, or a missing bound: none).
  std::vector<double> low = {}, high = {};
};

struct LineChart {
  std::string title;
  std::string xLabel, yLabel;  // with units, e.g. "time (hours)"
  std::vector<LineSeries> series;
  std::vector<ReferenceLine> references;
  // Fixed y range (e.g. 0..1 for shares); otherwise from the data (and the reference lines).
  bool fixedY = false;
  double yMin = 0, yMax = 1;
  bool yFromZero = false;  // include 0 in the y range (counts, rates)
  // A stacked area chart (shares that add up to 1): each series is a band on top of the ones
  // before it, at the first series' x values (a missing value counts as 0). The legend lists the
  // bands from the top down, as they are drawn.
  bool stacked = false;
  int width = 720, height = 400;
};

struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per category; missing: no bar
  // Optional error bars (a 95% interval): low[i]..high[i] drawn as a whisker over bar i; empty,
  // or a missing bound: none. Side by side bars only (ignored when stacked).
  std::vector<double> low = {}, high = {};
};

struct BarChart {
  std::string title;
  std::string xLabel, yLabel;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::vector<ReferenceLine> references;
  bool stacked = false;  // stacked: series on top of each other; else side by side
  bool fixedY = false;
  double yMin = 0, yMax = 1;
  int width = 720, height = 400;
};

// Complete SVG documents (with the XML declaration), deterministic.
std::string renderSvg(const LineChart& chart);
std::string renderSvg(const BarChart& chart);

// The chart's data as CSV: a header (x label, then the series names) and one row per distinct
// x (line chart, ascending) or per category (bar chart); missing values are empty cells.
std::string toCsv(const LineChart& chart);
std::string toCsv(const BarChart& chart);

using common::xmlEscape;  // (&, <, >, ", ') for text inside elements and attribute values
// A CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& text);
// A number with up to `decimals` digits, trailing zeros dropped; "" when missing.
std::string formatNumber(double value, int decimals = 6);

}  // namespace poppy::report
