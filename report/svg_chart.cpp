#include "report/svg_chart.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace poppy::report {
namespace {

// Tableau 10: distinct on screen and in print, readable by most colour-blind people.
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const char* colour(size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }

// Coordinates with two decimals: exact enough for a screen, and the same bytes every time.
std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// The frame every chart shares: sizes of the plot area and the mapping from data to pixels.
struct Frame {
  int width, height;
  double left = 72, right, top = 44, bottom;
  Ticks x, y;  // x unused by bar charts
  Frame(int w, int h) : width(w), height(h), right(w - 190.0), bottom(h - 56.0) {}
  double plotW() const { return right - left; }
  double plotH() const { return bottom - top; }
  double mapX(double v) const { return left + (v - x.lo) / (x.hi - x.lo) * plotW(); }
  double mapY(double v) const { return bottom - (v - y.lo) / (y.hi - y.lo) * plotH(); }
};

void header(std::ostringstream& s, const Frame& f, const std::string& title) {
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f.width << "\" height=\"" << f.height
    << "\" viewBox=\"0 0 " << f.width << " " << f.height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<title>" << xmlEscape(title) << "</title>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << f.width << "\" height=\"" << f.height << "\" fill=\"#ffffff\"/>\n"
    << "<text class=\"title\" x=\"" << px(f.width / 2.0) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" "
    << "font-weight=\"bold\">" << xmlEscape(title) << "</text>\n";
}

// Horizontal grid lines with the y tick labels, the axis lines and both axis labels.
void yAxisAndLabels(std::ostringstream& s, const Frame& f, const std::string& xLabel, const std::string& yLabel) {
  s << "<g class=\"y-ticks\">\n";
  for (double v : f.y.values) {
    const std::string y = px(f.mapY(v));
    s << "<line x1=\"" << px(f.left) << "\" y1=\"" << y << "\" x2=\"" << px(f.right) << "\" y2=\"" << y
      << "\" stroke=\"#e0e0e0\"/>\n"
      << "<text class=\"tick\" x=\"" << px(f.left - 6) << "\" y=\"" << px(f.mapY(v) + 4) << "\" text-anchor=\"end\">"
      << formatTick(v, f.y.decimals) << "</text>\n";
  }
  s << "</g>\n";
  s << "<line x1=\"" << px(f.left) << "\" y1=\"" << px(f.bottom) << "\" x2=\"" << px(f.right) << "\" y2=\""
    << px(f.bottom) << "\" stroke=\"#333333\"/>\n"
    << "<line x1=\"" << px(f.left) << "\" y1=\"" << px(f.top) << "\" x2=\"" << px(f.left) << "\" y2=\""
    << px(f.bottom) << "\" stroke=\"#333333\"/>\n";
  s << "<text class=\"xlabel\" x=\"" << px((f.left + f.right) / 2) << "\" y=\"" << px(f.height - 12.0)
    << "\" text-anchor=\"middle\">" << xmlEscape(xLabel) << "</text>\n";
  const double cy = (f.top + f.bottom) / 2;
  s << "<text class=\"ylabel\" x=\"16\" y=\"" << px(cy) << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
    << px(cy) << ")\">" << xmlEscape(yLabel) << "</text>\n";
}

void referenceLines(std::ostringstream& s, const Frame& f, const std::vector<ReferenceLine>& refs) {
  for (const ReferenceLine& r : refs) {
    if (isMissing(r.y) || r.y < f.y.lo || r.y > f.y.hi) continue;
    const std::string y = px(f.mapY(r.y));
    s << "<g class=\"reference\"><line x1=\"" << px(f.left) << "\" y1=\"" << y << "\" x2=\"" << px(f.right)
      << "\" y2=\"" << y << "\" stroke=\"#555555\" stroke-dasharray=\"6 4\"/>"
      // A white halo under the label keeps it readable where it crosses a bar or a line.
      << "<text x=\"" << px(f.right - 4) << "\" y=\"" << px(f.mapY(r.y) - 4) << "\" text-anchor=\"end\" fill=\"#555555\" "
      << "stroke=\"#ffffff\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\">"
      << xmlEscape(r.label) << "</text></g>\n";
  }
}

// Legend text in lines of at most `width` characters, broken between words (a longer word
// stands alone): the legend column right of the plot is about 150 px, 24 characters of 12 px
// sans-serif, and SVG text does not wrap by itself.
std::vector<std::string> wrapWords(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!lines.empty() && lines.back().size() + 1 + word.size() <= width) lines.back() += " " + word;
    else lines.push_back(word);
  }
  if (lines.empty()) lines.push_back("");
  return lines;
}

