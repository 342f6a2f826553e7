// Reports of training runs: the SVG chart writer (well-formed XML, escaped text, one polyline per
// unbroken series, sensible ticks, CSV), the reader of a run's metrics.jsonl / games.jsonl
// (known sums, bad lines skipped and reported by FILE:LINE), the report folder, and the real
// `poppy report` and `poppy openings history` on a tiny run made by `poppy train`, with their
// errors for a missing directory, a directory that is not a run and a run without metrics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/opening_history.h"
#include "report/run_metrics.h"
#include "report/run_report.h"
#include "report/svg_chart.h"
#include "selfplay/game_record.h"
#include "support/scratch_files.h"
#include "support/xml_check.h"

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;
using namespace poppy::report;

namespace {

const std::string kScratch = "poppy_test_report_";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup = poppy::testing::removeScratchRootAtExit(kScratch);
fs::path freshDir(const std::string& name) { return poppy::testing::freshTempDir(kScratch, name); }
// A test's files stay for inspection when something failed, and go otherwise.
void removeUnlessFailed(const fs::path& dir) {
  if (!::testing::UnitTest::GetInstance()->Failed()) fs::remove_all(dir);
}
using poppy::testing::slurp;
using poppy::testing::spit;

// ---------------------------------------------------------------------------------------------
using poppy::testing::xmlProblem;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t i = text.find(needle); i != std::string::npos; i = text.find(needle, i + needle.size())) ++n;
  return n;
}

// The contents of each series group (<g class="series" data-name="NAME"> ... </g>), by name.
std::map<std::string, std::string> seriesGroups(const std::string& svg) {
  std::map<std::string, std::string> out;
  const std::regex group("<g class=\"series\" data-name=\"([^\"]*)\">([\\s\\S]*?)</g>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), group), end; it != end; ++it) out[(*it)[1]] = (*it)[2];
  return out;
}

// The points of every polyline in the text, as (x, y) pairs.
std::vector<std::vector<std::pair<double, double>>> polylines(const std::string& svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  const std::regex line("<polyline[^>]* points=\"([^\"]*)\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), line), end; it != end; ++it) {
    std::vector<std::pair<double, double>> points;
    std::istringstream in((*it)[1].str());
    for (std::string pair; in >> pair;) {
      const size_t comma = pair.find(',');
      points.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
    }
    out.push_back(points);
  }
  return out;
}

// The points of every band of a stacked area chart (<polygon class="band">), as (x, y) pairs: the
// top edge left to right, then the bottom edge right to left.
std::vector<std::vector<std::pair<double, double>>> bands(const std::string& svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  const std::regex band("<polygon class=\"band\"[^>]* points=\"([^\"]*)\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), band), end; it != end; ++it) {
    std::vector<std::pair<double, double>> points;
    std::istringstream in((*it)[1].str());
    for (std::string pair; in >> pair;) {
      const size_t comma = pair.find(',');
      points.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
    }
    out.push_back(points);
  }
  return out;
}

std::vector<std::string> tickLabels(const std::string& svg, const std::string& axis) {
  std::vector<std::string> out;
  const size_t start = svg.find("<g class=\"" + axis + "-ticks\">");
  const size_t end = svg.find("</g>", start);
  const std::string part = svg.substr(start, end - start);
  const std::regex label("<text class=\"tick\"[^>]*>([^<]*)</text>");
  for (std::sregex_iterator it(part.begin(), part.end(), label), e; it != e; ++it) out.push_back((*it)[1]);
  return out;
}

void expectNiceTicks(double lo, double hi) {
  SCOPED_TRACE(std::to_string(lo) + ".." + std::to_string(hi));
  const Ticks t = niceTicks(lo, hi, 5);
  EXPECT_LE(t.lo, lo);
  EXPECT_GE(t.hi, hi);
  EXPECT_GE(t.values.size(), 3u);
  EXPECT_LE(t.values.size(), 11u);
  // The step is 1, 2 or 5 times a power of ten, and the ticks are its multiples.
  const double mantissa = t.step / std::pow(10.0, std::floor(std::log10(t.step)));
  EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
      << t.step;
  for (size_t i = 0; i < t.values.size(); ++i) {
    EXPECT_NEAR(t.values[i], t.lo + double(i) * t.step, 1e-9 * std::max(1.0, std::fabs(t.hi)));
    EXPECT_NEAR(std::remainder(t.values[i], t.step), 0, 1e-9 * std::max(1.0, std::fabs(t.values[i])));
  }
  EXPECT_DOUBLE_EQ(t.values.back(), t.hi);
  // Not wastefully wide: the data fill more than a third of the axis.
  EXPECT_GT(hi - lo, (t.hi - t.lo) / 3);
  if (lo < 0 && hi > 0) {
    const bool zero = std::any_of(t.values.begin(), t.values.end(), [](double v) { return std::fabs(v) < 1e-12; });
    EXPECT_TRUE(zero) << "0 is a tick when the range crosses it";
  }
}

// ---------------------------------------------------------------------------------------------
// svg_chart

TEST(SvgChart, TheXmlCheckerCatchesBadDocuments) {
  EXPECT_EQ(xmlProblem("<a x=\"1\"><b/>t &amp; u</a>"), "");
  EXPECT_NE(xmlProblem("<a><b></a>"), "");
  EXPECT_NE(xmlProblem("<a>t & u</a>"), "");
  EXPECT_NE(xmlProblem("<a>1 < 2</a>"), "");
  EXPECT_NE(xmlProblem("<a x=\"<\"/>"), "");
  EXPECT_NE(xmlProblem("<a>"), "");
  EXPECT_NE(xmlProblem("<a/><b/>"), "");
}

TEST(SvgChart, TicksAreNiceForCommonRanges) {
  expectNiceTicks(0, 1);
  expectNiceTicks(0, 37);
  expectNiceTicks(-3.5, 5);
  expectNiceTicks(-120, -7);
  expectNiceTicks(0.0012, 0.0047);
  expectNiceTicks(1500, 2300);
  const Ticks unit = niceTicks(0, 1, 5);
  EXPECT_DOUBLE_EQ(unit.lo, 0);
  EXPECT_DOUBLE_EQ(unit.hi, 1);
  EXPECT_EQ(unit.decimals, 1);
  const Ticks thirtySeven = niceTicks(0, 37, 5);
  EXPECT_DOUBLE_EQ(thirtySeven.step, 10);
  EXPECT_DOUBLE_EQ(thirtySeven.hi, 40);
  EXPECT_EQ(thirtySeven.decimals, 0);
  // One value: a range around it; whole-number axes never get a tick between two integers.
  const Ticks one = niceTicks(3, 3, 5);
  EXPECT_LT(one.lo, 3);
  EXPECT_GT(one.hi, 3);
  EXPECT_GE(niceTicks(0, 2, 6, 1).step, 1);
  EXPECT_EQ(formatTick(-0.0001, 2), "0.00");
  EXPECT_EQ(formatTick(-0.5, 1), "-0.5");
  EXPECT_EQ(formatNumber(0.25), "0.25");
  EXPECT_EQ(formatNumber(3.0), "3");
  EXPECT_EQ(formatNumber(kMissing), "");
}

LineChart threeSeries() {
  LineChart c;
  c.title = "Losses <per step> & \"more\"";
  c.xLabel = "steps";
  c.yLabel = "loss (nats)";
  c.series.push_back({"policy", {0, 10, 20, 30}, {3.2, 2.9, 2.5, 2.4}});
  c.series.push_back({"value & <wdl>", {0, 10, 20, 30}, {1.1, 1.0, 0.9, 0.95}});
  c.series.push_back({"total", {0, 10, 20, 30}, {4.3, 3.9, 3.4, 3.35}});
  return c;
}

TEST(SvgChart, LineChartIsWellFormedWithOnePolylinePerSeries) {
  const LineChart c = threeSeries();
  const std::string svg = renderSvg(c);
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(svg, "<polyline"), 3u);
  const auto groups = seriesGroups(svg);
  ASSERT_EQ(groups.size(), 3u);
  for (const auto& [name, body] : groups) {
    EXPECT_EQ(count(body, "<polyline"), 1u) << name;
    EXPECT_EQ(count(body, "<circle"), 4u) << name;
  }
  // Text is escaped, in the title, the legend and the series' attribute.
  EXPECT_THAT(svg, HasSubstr("Losses &lt;per step&gt; &amp; &quot;more&quot;"));
  EXPECT_THAT(svg, HasSubstr("value &amp; &lt;wdl&gt;"));
  EXPECT_THAT(svg, Not(HasSubstr("<wdl>")));
  EXPECT_THAT(svg, HasSubstr(">steps</text>"));
  EXPECT_THAT(svg, HasSubstr(">loss (nats)</text>"));
  // Every point lies inside the plot area; the first x is at its left edge, the last at its right.
  double minX = 1e9, maxX = -1e9;
  for (const auto& line : polylines(svg))
    for (const auto& [x, y] : line) {
      EXPECT_GE(x, 0);
      EXPECT_LE(x, c.width);
      EXPECT_GE(y, 30);
      EXPECT_LE(y, c.height - 40);
      minX = std::min(minX, x);
      maxX = std::max(maxX, x);
    }
  EXPECT_LT(minX + 300, maxX);
  // Same data, same bytes.
  EXPECT_EQ(svg, renderSvg(threeSeries()));
}