struct LegendRow {
  std::string text;
  size_t colourIndex;
};

// The legend at the right of the plot, top down; each row's text wrapped to the column, a
// wrapped row taking the lines it needs.
void legend(std::ostringstream& s, const Frame& f, const std::vector<LegendRow>& rows, bool squares) {
  constexpr size_t kLegendChars = 24;
  constexpr double kRowGap = 20, kLineHeight = 14;
  s << "<g class=\"legend\">\n";
  double y = f.top + 8;
  for (const LegendRow& row : rows) {
    const double x = f.right + 16;
    if (squares)
      s << "<rect x=\"" << px(x) << "\" y=\"" << px(y - 6) << "\" width=\"14\" height=\"12\" fill=\""
        << colour(row.colourIndex) << "\"/>";
    else
      s << "<line x1=\"" << px(x) << "\" y1=\"" << px(y) << "\" x2=\"" << px(x + 14) << "\" y2=\"" << px(y)
        << "\" stroke=\"" << colour(row.colourIndex) << "\" stroke-width=\"3\"/>";
    const std::vector<std::string> lines = wrapWords(row.text, kLegendChars);
    s << "<text x=\"" << px(x + 20) << "\" y=\"" << px(y + 4) << "\">";
    for (size_t i = 0; i < lines.size(); ++i)
      s << "<tspan x=\"" << px(x + 20) << "\" dy=\"" << (i == 0 ? "0" : px(kLineHeight)) << "\">" << xmlEscape(lines[i])
        << "</tspan>";
    s << "</text>\n";
    y += kRowGap + kLineHeight * double(lines.size() - 1);
  }
  s << "</g>\n";
}

// A series' legend rows in drawing order, "(no data)" after an empty one.
std::vector<LegendRow> legendRows(const std::vector<std::string>& names, const std::vector<bool>& hasData) {
  std::vector<LegendRow> rows;
  for (size_t i = 0; i < names.size(); ++i) rows.push_back({names[i] + (hasData[i] ? "" : " (no data)"), i});
  return rows;
}

void noDataNote(std::ostringstream& s, const Frame& f) {
  s << "<text class=\"no-data\" x=\"" << px((f.left + f.right) / 2) << "\" y=\"" << px((f.top + f.bottom) / 2)
    << "\" text-anchor=\"middle\" fill=\"#888888\" font-size=\"14\">no data yet</text>\n";
}

bool isWhole(double v) { return std::fabs(v - std::round(v)) < 1e-9; }

template <typename Series>  // BarSeries or LineSeries: both have low and high
bool hasErrorBar(const Series& series, size_t i) {
  return i < series.low.size() && i < series.high.size() && !isMissing(series.low[i]) && !isMissing(series.high[i]);
}

}  // namespace

Ticks niceTicks(double lo, double hi, int target, double minStep) {
  if (isMissing(lo) || isMissing(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {  // one value: a range around it
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  target = std::max(target, 2);
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  Ticks t;
  t.step = std::max(nice * magnitude, minStep);
  // The epsilon keeps a bound that is already a multiple of the step (0, 1) from growing a tick.
  const double first = std::floor(lo / t.step + 1e-9), last = std::ceil(hi / t.step - 1e-9);
  t.lo = first * t.step;
  t.hi = last * t.step;
  for (double k = first; k <= last + 0.5; k += 1) t.values.push_back(k * t.step);
  t.decimals = std::max(0, int(-std::floor(std::log10(t.step) + 1e-9)));
  return t;
}

std::string formatTick(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, decimals), value);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // "-0.0" -> "0.0"
  return s;
}

std::string formatNumber(double value, int decimals) {
  if (isMissing(value)) return "";
  std::string s = formatTick(value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

// The x axis of a line or area chart: tick marks and labels.
void xTicks(std::ostringstream& s, const Frame& f) {
  s << "<g class=\"x-ticks\">\n";
  for (double v : f.x.values) {
    const std::string x = px(f.mapX(v));
    s << "<line x1=\"" << x << "\" y1=\"" << px(f.bottom) << "\" x2=\"" << x << "\" y2=\"" << px(f.bottom + 5)
      << "\" stroke=\"#333333\"/>"
      << "<text class=\"tick\" x=\"" << x << "\" y=\"" << px(f.bottom + 18) << "\" text-anchor=\"middle\">"
      << formatTick(v, f.x.decimals) << "</text>\n";
  }
  s << "</g>\n";
}

std::string renderStacked(const LineChart& chart) {
  Frame f(chart.width, chart.height);
  const std::vector<double> xs = chart.series.empty() ? std::vector<double>{} : chart.series.front().x;
  std::vector<double> below(xs.size(), 0.0);
  double xlo = INFINITY, xhi = -INFINITY, top = 0;
  bool wholeX = true;
  for (double x : xs) {
    if (isMissing(x)) continue;
    xlo = std::min(xlo, x), xhi = std::max(xhi, x);
    wholeX = wholeX && isWhole(x);
  }
  auto valueAt = [](const LineSeries& series, size_t i) {
    return i < series.y.size() && !isMissing(series.y[i]) ? std::max(0.0, series.y[i]) : 0.0;
  };
  for (size_t i = 0; i < xs.size(); ++i) {
    double sum = 0;
    for (const LineSeries& series : chart.series) sum += valueAt(series, i);
    top = std::max(top, sum);
  }
  const bool empty = xlo > xhi;
  if (empty) xlo = 0, xhi = 1;
  f.x = niceTicks(xlo, xhi, 6, wholeX ? 1 : 0);
  f.y = chart.fixedY ? niceTicks(chart.yMin, chart.yMax, 5) : niceTicks(0, std::max(top, 1e-9), 5);

  std::ostringstream s;
  header(s, f, chart.title);
  xTicks(s, f);
  yAxisAndLabels(s, f, chart.xLabel, chart.yLabel);
  std::vector<std::string> names;
  std::vector<bool> hasData;
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const LineSeries& series = chart.series[k];
    std::vector<double> upper(xs.size());
    bool any = false;
    for (size_t i = 0; i < xs.size(); ++i) {
      upper[i] = below[i] + valueAt(series, i);
      any = any || valueAt(series, i) > 0;
    }
    // The band: along its top edge left to right, back along its bottom edge.
    std::string points;
    for (size_t i = 0; i < xs.size(); ++i)
      if (!isMissing(xs[i])) points += (points.empty() ? "" : " ") + px(f.mapX(xs[i])) + "," + px(f.mapY(upper[i]));
    for (size_t i = xs.size(); i-- > 0;)
      if (!isMissing(xs[i])) points += " " + px(f.mapX(xs[i])) + "," + px(f.mapY(below[i]));
    s << "<g class=\"series\" data-name=\"" << xmlEscape(series.name) << "\">\n";
    if (xs.size() >= 2 && any)
      s << "<polygon class=\"band\" fill=\"" << colour(k) << "\" fill-opacity=\"0.85\" stroke=\"#ffffff\" "
        << "stroke-width=\"0.8\" points=\"" << points << "\"/>\n";
    // A point per x, for the hover text (and a lone checkpoint, which has no band to draw).
    for (size_t i = 0; i < xs.size(); ++i) {
      if (isMissing(xs[i]) || valueAt(series, i) <= 0) continue;
      s << "<rect x=\"" << px(f.mapX(xs[i]) - 2) << "\" y=\"" << px(f.mapY(upper[i])) << "\" width=\"4\" height=\""
        << px(std::max(0.0, f.mapY(below[i]) - f.mapY(upper[i]))) << "\" fill=\"" << colour(k)
        << "\" fill-opacity=\"0\"><title>"
        << xmlEscape(series.name) << ": " << formatNumber(xs[i], 4) << ", " << formatNumber(valueAt(series, i), 4)
        << "</title></rect>\n";
    }
    s << "</g>\n";
    below = upper;
    names.push_back(series.name);
    hasData.push_back(any);
  }
  if (empty) noDataNote(s, f);
  // The legend from the top band down, the order they are stacked in on the chart.
  std::vector<std::string> reversedNames(names.rbegin(), names.rend());
  std::vector<bool> reversedData(hasData.rbegin(), hasData.rend());
  std::vector<LegendRow> rows;
  for (size_t j = 0; j < reversedNames.size(); ++j)
    rows.push_back({reversedNames[j] + (reversedData[j] ? "" : " (no data)"), names.size() - 1 - j});
  legend(s, f, rows, true);
  s << "</svg>\n";
  return s.str();
}

}  // namespace

std::string renderSvg(const LineChart& chart) {
  if (chart.stacked) return renderStacked(chart);
  Frame f(chart.width, chart.height);
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  bool wholeX = true;
  std::vector<bool> hasData;
  for (const LineSeries& series : chart.series) {
    bool any = false;
    for (size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
      if (isMissing(series.x[i]) || isMissing(series.y[i])) continue;
      any = true;
      xlo = std::min(xlo, series.x[i]);
      xhi = std::max(xhi, series.x[i]);
      ylo = std::min(ylo, series.y[i]);
      yhi = std::max(yhi, series.y[i]);
      wholeX = wholeX && isWhole(series.x[i]);
      if (hasErrorBar(series, i)) ylo = std::min(ylo, series.low[i]), yhi = std::max(yhi, series.high[i]);
    }
    hasData.push_back(any);
  }
  const bool empty = xlo > xhi;
  if (empty) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  for (const ReferenceLine& r : chart.references)
    if (!isMissing(r.y)) ylo = std::min(ylo, r.y), yhi = std::max(yhi, r.y);
  if (chart.yFromZero) ylo = std::min(ylo, 0.0), yhi = std::max(yhi, 0.0);
  f.x = niceTicks(xlo, xhi, 6, wholeX ? 1 : 0);
  f.y = chart.fixedY ? niceTicks(chart.yMin, chart.yMax, 5) : niceTicks(ylo, yhi, 5);

  std::ostringstream s;
  header(s, f, chart.title);
  xTicks(s, f);
  yAxisAndLabels(s, f, chart.xLabel, chart.yLabel);
  referenceLines(s, f, chart.references);
  std::vector<std::string> names;
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const LineSeries& series = chart.series[k];
    names.push_back(series.name);
    s << "<g class=\"series\" data-name=\"" << xmlEscape(series.name) << "\">\n";
    // One polyline per unbroken run of points; a missing value ends the run.
    std::string points;
    auto flush = [&] {
      if (points.empty()) return;
      s << "<polyline fill=\"none\" stroke=\"" << colour(k) << "\" stroke-width=\"2\""
        << (series.dashed ? " stroke-dasharray=\"5 3\"" : "") << " points=\"" << points << "\"/>\n";
      points.clear();
    };
    const size_t n = std::min(series.x.size(), series.y.size());
    for (size_t i = 0; i < n; ++i) {
      if (isMissing(series.x[i]) || isMissing(series.y[i])) {
        flush();
        continue;
      }
      if (!points.empty()) points += ' ';
      points += px(f.mapX(series.x[i])) + "," + px(f.mapY(series.y[i]));
    }
    flush();
    for (size_t i = 0; i < n; ++i) {
      if (isMissing(series.x[i]) || isMissing(series.y[i]) || !hasErrorBar(series, i)) continue;
      const std::string x = px(f.mapX(series.x[i]));
      s << "<line class=\"error-bar\" x1=\"" << x << "\" y1=\"" << px(f.mapY(series.low[i])) << "\" x2=\"" << x
        << "\" y2=\"" << px(f.mapY(series.high[i])) << "\" stroke=\"" << colour(k) << "\" stroke-width=\"1.5\"/>\n";
    }
    if (series.markers)
      for (size_t i = 0; i < n; ++i) {
        if (isMissing(series.x[i]) || isMissing(series.y[i])) continue;
        s << "<circle cx=\"" << px(f.mapX(series.x[i])) << "\" cy=\"" << px(f.mapY(series.y[i]))
          << "\" r=\"3\" fill=\"" << colour(k) << "\"><title>" << xmlEscape(series.name) << ": "
          << formatNumber(series.x[i], 4) << ", " << formatNumber(series.y[i], 4) << "</title></circle>\n";
      }
    s << "</g>\n";
  }
  if (empty) noDataNote(s, f);
  legend(s, f, legendRows(names, hasData), false);
  s << "</svg>\n";
  return s.str();
}