TEST(SvgChart, TickLabelsFollowTheData) {
  LineChart c;
  c.title = "counts";
  c.series.push_back({"games", {1, 2, 3}, {0, 20, 37}});
  c.yFromZero = true;
  const std::string svg = renderSvg(c);
  EXPECT_EQ(tickLabels(svg, "y"), (std::vector<std::string>{"0", "10", "20", "30", "40"}));
  EXPECT_EQ(tickLabels(svg, "x"), (std::vector<std::string>{"1", "2", "3"}));  // whole x: no 1.5

  LineChart shares;
  shares.series.push_back({"share", {0.5, 1.5}, {0.1, 0.8}});
  shares.fixedY = true;
  EXPECT_EQ(tickLabels(renderSvg(shares), "y"), (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));

  LineChart negative;
  negative.series.push_back({"elo", {0, 1, 2}, {-35, 12, -7}});
  negative.references.push_back({0, "zero"});
  const std::string svg2 = renderSvg(negative);
  EXPECT_EQ(xmlProblem(svg2), "");
  const auto labels = tickLabels(svg2, "y");
  ASSERT_FALSE(labels.empty());
  EXPECT_LE(std::stod(labels.front()), -35);
  EXPECT_GE(std::stod(labels.back()), 12);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "0"), labels.end());
  for (const auto& l : labels) EXPECT_NE(l, "-0");
  EXPECT_THAT(svg2, HasSubstr("class=\"reference\""));
}

TEST(SvgChart, MissingDataBreaksLinesAndIsSaidInTheLegend) {
  LineChart c;
  c.title = "gaps";
  c.series.push_back({"broken", {0, 1, 2, 3, 4}, {1, 2, kMissing, 4, 5}});
  c.series.push_back({"empty", {0, 1}, {kMissing, kMissing}});
  c.series.push_back({"lonely", {2}, {3}});
  const std::string svg = renderSvg(c);
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  const auto groups = seriesGroups(svg);
  EXPECT_EQ(count(groups.at("broken"), "<polyline"), 2u);
  EXPECT_EQ(count(groups.at("broken"), "<circle"), 4u);
  EXPECT_EQ(count(groups.at("empty"), "<polyline"), 0u);
  EXPECT_EQ(count(groups.at("lonely"), "<circle"), 1u);  // a single point still shows
  EXPECT_THAT(svg, HasSubstr("empty (no data)"));
  EXPECT_THAT(svg, Not(HasSubstr("broken (no data)")));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));

  LineChart none;
  none.title = "nothing";
  none.series.push_back({"a", {}, {}});
  const std::string empty = renderSvg(none);
  EXPECT_EQ(xmlProblem(empty), "");
  EXPECT_THAT(empty, HasSubstr("no data yet"));
}

// Issue 39 (13): a legend name longer than the column right of the plot (24 characters of 12 px
// text in ~150 px) is broken between words into lines that fit, instead of running off a 720 px
// chart; a reference line's label has a white halo, so it stays readable across a bar.
TEST(SvgChart, LongLegendNamesWrapAndReferenceLabelsHaveAHalo) {
  LineChart c;
  c.title = "value loss";
  c.width = 720;
  c.series = {{"a constant guess's value loss on them", {0, 1}, {0.5, 0.4}},
              {"the network's value loss on the held-out games", {0, 1}, {0.4, 0.3}}};
  c.references.push_back({0.45, "threshold"});
  const std::string svg = renderSvg(c);
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  std::vector<std::string> lines;
  for (size_t at = svg.find("<tspan"); at != std::string::npos; at = svg.find("<tspan", at + 1)) {
    const size_t open = svg.find('>', at) + 1;
    lines.push_back(svg.substr(open, svg.find("</tspan>", open) - open));
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"a constant guess&apos;s value", "loss on them",
                                             "the network&apos;s value loss", "on the held-out games"}))
      << svg;
  EXPECT_THAT(svg, HasSubstr("paint-order=\"stroke\">threshold</text>"));
}

TEST(SvgChart, BarChartsStackOrGroupAndWriteCsv) {
  BarChart c;
  c.title = "results";
  c.xLabel = "iteration";
  c.categories = {"0", "1", "2"};
  c.series = {{"sente wins", {0.5, 0.25, kMissing}}, {"draws", {0.25, 0.5, 1}}, {"gote, wins", {0.25, 0.25, 0}}};
  c.stacked = true;
  c.references.push_back({0.55, "threshold"});
  const std::string svg = renderSvg(c);
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  EXPECT_EQ(count(svg, "<rect") - 1 /*background*/ - 3 /*legend*/, 8u);  // one missing value: no bar
  EXPECT_THAT(svg, HasSubstr(">threshold</text>"));
  EXPECT_EQ(toCsv(c), "iteration,sente wins,draws,\"gote, wins\"\n0,0.5,0.25,0.25\n1,0.25,0.5,0.25\n2,,1,0\n");
  c.stacked = false;
  EXPECT_EQ(xmlProblem(renderSvg(c)), "");
}

TEST(SvgChart, BarErrorBarsAreDrawnAndWidenTheRange) {
  BarChart c;
  c.title = "ladder";
  c.categories = {"nodes:100", "nodes:1000", "movetime:200"};
  BarSeries s{"Elo", {120, -40, kMissing}};
  s.low = {60, -260, -100};  // the third has no bar, so no whisker either
  s.high = {180, 10, 100};
  c.series.push_back(s);
  c.references.push_back({0, "even"});
  const std::string svg = renderSvg(c);
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  EXPECT_EQ(count(svg, "class=\"error-bar\""), 2u);
  for (size_t at = svg.find("class=\"error-bar\""); at != std::string::npos;
       at = svg.find("class=\"error-bar\"", at + 1))
    EXPECT_EQ(count(svg.substr(at, svg.find("</g>", at) - at), "<line"), 3u);  // the whisker and two caps
  // The y axis reaches the whiskers' ends (-260), not only the bars' (-40).
  const auto labels = tickLabels(svg, "y");
  ASSERT_FALSE(labels.empty());
  EXPECT_LE(std::stod(labels.front()), -260);
  EXPECT_THAT(svg, HasSubstr("nodes:1000: -260 to 10"));
  // Stacked charts ignore them.
  c.stacked = true;
  EXPECT_EQ(count(renderSvg(c), "error-bar"), 0u);
}

TEST(SvgChart, LineCsvHasOneRowPerDistinctX) {
  LineChart c;
  c.xLabel = "step";
  c.series.push_back({"a", {0, 10}, {1, 2}});
  c.series.push_back({"b", {10, 20}, {5, kMissing}});
  EXPECT_EQ(toCsv(c), "step,a,b\n0,1,\n10,2,5\n20,,\n");
}