std::string renderSvg(const BarChart& chart) {
  Frame f(chart.width, chart.height);
  const size_t n = chart.categories.size();
  double ylo = 0, yhi = 0;
  bool any = false;
  std::vector<bool> hasData;
  for (const BarSeries& series : chart.series) {
    bool some = false;
    for (size_t i = 0; i < std::min(n, series.values.size()); ++i)
      if (!isMissing(series.values[i])) some = any = true;
    hasData.push_back(some);
  }
  for (size_t i = 0; i < n; ++i) {
    double up = 0, down = 0;
    for (const BarSeries& series : chart.series) {
      if (i >= series.values.size() || isMissing(series.values[i])) continue;
      const double v = series.values[i];
      if (chart.stacked) (v >= 0 ? up : down) += v;
      else up = std::max(up, v), down = std::min(down, v);
      if (!chart.stacked && hasErrorBar(series, i))
        up = std::max(up, series.high[i]), down = std::min(down, series.low[i]);
    }
    yhi = std::max(yhi, up);
    ylo = std::min(ylo, down);
  }
  if (!any) yhi = 1;
  for (const ReferenceLine& r : chart.references)
    if (!isMissing(r.y)) ylo = std::min(ylo, r.y), yhi = std::max(yhi, r.y);
  f.y = chart.fixedY ? niceTicks(chart.yMin, chart.yMax, 5) : niceTicks(ylo, yhi, 5);

  std::ostringstream s;
  header(s, f, chart.title);
  yAxisAndLabels(s, f, chart.xLabel, chart.yLabel);
  const double band = n ? f.plotW() / double(n) : f.plotW();
  // Label every k-th category so labels (about 40 px each) never overlap.
  const size_t every = std::max<size_t>(1, size_t(std::ceil(40.0 / band)));
  s << "<g class=\"x-ticks\">\n";
  for (size_t i = 0; i < n; i += every)
    s << "<text class=\"tick\" x=\"" << px(f.left + band * (double(i) + 0.5)) << "\" y=\"" << px(f.bottom + 18)
      << "\" text-anchor=\"middle\">" << xmlEscape(chart.categories[i]) << "</text>\n";
  s << "</g>\n";
  const size_t m = std::max<size_t>(1, chart.series.size());
  const double barW = chart.stacked ? band * 0.7 : band * 0.8 / double(m);
  std::vector<double> up(n, 0), down(n, 0);
  std::vector<std::string> names;
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const BarSeries& series = chart.series[k];
    names.push_back(series.name);
    s << "<g class=\"series\" data-name=\"" << xmlEscape(series.name) << "\">\n";
    for (size_t i = 0; i < std::min(n, series.values.size()); ++i) {
      const double v = series.values[i];
      if (isMissing(v)) continue;
      double from = 0, to = v, x;
      if (chart.stacked) {
        double& base = v >= 0 ? up[i] : down[i];
        from = base;
        to = base + v;
        base = to;
        x = f.left + band * (double(i) + 0.15);
      } else {
        x = f.left + band * (double(i) + 0.1) + barW * double(k);
      }
      const double y1 = f.mapY(std::max(from, to)), y2 = f.mapY(std::min(from, to));
      s << "<rect x=\"" << px(x) << "\" y=\"" << px(y1) << "\" width=\"" << px(barW) << "\" height=\""
        << px(y2 - y1) << "\" fill=\"" << colour(k) << "\"><title>" << xmlEscape(series.name) << ", "
        << xmlEscape(chart.categories[i]) << ": " << formatNumber(v, 4) << "</title></rect>\n";
      if (chart.stacked || !hasErrorBar(series, i)) continue;
      // The whisker: a vertical line over the bar's middle with short caps at both ends.
      const double cx = x + barW / 2, cap = std::min(8.0, barW / 4);
      const std::string lo = px(f.mapY(series.low[i])), hi = px(f.mapY(series.high[i]));
      s << "<g class=\"error-bar\" stroke=\"#333333\" stroke-width=\"1.5\"><title>" << xmlEscape(series.name) << ", "
        << xmlEscape(chart.categories[i]) << ": " << formatNumber(series.low[i], 4) << " to "
        << formatNumber(series.high[i], 4) << "</title>"
        << "<line x1=\"" << px(cx) << "\" y1=\"" << lo << "\" x2=\"" << px(cx) << "\" y2=\"" << hi << "\"/>"
        << "<line x1=\"" << px(cx - cap) << "\" y1=\"" << lo << "\" x2=\"" << px(cx + cap) << "\" y2=\"" << lo << "\"/>"
        << "<line x1=\"" << px(cx - cap) << "\" y1=\"" << hi << "\" x2=\"" << px(cx + cap) << "\" y2=\"" << hi
        << "\"/></g>\n";
    }
    s << "</g>\n";
  }
  referenceLines(s, f, chart.references);  // drawn over the bars so a threshold stays visible
  if (!any) noDataNote(s, f);
  legend(s, f, legendRows(names, hasData), true);
  s << "</svg>\n";
  return s.str();
}