// ---------------------------------------------------------------------------------------------
// run_metrics on hand-written files

const char* kMetrics =
    R"({"event":"selfplay","games":3,"seconds":36,"games_per_hour":300,"avg_plies":40,"decisive":0.67,"time":1000,"iteration":0,"total_games":3,"step":0}
{"event":"train","steps":10,"seconds":2,"policy_loss":3.0,"value_loss":1.0,"window":120,"time":1002,"iteration":0,"total_games":3,"step":10}
{"event":"gate","games":4,"wins":3,"draws":0,"losses":1,"score":0.75,"elo_diff":191,"elo_margin":400,"promoted":true,"opponent":"gen-0000","new_best":"gen-0001","best_elo":191,"time":1010,"iteration":0,"total_games":3,"step":10}
{this is not json
{"event":"selfplay","games":2,"seconds":18,"time":1100,"iteration":1,"total_games":5,"step":10,"complete":false}
{"event":"train","steps":10,"policy_loss":2.5,"value_loss":0.75,"total_loss":3.5,"time":1105,"iteration":1,"total_games":5,"step":20}
{"event":"train","steps":10,"value_loss":0.75,"time":1106,"iteration":1,"total_games":5,"step":20}
{"event":"gate","games":4,"wins":1,"draws":1,"losses":2,"score":0.375,"promoted":false,"opponent":"gen-0001","time":1120,"iteration":1,"total_games":5,"step":20}
{"event":"fresh","samples":120,"fresh_policy_loss":2.75,"fresh_value_loss":1.25,"constant_value_loss":1.0,"time":1101,"iteration":1,"total_games":5,"step":10}
{"event":"something_new","time":1200}
[1,2,3]
)";

TEST(RunMetrics, ParsesEventsAndReportsBadLinesByFileAndLine) {
  const ParsedMetrics m = parseMetrics(kMetrics, "runs/x/metrics.jsonl");
  ASSERT_EQ(m.selfplay.size(), 2u);
  ASSERT_EQ(m.train.size(), 2u);
  ASSERT_EQ(m.gate.size(), 2u);
  EXPECT_EQ(m.unknownEvents, 1);
  ASSERT_EQ(m.problems.size(), 3u) << ::testing::PrintToString(m.problems);
  EXPECT_THAT(m.problems[0], HasSubstr("runs/x/metrics.jsonl:4: not JSON"));
  EXPECT_THAT(m.problems[1], HasSubstr("runs/x/metrics.jsonl:7: no \"policy_loss\""));
  EXPECT_THAT(m.problems[2], HasSubstr("runs/x/metrics.jsonl:11: not a JSON object"));
  int games = 0;
  for (const auto& e : m.selfplay) games += e.games;
  EXPECT_EQ(games, 5);
  EXPECT_DOUBLE_EQ(m.selfplay[1].gamesPerHour, 2 * 3600.0 / 18);  // not logged: games / seconds
  EXPECT_TRUE(m.selfplay[0].complete);  // no "complete" key (older runs): a whole phase
  EXPECT_FALSE(m.selfplay[1].complete);
  const ParsedMetrics bad = parseMetrics(
      R"({"event":"selfplay","games":1,"seconds":1,"time":1,"iteration":0,"total_games":1,"complete":"yes"})", "m.jsonl");
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_THAT(bad.problems[0], HasSubstr("m.jsonl:1: \"complete\" is not true or false"));
  EXPECT_DOUBLE_EQ(m.train[0].totalLoss, 4.0);                    // not logged: policy + value
  EXPECT_DOUBLE_EQ(m.train[1].totalLoss, 3.5);
  EXPECT_EQ(m.train[1].step, 20);
  EXPECT_TRUE(m.gate[0].promoted);
  EXPECT_EQ(m.gate[0].newBest, "gen-0001");
  EXPECT_DOUBLE_EQ(m.gate[0].bestElo, 191);
  EXPECT_FALSE(m.gate[1].promoted);
  EXPECT_EQ(m.gate[1].line, 8);
  ASSERT_EQ(m.fresh.size(), 1u);
  EXPECT_EQ(m.fresh[0].line, 9);
  EXPECT_EQ(m.fresh[0].step, 10);
  EXPECT_EQ(m.fresh[0].samples, 120);
  EXPECT_DOUBLE_EQ(m.fresh[0].valueLoss, 1.25);
  EXPECT_DOUBLE_EQ(m.fresh[0].constantValueLoss, 1.0);
  EXPECT_DOUBLE_EQ(m.fresh[0].policyLoss, 2.75);
}

poppy::selfplay::GameRecord record(int id, const std::string& result, int plies) {
  poppy::selfplay::GameRecord r;
  r.id = "chunk-" + std::to_string(id);
  r.variant = "micro";
  r.start = "kbgs/p3/4/3P/SGBK b - 1";
  r.result = result;
  r.reason = result == "draw" ? "ply_cap" : "checkmate";
  r.plies = plies;
  r.model = "gen-0000";
  return r;
}

// A run directory written by hand: 3 games in iteration 0, 2 in iteration 1, 1 in progress.
fs::path handWrittenRun(const std::string& name) {
  const fs::path dir = freshDir(name);
  spit(dir / "state.json",
       R"({"format":1,"iteration":2,"phase":"selfplay","games_at_iteration_start":5,"total_games":6,"total_samples":250,)"
       R"("generation":1,"best_elo":191,"seconds":130,"trained_this_iteration":false})");
  spit(dir / "config.yaml", "variant: micro\ngate: {games: 4, threshold: 0.6}\n");
  spit(dir / "metrics.jsonl", kMetrics);
  std::string games;
  const std::vector<poppy::selfplay::GameRecord> records = {record(0, "sente", 30), record(1, "sente", 50),
                                                            record(2, "draw", 40),  record(3, "gote", 21),
                                                            record(4, "gote", 23),  record(5, "sente", 11)};
  for (size_t i = 0; i < records.size(); ++i) {
    games += poppy::selfplay::gameRecordToJson(records[i]) + "\n";
    if (i == 1) games += "{\"id\": broken\n";  // line 3
  }
  spit(dir / "games.jsonl", games);
  return dir;
}

TEST(RunMetrics, GroupsGameRecordsByIteration) {
  const fs::path dir = handWrittenRun("grouping");
  const RunMetrics run = loadRunMetrics(dir.string());
  EXPECT_EQ(run.iteration, 2);
  EXPECT_EQ(run.totalGames, 6);
  EXPECT_EQ(run.variant, "micro");
  EXPECT_DOUBLE_EQ(run.gateThreshold, 0.6);
  for (const GateEvent& g : run.metrics.gate) EXPECT_DOUBLE_EQ(g.threshold, 0.6);  // from config.yaml
  EXPECT_EQ(run.gameRecords, 6);
  ASSERT_EQ(run.iterations.size(), 3u);
  EXPECT_EQ(run.iterations[0].iteration, 0);
  EXPECT_EQ(run.iterations[0].games, 3);
  EXPECT_EQ(run.iterations[0].senteWins, 2);
  EXPECT_EQ(run.iterations[0].draws, 1);
  EXPECT_EQ(run.iterations[0].goteWins, 0);
  EXPECT_DOUBLE_EQ(run.iterations[0].averagePlies(), 40);
  EXPECT_EQ(run.iterations[1].games, 2);
  EXPECT_EQ(run.iterations[1].goteWins, 2);
  EXPECT_DOUBLE_EQ(run.iterations[1].averagePlies(), 22);
  EXPECT_EQ(run.iterations[2].iteration, 2);  // the game of the iteration in progress
  EXPECT_EQ(run.iterations[2].games, 1);
  // Problems of both files, each naming the file and line.
  const std::string all = ::testing::PrintToString(run.problems);
  EXPECT_THAT(all, HasSubstr((dir / "metrics.jsonl").string() + ":4:"));
  EXPECT_THAT(all, HasSubstr((dir / "games.jsonl").string() + ":3:"));
  EXPECT_DOUBLE_EQ(run.startTime(), 1000 - 36);
  removeUnlessFailed(dir);
}

TEST(RunMetrics, ResumedSelfplayPhasesCountOnce) {
  // Iteration 0 was stopped after 2 games and resumed for 3 more: its last event has the total.
  std::vector<SelfplayEvent> events(3);
  events[0].iteration = 0, events[0].games = 2, events[0].totalGames = 2;
  events[1].iteration = 0, events[1].games = 3, events[1].totalGames = 5;
  events[2].iteration = 1, events[2].games = 4, events[2].totalGames = 9;
  std::vector<GameResultLite> games(9, {"draw", 10});
  const auto grouped = groupGamesByIteration(games, events, 2);
  ASSERT_EQ(grouped.size(), 2u);
  EXPECT_EQ(grouped[0].games, 5);
  EXPECT_EQ(grouped[1].games, 4);
}

TEST(RunReport, WritesEveryChartCsvAndIndex) {
  const fs::path dir = handWrittenRun("report");
  const RunMetrics run = loadRunMetrics(dir.string());
  const fs::path out = dir / "out";
  const auto written = writeRunReport(run, out.string());
  EXPECT_EQ(written.size(), 13u);
  for (const char* name : {"losses", "games-per-hour", "gates", "elo", "game-length", "results"}) {
    SCOPED_TRACE(name);
    const std::string svg = slurp(out / (std::string(name) + ".svg"));
    EXPECT_EQ(xmlProblem(svg), "");
    EXPECT_FALSE(slurp(out / (std::string(name) + ".csv")).empty());
  }
  const std::string index = slurp(out / "index.html");
  for (const char* name : {"losses.svg", "gates.svg", "elo.svg", "results.svg", "losses.csv"})
    EXPECT_THAT(index, HasSubstr(name));
  EXPECT_THAT(index, HasSubstr("metrics.jsonl:4: not JSON"));
  EXPECT_THAT(index, HasSubstr("<td>6</td>"));  // self-play games
  // The numbers behind the charts, from the hand-written files.
  // The fresh event (line 9) measured the network of step 10 on iteration 1's games.
  EXPECT_EQ(slurp(out / "losses.csv"),
            "training steps,policy loss,value loss,total loss,value loss on new games (before training on them),"
            "a constant guess's value loss on them\n10,3,1,4,1.25,1\n20,2.5,0.75,3.5,,\n");
  EXPECT_EQ(slurp(out / "game-length.csv"), "iteration,average plies\n0,40\n1,22\n2,11\n");
  EXPECT_EQ(slurp(out / "elo.csv"), "generation of the best model,best model\n0,0\n1,191\n");
  EXPECT_EQ(slurp(out / "gates.csv"), "iteration,promoted,kept\n0,0.75,\n1,,0.375\n");
  EXPECT_THAT(slurp(out / "gates.svg"), HasSubstr("pass threshold 0.6"));
  // The phase marked incomplete is its own series; the summary quotes the last whole phase.
  EXPECT_THAT(slurp(out / "games-per-hour.csv"), HasSubstr("partial phases (stopped or resumed)"));
  EXPECT_THAT(index, HasSubstr("300 games/hour"));
  const std::string results = slurp(out / "results.csv");
  EXPECT_THAT(results, HasSubstr("\n1,0,0,1\n"));
  // Nothing half-written is left behind.
  for (const auto& e : fs::directory_iterator(out)) EXPECT_NE(e.path().extension(), ".tmp");
  removeUnlessFailed(dir);
}

// A four-player run (yonin): results by seat, the gate's share with its threshold, and no Elo
// chart or Elo in the summary.
TEST(RunReport, FourPlayerRunsChartSeatsAndShares) {
  const fs::path dir = freshDir("four");
  spit(dir / "state.json",
       R"({"format":1,"iteration":1,"phase":"selfplay","games_at_iteration_start":4,"total_games":4,"total_samples":900,)"
       R"("generation":1,"best_elo":0,"seconds":100,"trained_this_iteration":false})");
  spit(dir / "config.yaml", "variant: yonin\ngate: {games: 8, threshold: 0.3}\n");
  spit(dir / "metrics.jsonl",
       R"({"event":"selfplay","iteration":0,"time":1000,"step":0,"games":4,"total_games":4,"seconds":36,"games_per_hour":400,"avg_plies":200,"complete":true})"
       "\n"
       R"({"event":"train","iteration":0,"time":1100,"step":10,"steps":10,"policy_loss":3,"value_loss":1,"total_loss":4,"seconds":5})"
       "\n"
       R"({"event":"gate","iteration":0,"time":1200,"step":10,"games":8,"wins":3,"draws":2,"losses":3,"score":0.4375,)"
       R"("share":0.4375,"players":4,"promoted":true,"opponent":"gen-0000","threshold":0.3,"new_best":"gen-0001","best_elo":0})"
       "\n");
  std::string games;
  for (const auto& [result, plies] : std::vector<std::pair<std::string, int>>{{"south", 100}, {"east", 200}, {"east", 150}, {"draw", 300}}) {
    poppy::selfplay::GameRecord r = record(int(games.size()), result, plies);
    r.variant = "yonin";
    r.reason = result == "draw" ? "ply_cap" : "second_checkmate";
    games += poppy::selfplay::gameRecordToJson(r) + "\n";
  }
  spit(dir / "games.jsonl", games);
  const RunMetrics run = loadRunMetrics(dir.string());
  EXPECT_EQ(run.players(), 4);
  ASSERT_EQ(run.iterations.size(), 1u);
  EXPECT_EQ(run.iterations[0].seatWins[0], 1);
  EXPECT_EQ(run.iterations[0].seatWins[3], 2);
  EXPECT_EQ(run.iterations[0].draws, 1);
  const fs::path out = dir / "out";
  writeRunReport(run, out.string());
  EXPECT_EQ(slurp(out / "results.csv"), "iteration,south wins,west wins,north wins,east wins,draws\n0,0.25,0,0,0.5,0.25\n");
  EXPECT_EQ(slurp(out / "gates.csv"), "iteration,promoted,kept\n0,0.4375,\n");
  EXPECT_THAT(slurp(out / "gates.svg"), HasSubstr("pass threshold 0.3"));
  EXPECT_FALSE(fs::exists(out / "elo.svg"));
  const std::string index = slurp(out / "index.html");
  EXPECT_THAT(index, HasSubstr("equal player&apos;s is 0.25"));
  EXPECT_THAT(index, HasSubstr("no Elo"));
  EXPECT_THAT(index, Not(HasSubstr("elo.svg")));
  removeUnlessFailed(dir);
}

// A match summary as poppy match writes it (report/match_report.h), with the figures given.
std::string summary(const std::string& a, const std::string& b, int wins, int losses, double elo, double low, double high) {
  return R"({"format": "poppy-match-summary", "version": 1, "finished": true, "variant": "micro", "a": {"player": ")" + a +
         R"("}, "b": {"player": ")" + b + R"("}, "games": )" + std::to_string(wins + losses) + R"(, "wins": )" +
         std::to_string(wins) + R"(, "draws": 0, "losses": )" + std::to_string(losses) + R"(, "elo": )" +
         std::to_string(elo) + R"(, "elo_low": )" + std::to_string(low) + R"(, "elo_high": )" + std::to_string(high) + "}";
}