std::string toCsv(const LineChart& chart) {
  // One row per x; a series with error bars gets two more columns, its interval's bounds.
  struct Point {
    double y = kMissing, low = kMissing, high = kMissing;
  };
  std::vector<double> xs;
  std::vector<std::map<double, Point>> byX(chart.series.size());
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const LineSeries& series = chart.series[k];
    for (size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
      if (isMissing(series.x[i])) continue;
      xs.push_back(series.x[i]);
      if (isMissing(series.y[i])) continue;
      Point p{series.y[i]};
      if (hasErrorBar(series, i)) p.low = series.low[i], p.high = series.high[i];
      byX[k].emplace(series.x[i], p);
    }
  }
  auto hasInterval = [](const LineSeries& s) { return !s.low.empty() || !s.high.empty(); };
  auto number = [](double v) { return isMissing(v) ? std::string() : formatNumber(v); };
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::string out = csvField(chart.xLabel);
  for (const LineSeries& series : chart.series) {
    out += "," + csvField(series.name);
    if (hasInterval(series)) out += "," + csvField(series.name + " (low)") + "," + csvField(series.name + " (high)");
  }
  out += "\n";
  for (double x : xs) {
    out += formatNumber(x);
    for (size_t k = 0; k < chart.series.size(); ++k) {
      const auto it = byX[k].find(x);
      const Point p = it == byX[k].end() ? Point{} : it->second;
      out += "," + number(p.y);
      if (hasInterval(chart.series[k])) out += "," + number(p.low) + "," + number(p.high);
    }
    out += "\n";
  }
  return out;
}

std::string toCsv(const BarChart& chart) {
  // A series with error bars gets two more columns, its interval's bounds.
  auto hasInterval = [](const BarSeries& s) { return !s.low.empty() || !s.high.empty(); };
  auto value = [](const std::vector<double>& v, size_t i) { return i < v.size() ? formatNumber(v[i]) : std::string(); };
  std::string out = csvField(chart.xLabel);
  for (const BarSeries& series : chart.series) {
    out += "," + csvField(series.name);
    if (hasInterval(series)) out += "," + csvField(series.name + " (low)") + "," + csvField(series.name + " (high)");
  }
  out += "\n";
  for (size_t i = 0; i < chart.categories.size(); ++i) {
    out += csvField(chart.categories[i]);
    for (const BarSeries& series : chart.series) {
      out += "," + value(series.values, i);
      if (hasInterval(series)) out += "," + value(series.low, i) + "," + value(series.high, i);
    }
    out += "\n";
  }
  return out;
}

}  // namespace poppy::report