// Reference matches in the run's reference folder (summaries as poppy match writes them) are
// charted per generation and opponent, with their 95% intervals in the CSV; a file that is not
// such a summary is reported by name and skipped.
TEST(RunReport, ReferenceMatchesAreChartedWithTheirIntervals) {
  const fs::path dir = handWrittenRun("reference");
  fs::create_directories(dir / "reference");
  spit(dir / "reference" / "gen-0001-vs-rollout1000.summary.json",
       summary("model:" + (dir / "models" / "gen-0001.model").string() + ":128", "rollout:1000", 30, 10, 190.8, 75.5, 340.2));
  spit(dir / "reference" / "gen-0000-vs-rollout1000.summary.json",
       summary("model:run/models/gen-0000.model", "rollout:1000", 10, 30, -190.8, -340.2, -75.5));
  spit(dir / "reference" / "stray.summary.json", summary("rollout:10", "random", 1, 1, 0, -1, 1));
  spit(dir / "reference" / "broken.summary.json", "{not json");
  const RunMetrics run = loadRunMetrics(dir.string());
  ASSERT_EQ(run.references.size(), 2u);
  EXPECT_EQ(run.references[0].generation, 0);
  EXPECT_EQ(run.references[1].generation, 1);
  EXPECT_EQ(run.references[1].wins, 30);
  const std::string all = ::testing::PrintToString(run.problems);
  EXPECT_THAT(all, HasSubstr("stray.summary.json: player A is not a generation's model"));
  EXPECT_THAT(all, HasSubstr("broken.summary.json"));
  const fs::path out = dir / "out";
  writeRunReport(run, out.string());
  EXPECT_EQ(xmlProblem(slurp(out / "reference-elo.svg")), "");
  EXPECT_EQ(slurp(out / "reference-elo.csv"),
            "generation,rollout:1000,rollout:1000 (low),rollout:1000 (high)\n"
            "gen-0000,-190.8,-340.2,-75.5\ngen-0001,190.8,75.5,340.2\n");
  EXPECT_THAT(slurp(out / "index.html"), HasSubstr("reference-elo.svg"));
  // The learning curves (issue 47): the same Elo against the training each generation had when
  // its gate promoted it. kMetrics: gen-0001's gate at step 10, after the first self-play phase
  // (3 games, ended at time 1000 after 36 s: the run began at 964, the gate came 46 s later).
  EXPECT_EQ(slurp(out / "learning-curve-games.csv"),
            "self-play games played when the model was promoted,rollout:1000,rollout:1000 (low),rollout:1000 (high)\n"
            "0,-190.8,-340.2,-75.5\n3,190.8,75.5,340.2\n");
  EXPECT_EQ(slurp(out / "learning-curve-steps.csv"),
            "trainer steps of the model,rollout:1000,rollout:1000 (low),rollout:1000 (high)\n"
            "0,-190.8,-340.2,-75.5\n10,190.8,75.5,340.2\n");
  const std::string hours = slurp(out / "learning-curve-hours.svg");
  EXPECT_EQ(xmlProblem(hours), "");
  EXPECT_THAT(hours, HasSubstr("(minutes, wall clock)"));
  EXPECT_EQ(count(hours, "class=\"error-bar\""), 2u);
  EXPECT_THAT(slurp(out / "learning-curve-hours.csv"), HasSubstr("\n0.766"));
  EXPECT_THAT(slurp(out / "index.html"), HasSubstr("learning-curve-hours.svg"));
  // The gate Elo says what it is.
  EXPECT_THAT(slurp(out / "elo.svg"), HasSubstr("summed gate results, no fixed opponent"));
  removeUnlessFailed(dir);
}

// `poppy report RUN --compare OTHER` (issue 47: the baseline's curve beside each change's): one
// chart per axis with a line per run, named by its folder. Both runs here have kMetrics' progress
// (gen-0001 promoted after 3 games), so their points share the x values; the Elo figures are the
// summaries' own.
// "steps" events (training.log_every_steps) draw the losses inside the phases; a watched report's
// page reloads itself.
TEST(RunReport, StepEventsAndAWatchedPage) {
  const fs::path dir = handWrittenRun("steps");
  {
    std::ofstream more(dir / "metrics.jsonl", std::ios::app);
    more << R"({"event":"steps","iteration":0,"time":1000.5,"step":5,"steps":5,"policy_loss":3.5,"value_loss":1.5,)"
            R"("total_loss":5,"learning_rate":0.02})" "\n";
    more << R"({"event":"steps","iteration":0,"time":1001,"step":10,"steps":5,"policy_loss":2.5,"value_loss":0.5,)"
            R"("total_loss":3,"learning_rate":0.02})" "\n";
  }
  const RunMetrics run = loadRunMetrics(dir.string());
  ASSERT_EQ(run.metrics.steps.size(), 2u);
  EXPECT_EQ(run.metrics.steps[1].step, 10);
  EXPECT_DOUBLE_EQ(run.metrics.steps[0].valueLoss, 1.5);
  const fs::path out = dir / "out";
  writeRunReport(run, out.string(), {}, 5);
  EXPECT_EQ(slurp(out / "step-losses.csv"), "training steps,policy loss,value loss\n5,3.5,1.5\n10,2.5,0.5\n");
  EXPECT_EQ(xmlProblem(slurp(out / "step-losses.svg")), "");
  EXPECT_THAT(slurp(out / "index.html"), HasSubstr("<meta http-equiv=\"refresh\" content=\"5\">"));
  writeRunReport(run, out.string());
  EXPECT_THAT(slurp(out / "index.html"), Not(HasSubstr("http-equiv")));
  removeUnlessFailed(dir);
}

TEST(RunReport, ComparedRunsShareTheLearningCurveCharts) {
  const fs::path a = handWrittenRun("compare-a"), b = handWrittenRun("compare-b");
  for (const fs::path& dir : {a, b}) fs::create_directories(dir / "reference");
  spit(a / "reference" / "gen-0000-vs-rollout1000.summary.json",
       summary("model:a/models/gen-0000.model", "rollout:1000", 10, 30, -190.8, -340.2, -75.5));
  spit(a / "reference" / "gen-0001-vs-rollout1000.summary.json",
       summary("model:a/models/gen-0001.model", "rollout:1000", 30, 10, 190.8, 75.5, 340.2));
  spit(b / "reference" / "gen-0001-vs-rollout1000.summary.json",
       summary("model:b/models/gen-0001.model", "rollout:1000", 35, 5, 338, 200, 500));
  const RunMetrics runA = loadRunMetrics(a.string()), runB = loadRunMetrics(b.string());
  const fs::path out = a / "out";
  writeRunReport(runA, out.string(), comparisonCharts(runA, {runB}));
  const std::string la = a.filename().string(), lb = b.filename().string();
  EXPECT_EQ(slurp(out / "compare-learning-curve-games.csv"),
            "self-play games played when the model was promoted," + la + "," + la + " (low)," + la + " (high)," + lb +
                "," + lb + " (low)," + lb + " (high)\n"
                "0,-190.8,-340.2,-75.5,,,\n3,190.8,75.5,340.2,338,200,500\n");
  const std::string hours = slurp(out / "compare-learning-curve-hours.svg");
  EXPECT_EQ(xmlProblem(hours), "");
  EXPECT_THAT(hours, HasSubstr("Elo against rollout:1000 (95% interval)"));  // the one opponent, named once
  EXPECT_EQ(count(hours, "class=\"error-bar\""), 3u);
  EXPECT_THAT(slurp(out / "index.html"), HasSubstr("compare-learning-curve-steps.svg"));
  // The losses of both runs on one chart (the hand-written train phases: steps 10 and 20, value
  // loss 1 and 0.75, policy 3 and 2.5), with or without reference matches.
  EXPECT_EQ(slurp(out / "compare-value-loss.csv"), "training steps," + la + "," + lb + "\n10,1,1\n20,0.75,0.75\n");
  EXPECT_EQ(slurp(out / "compare-policy-loss.csv"), "training steps," + la + "," + lb + "\n10,3,3\n20,2.5,2.5\n");

  // Runs of different variants have no common yardstick.
  spit(b / "config.yaml", "variant: minishogi\n");
  try {
    comparisonCharts(runA, {loadRunMetrics(b.string())});
    ADD_FAILURE() << "runs of micro and minishogi were compared";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("different variants"));
    EXPECT_THAT(e.what(), HasSubstr("minishogi"));
  }
  removeUnlessFailed(a);
  removeUnlessFailed(b);
}

TEST(RunMetrics, RefusesWhatIsNotARun) {
  const fs::path dir = freshDir("errors");
  auto message = [](const fs::path& p) {
    try {
      loadRunMetrics(p.string());
    } catch (const RunDirError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message(dir / "nowhere"), HasSubstr("does not exist"));
  spit(dir / "file", "x");
  EXPECT_THAT(message(dir / "file"), HasSubstr("not a directory"));
  EXPECT_THAT(message(dir), HasSubstr("no state.json"));
  spit(dir / "state.json", "{}");
  EXPECT_THAT(message(dir), HasSubstr("metrics.jsonl does not exist"));
  spit(dir / "metrics.jsonl", "\n{broken\n");
  EXPECT_THAT(message(dir), HasSubstr("has no selfplay, train or gate events"));
  EXPECT_THAT(message(dir), HasSubstr("metrics.jsonl:2: not JSON"));
  removeUnlessFailed(dir);
}

// ---------------------------------------------------------------------------------------------
// opening_history without a network

TEST(OpeningHistory, ChartsFollowTheCheckpoints) {
  OpeningHistory h;
  h.variant = "micro";
  h.playouts = 100;
  h.followed = {"a1b2"};
  for (int gen : {0, 2, 5}) {
    CheckpointOpenings c;
    c.generation = gen;
    c.model = "gen-000" + std::to_string(gen) + ".model";
    const double a = 0.2 + 0.15 * gen;  // grows
    c.first = {{"a1b2", {int(a * 100), a, 0.3}}, {"c3d4", {int((0.98 - a) * 100), 0.98 - a, 0.6}},
               {"e5f6", {2, 0.02, 0.1}}};
    c.second["a1b2"] = {{"x1y1", {60, 0.6, 0.5}}, {"z2z3", {40, 0.4, 0.5}}};
    h.checkpoints.push_back(c);
  }
  EXPECT_EQ(checkpointGeneration("gen-0012.model"), 12);
  EXPECT_EQ(checkpointGeneration("gen-12.model.tmp"), -1);
  EXPECT_EQ(checkpointGeneration("best"), -1);
  const std::string svg = renderSvg(firstMoveChart(h, 0.03));
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  const auto groups = seriesGroups(svg);
  // Two moves reach 3 %; e5f6 (2 %) is folded into "other moves".
  ASSERT_EQ(groups.size(), 3u) << svg;
  EXPECT_TRUE(groups.count("a1b2") && groups.count("c3d4") && groups.count("other moves"));
  // Stacked areas: one band per series, its top edge and its bottom edge a point per checkpoint.
  // The plot runs from y = 44 (share 1) to y = 344 (share 0) in a 720x400 chart.
  for (const auto& [name, body] : groups) {
    const auto b = bands(body);
    ASSERT_EQ(b.size(), 1u) << name;
    EXPECT_EQ(b[0].size(), 6u) << name;
  }
  // a1b2 (at the last checkpoint 0.95, drawn first) lies on the axis; "other moves" tops out at 1.
  const auto a1b2 = bands(groups.at("a1b2"))[0];
  EXPECT_NEAR(a1b2[2].second, 344 - 300 * 0.95, 0.01);  // gen 5: share 0.95
  EXPECT_NEAR(a1b2[3].second, 344, 0.01);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(bands(groups.at("other moves"))[0][i].second, 44, 0.01);
  EXPECT_THAT(renderSvg(secondMoveChart(h, 0.03)), HasSubstr("Replies to a1b2"));
  // The table: gen 5 prefers a1b2 (95%); its top line is a1b2 x1y1, 0.95 x 0.6 = 57%.
  const std::string table = historyTable(h, 2);
  EXPECT_THAT(table, HasSubstr("gen-0005"));
  EXPECT_THAT(table, HasSubstr("a1b2 95%  c3d4 3%"));
  EXPECT_THAT(table, HasSubstr("a1b2 x1y1 57%  a1b2 z2z3 38%"));
  EXPECT_EQ(count(table, "\n"), 4u);  // a header and a row per checkpoint
  const auto json = nlohmann::json::parse(historyJson(h));
  EXPECT_EQ(json["checkpoints"].size(), 3u);
  EXPECT_EQ(json["checkpoints"][2]["first"][0]["move"], "a1b2");  // most visited first at gen 5
  const std::string csv = historyCsv(h);
  EXPECT_EQ(count(csv, "\n"), 1u + 3 * (3 + 2));
  EXPECT_THAT(csv, HasSubstr("5,gen-0005.model,0,a1b2,x1y1,60,0.6,0.5\n"));
}

TEST(OpeningHistory, JensenShannonDivergenceByHand) {
  const PositionStats a{{"a", {1, 1.0, 0}}};
  const PositionStats halves{{"a", {1, 0.5, 0}}, {"b", {1, 0.5, 0}}};
  const PositionStats b{{"b", {1, 1.0, 0}}};
  EXPECT_NEAR(jensenShannon(halves, halves), 0.0, 1e-12);
  EXPECT_NEAR(jensenShannon(a, b), 1.0, 1e-12);  // nothing in common
  // P = (1, 0), Q = (1/2, 1/2), M = (3/4, 1/4):
  // KL(P||M) = log2(4/3) = 0.415037; KL(Q||M) = 1/2 log2(2/3) + 1/2 log2(2) = 0.207519;
  // JSD = (0.415037 + 0.207519) / 2 = 0.311278.
  EXPECT_NEAR(jensenShannon(a, halves), 0.311278, 1e-6);
  EXPECT_NEAR(jensenShannon(halves, a), 0.311278, 1e-6);
  // Shares are renormalised (a search's shown moves may not add up to 1).
  const PositionStats doubled{{"a", {1, 1.0, 0}}, {"b", {1, 1.0, 0}}};
  EXPECT_NEAR(jensenShannon(doubled, halves), 0.0, 1e-12);
  EXPECT_TRUE(isMissing(jensenShannon({}, halves)));
}

TEST(OpeningHistory, DivergencePositionAndPlayedCharts) {
  OpeningHistory h;
  h.position = {"a1b2", "x1y1"};
  for (int gen : {0, 1, 2}) {
    CheckpointOpenings c;
    c.generation = gen;
    c.model = "gen-000" + std::to_string(gen) + ".model";
    // gen 0 and 1 agree; gen 2 moves everything to c3d4.
    c.first = gen < 2 ? PositionStats{{"a1b2", {1, 1.0, 0}}} : PositionStats{{"c3d4", {1, 1.0, 0}}};
    c.chosen = {{"p1", {1, 0.5, 0}}, {"p2", {1, 0.5, 0}}};
    h.checkpoints.push_back(c);
  }
  const LineChart d = divergenceChart(h);
  ASSERT_EQ(d.series.size(), 3u);
  EXPECT_EQ(d.series[0].name, "first: vs previous");
  EXPECT_TRUE(isMissing(d.series[0].y[0]));  // gen 0 has no previous checkpoint
  EXPECT_NEAR(d.series[0].y[1], 0.0, 1e-12);
  EXPECT_NEAR(d.series[0].y[2], 1.0, 1e-12);
  EXPECT_EQ(d.series[1].name, "first: vs last");
  EXPECT_NEAR(d.series[1].y[0], 1.0, 1e-12);
  EXPECT_NEAR(d.series[1].y[2], 0.0, 1e-12);
  EXPECT_EQ(d.series[2].name, "a1b2 x1y1: vs previous");
  EXPECT_NEAR(d.series[2].y[2], 0.0, 1e-12);
  EXPECT_EQ(xmlProblem(renderSvg(d)), "");

  const LineChart p = positionChart(h, 0.03);
  EXPECT_THAT(p.title, HasSubstr("After a1b2 x1y1"));
  ASSERT_EQ(p.series.size(), 2u);  // p1 and p2; nothing left for "other moves"
  EXPECT_TRUE(p.stacked);

  // Played: generation 1 played 3 games, 2 of them a1b2.
  PlayedOpenings played;
  played.generation = 1;
  played.games = 3;
  played.first = {{"a1b2", {2, 2.0 / 3, 0}}, {"c3d4", {1, 1.0 / 3, 0}}};
  h.played = {played};
  const LineChart pc = playedChart(h, 0.03);
  ASSERT_EQ(pc.series.size(), 2u);
  // The checkpoints prefer c3d4 last (then a1b2): the played chart keeps that order, though
  // self-play played a1b2 more, so each move has the same colour in both charts.
  EXPECT_EQ(firstMoveChart(h, 0.03).series[0].name, "c3d4");
  EXPECT_EQ(pc.series[0].name, "c3d4");
  EXPECT_EQ(pc.series[1].name, "a1b2");
  EXPECT_NEAR(pc.series[1].y[0], 2.0 / 3, 1e-12);
  EXPECT_EQ(pc.series[0].x, std::vector<double>{1});
  EXPECT_THAT(historyTable(h), HasSubstr("a1b2 67%  c3d4 33% (3)"));
  const auto json = nlohmann::json::parse(historyJson(h));
  EXPECT_EQ(json["position"], (std::vector<std::string>{"a1b2", "x1y1"}));
  EXPECT_EQ(json["played"][0]["games"], 3);
  EXPECT_EQ(json["checkpoints"][0]["chosen"].size(), 2u);
  EXPECT_THAT(historyCsv(h), HasSubstr("2,gen-0002.model,0,a1b2 x1y1,p1,1,0.5,0\n"));
}

#ifdef POPPY_BINARY  // the poppy command is built with LibTorch only (tests/CMakeLists.txt)
// ---------------------------------------------------------------------------------------------
// The real commands on a tiny run made by `poppy train`.

struct CmdResult {
  int code = -1;
  std::string out, err, command;
  std::string describe() const {
    return "command: " + command + "\nexit: " + std::to_string(code) + "\nstdout:\n" + out + "\nstderr:\n" + err;
  }
};

CmdResult poppy(const std::vector<std::string>& args, int seconds = 120) {
  static int serial = 0;
  const fs::path dir = poppy::testing::scratchRoot(kScratch) / "cmd";
  fs::create_directories(dir);
  const fs::path out = dir / ("out" + std::to_string(serial)), err = dir / ("err" + std::to_string(serial++));
  CmdResult r;
  r.command = "poppy";
  std::string cmd = "timeout -k 5 " + std::to_string(seconds) + " " + poppy::testing::shellQuote(POPPY_BINARY);
  for (const auto& a : args) {
    cmd += " " + poppy::testing::shellQuote(a);
    r.command += " " + poppy::testing::shellQuote(a);
  }
  cmd += " </dev/null >" + poppy::testing::shellQuote(out.string()) + " 2>" + poppy::testing::shellQuote(err.string());
  r.code = poppy::testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  std::error_code ec;
  fs::remove(dir, ec);  // only when empty
  return r;
}

void expectCleanError(const CmdResult& r, const std::string& needle) {
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("poppy: error: ")) << r.describe();
  EXPECT_THAT(r.err, HasSubstr(needle)) << r.describe();
  for (const char* crash : {"terminate", "Segmentation", "Aborted", "what():"})
    EXPECT_THAT(r.err, Not(HasSubstr(crash))) << r.describe();
}

// One tiny two-iteration run for every test below; a gate threshold of 0 promotes every
// candidate, so the run has three checkpoints.
class TinyRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(freshDir("tiny"));
    const fs::path config = *root_ / "tiny.yaml";
    spit(config,
         "variant: micro\ndevice: cpu\nseed: 7\n"
         "network: {blocks: 1, channels: 8, value_hidden: 8}\n"
         "selfplay: {games_per_iteration: 6, parallel_games: 6, playouts: 12, threads: 1}\n"
         "training: {batch_size: 32, steps_per_iteration: 6, min_samples: 20, window: 20000, threads: 1,\n"
         "           log_every_steps: 3}\n"
         "gate: {games: 2, playouts: 8, parallel_games: 2, threshold: 0}\n"
         "run: {iterations: 2}\n");
    const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", (*root_ / "run").string()}, 300);
    trainOk_ = r.code == 0;
    trainLog_ = new std::string(r.describe());
  }
  static void TearDownTestSuite() {
    removeUnlessFailed(*root_);
    delete root_;
    delete trainLog_;
  }
  void SetUp() override { ASSERT_TRUE(trainOk_) << *trainLog_; }
  static fs::path run() { return *root_ / "run"; }
  static fs::path* root_;
  static std::string* trainLog_;
  static bool trainOk_;
};
fs::path* TinyRun::root_ = nullptr;
std::string* TinyRun::trainLog_ = nullptr;
bool TinyRun::trainOk_ = false;

TEST_F(TinyRun, ReportWritesChartsCsvsAndIndex) {
  const CmdResult r = poppy({"report", run().string()});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("index.html"));
  const fs::path out = run() / "report";
  for (const char* name : {"losses", "games-per-hour", "gates", "elo", "game-length", "results"}) {
    SCOPED_TRACE(name);
    const std::string svg = slurp(out / (std::string(name) + ".svg"));
    ASSERT_FALSE(svg.empty());
    EXPECT_EQ(xmlProblem(svg), "");
    EXPECT_THAT(svg, Not(HasSubstr("no data yet")));
    EXPECT_FALSE(slurp(out / (std::string(name) + ".csv")).empty());
  }
  // Two train phases: two loss points per series (policy, value, total, and the value loss on
  // each phase's new games with a constant guess's); two promotions: Elo for gen 0, 1 and 2.
  const auto groups = seriesGroups(slurp(out / "losses.svg"));
  ASSERT_EQ(groups.size(), 5u);
  for (const auto& [name, body] : groups) EXPECT_EQ(polylines(body).at(0).size(), 2u) << name;
  const std::string elo = slurp(out / "elo.csv");
  EXPECT_EQ(std::count(elo.begin(), elo.end(), '\n'), 4) << elo;
  // Every game is counted in the results: 6 per iteration.
  const RunMetrics metrics = loadRunMetrics(run().string());
  ASSERT_EQ(metrics.iterations.size(), 2u);
  for (const IterationGames& g : metrics.iterations) {
    EXPECT_EQ(g.games, 6);
    EXPECT_EQ(g.senteWins + g.draws + g.goteWins, 6);
  }
  EXPECT_TRUE(metrics.problems.empty()) << ::testing::PrintToString(metrics.problems);
  EXPECT_FALSE(metrics.metrics.train.empty());
  EXPECT_DOUBLE_EQ(metrics.metrics.gate.at(0).threshold, 0);  // logged by the run
  EXPECT_THAT(slurp(out / "index.html"), HasSubstr("<img src=\"results.svg\""));
  // log_every_steps 3 of 6 steps a phase: two "steps" events a phase, each at a multiple of 3.
  ASSERT_EQ(metrics.metrics.steps.size(), 4u);
  for (const auto& e : metrics.metrics.steps) {
    EXPECT_EQ(e.steps, 3);
    EXPECT_EQ(e.step % 3, 0);
  }
  const std::string steps = slurp(out / "step-losses.csv");
  EXPECT_EQ(std::count(steps.begin(), steps.end(), '\n'), 5) << steps;
  // The lines that stay are in the run's train.log, with the time.
  const std::string log = slurp(run() / "train.log");
  EXPECT_THAT(log, HasSubstr("new run in"));
  EXPECT_THAT(log, HasSubstr("iter 1 train done: 6 steps"));
  EXPECT_THAT(log, Not(HasSubstr("train step 1/6"))) << "progress lines stay on the terminal";
  // No trainer holds the run: --watch writes the report once and says why it does not watch.
  const CmdResult watched = poppy({"report", run().string(), "--watch", "1", "--out", (*root_ / "watched").string()});
  ASSERT_EQ(watched.code, 0) << watched.describe();
  EXPECT_THAT(watched.out, HasSubstr("no trainer holds"));
  EXPECT_THAT(slurp(*root_ / "watched" / "index.html"), Not(HasSubstr("http-equiv")));

  // --out elsewhere; the same run gives the same bytes.
  const fs::path other = *root_ / "elsewhere";
  ASSERT_EQ(poppy({"report", run().string(), "--out", other.string()}).code, 0);
  EXPECT_EQ(slurp(other / "losses.svg"), slurp(out / "losses.svg"));
  EXPECT_EQ(slurp(other / "index.html"), slurp(out / "index.html"));
}

// poppy report --reference plays the chosen generations against a fixed opponent, once: the
// matches' summaries go to RUN/reference and their Elo into the report.
TEST_F(TinyRun, ReportPlaysReferenceMatchesOnce) {
  const fs::path out = *root_ / "with-reference";
  const CmdResult r = poppy({"report", run().string(), "--reference", "random", "--generations", "every:2", "--games", "4",
                             "--playouts", "4", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.describe();
  // every:2 of generations 0, 1, 2: 0 and 2.
  EXPECT_TRUE(fs::exists(run() / "reference" / "gen-0000-vs-random.summary.json"));
  EXPECT_TRUE(fs::exists(run() / "reference" / "gen-0002-vs-random.summary.json"));
  EXPECT_FALSE(fs::exists(run() / "reference" / "gen-0001-vs-random.summary.json"));
  const std::string csv = slurp(out / "reference-elo.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_THAT(csv, HasSubstr("gen-0002,"));
  // Again: nothing is played twice.
  const CmdResult again = poppy({"report", run().string(), "--reference", "random", "--generations", "every:2",
                                 "--games", "4", "--out", out.string()});
  ASSERT_EQ(again.code, 0) << again.describe();
  EXPECT_THAT(again.err, HasSubstr("already played"));
  EXPECT_THAT(again.err, Not(HasSubstr("4 games, 32 at once")));
  expectCleanError(poppy({"report", run().string(), "--reference", "random", "--generations", "7"}),
                   "the run has no model of generation 7");
  expectCleanError(poppy({"report", run().string(), "--reference", "random", "--generations", "every:x"}),
                   "every:N needs a whole N");
  fs::remove_all(run() / "reference");
}

TEST_F(TinyRun, OpeningsHistoryHasOnePointPerCheckpoint) {
  size_t checkpoints = 0;
  for (const auto& e : fs::directory_iterator(run() / "models")) checkpoints += checkpointGeneration(e.path().filename().string()) >= 0;
  ASSERT_EQ(checkpoints, 3u);
  const fs::path svgPath = *root_ / "history" / "openings.svg";
  const CmdResult r = poppy({"openings", "history", run().string(), "--playouts", "24", "--follow", "2", "--out",
                             svgPath.string()});
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("3/3 gen-0002.model"));  // progress
  const std::string svg = slurp(svgPath);
  EXPECT_EQ(xmlProblem(svg), "") << svg;
  const auto groups = seriesGroups(svg);
  ASSERT_FALSE(groups.empty());
  for (const auto& [name, body] : groups) {
    const auto b = bands(body);
    ASSERT_EQ(b.size(), 1u) << name;
    EXPECT_EQ(b[0].size(), 2 * checkpoints) << name;  // top and bottom edge, a point per checkpoint
  }
  EXPECT_EQ(xmlProblem(slurp(*root_ / "history" / "openings-second.svg")), "");
  EXPECT_EQ(xmlProblem(slurp(*root_ / "history" / "openings-divergence.svg")), "");
  // The table goes to stdout and to a file, a row per checkpoint.
  EXPECT_THAT(r.out, HasSubstr("gen-0002"));
  EXPECT_EQ(slurp(*root_ / "history" / "openings-table.txt"), r.out.substr(0, r.out.find("3 checkpoints searched")));
  // Self-play's first moves, per generation that played (the run's games.jsonl).
  const std::string played = slurp(*root_ / "history" / "openings-played.csv");
  EXPECT_THAT(played, HasSubstr("generation (the best model playing the game)"));
  const auto json = nlohmann::json::parse(slurp(*root_ / "history" / "openings.json"));
  ASSERT_EQ(json["checkpoints"].size(), checkpoints);
  EXPECT_EQ(json["followed"].size(), 2u);
  for (const auto& c : json["checkpoints"]) {
    double shares = 0;
    for (const auto& m : c["first"]) shares += m["share"].get<double>();
    EXPECT_NEAR(shares, 1.0, 1e-9);
    EXPECT_EQ(c["first"].size(), 9u);  // micro shogi has 9 legal first moves (perft 1)
    EXPECT_EQ(c["second"].size(), 2u);
  }
  EXPECT_FALSE(slurp(*root_ / "history" / "openings.csv").empty());

  // A chosen position, searched by every checkpoint; a bad one is refused before any search.
  const CmdResult chosen = poppy({"openings", "history", run().string(), "--playouts", "8", "--follow", "0",
                                  "--position", "3e3d 1a1b", "--out", (*root_ / "chosen.svg").string()});
  ASSERT_EQ(chosen.code, 0) << chosen.describe();
  const auto chosenJson = nlohmann::json::parse(slurp(*root_ / "chosen.json"));
  EXPECT_EQ(chosenJson["position"], (std::vector<std::string>{"3e3d", "1a1b"}));
  EXPECT_FALSE(chosenJson["checkpoints"][0]["chosen"].empty());
  EXPECT_THAT(slurp(*root_ / "chosen-position.svg"), HasSubstr("After 3e3d 1a1b"));
  expectCleanError(poppy({"openings", "history", run().string(), "--position", "3e3d 9z9z"}), "9z9z");

  // --every 2: gen 0 and the last one.
  const CmdResult thin = poppy({"openings", "history", run().string(), "--playouts", "8", "--every", "2", "--follow",
                                "0", "--out", (*root_ / "thin.svg").string()});
  ASSERT_EQ(thin.code, 0) << thin.describe();
  EXPECT_EQ(nlohmann::json::parse(slurp(*root_ / "thin.json"))["checkpoints"].size(), 2u);

  // A damaged checkpoint (here the newest) is reported and skipped.
  const fs::path damaged = *root_ / "damaged";
  fs::create_directories(damaged);
  fs::copy(run() / "models", damaged / "models");
  spit(damaged / "models" / "gen-0003.model", "not a model");
  const CmdResult skip = poppy({"openings", "history", damaged.string(), "--playouts", "8", "--follow", "1"});
  ASSERT_EQ(skip.code, 0) << skip.describe();
  EXPECT_THAT(skip.err, HasSubstr("warning: skipping a checkpoint: model " + (damaged / "models" / "gen-0003.model").string()));
  const auto kept = nlohmann::json::parse(slurp(damaged / "report" / "openings-history.json"));
  // The report in the same folder shows the opening charts too.
  fs::copy_file(run() / "state.json", damaged / "state.json");
  fs::copy_file(run() / "metrics.jsonl", damaged / "metrics.jsonl");
  ASSERT_EQ(poppy({"report", damaged.string()}).code, 0);
  EXPECT_THAT(slurp(damaged / "report" / "index.html"), HasSubstr("<img src=\"openings-history-second.svg\""));
  EXPECT_EQ(kept["checkpoints"].size(), 3u);
  EXPECT_EQ(kept["checkpoints"].back()["generation"], 2);
}

TEST_F(TinyRun, ErrorsNameTheProblem) {
  expectCleanError(poppy({"report", (*root_ / "missing").string()}), "does not exist");
  expectCleanError(poppy({"report", root_->string()}), "no state.json");
  const fs::path empty = *root_ / "empty-run";
  fs::create_directories(empty);
  fs::copy_file(run() / "state.json", empty / "state.json");
  spit(empty / "metrics.jsonl", "");
  expectCleanError(poppy({"report", empty.string()}), "no selfplay, train or gate events");
  expectCleanError(poppy({"openings", "history", (*root_ / "missing").string()}), "does not exist");
  expectCleanError(poppy({"openings", "history", root_->string()}), "no models/");
  fs::create_directories(empty / "models");
  spit(empty / "models" / "gen-0000.model", "not a model");
  expectCleanError(poppy({"openings", "history", empty.string(), "--playouts", "4"}), "gen-0000.model");
}

#endif  // POPPY_BINARY

}  // namespace
