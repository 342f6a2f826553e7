#include "report/ladder_report.h"

#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include "report/match_report.h"
#include "report/svg_chart.h"

namespace poppy::report {
namespace {

int64_t positiveNumber(const std::string& text, const std::string& rung, int64_t most) {
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || n < 1 || n > most)
    throw std::invalid_argument("rung '" + rung + "': '" + text + "' is not a number from 1 to " + std::to_string(most));
  return n;
}

std::string forfeitText(const std::map<std::string, int>& f) {
  int n = 0;
  std::string why;
  for (const auto& [reason, count] : f) {
    n += count;
    why += (why.empty() ? "" : ", ") + reason + " " + std::to_string(count);
  }
  return n ? std::to_string(n) + " (" + why + ")" : "0";
}

}  // namespace

std::string LadderRung::name() const {
  if (depth > 0) return "depth:" + std::to_string(depth);
  return nodes > 0 ? "nodes:" + std::to_string(nodes) : "movetime:" + std::to_string(movetimeMs);
}

std::string LadderRung::fileStem() const {
  if (depth > 0) return "depth" + std::to_string(depth);
  return nodes > 0 ? "nodes" + std::to_string(nodes) : "movetime" + std::to_string(movetimeMs);
}

std::vector<LadderRung> parseRungs(const std::string& text, int64_t defaultMovetimeMs) {
  std::vector<LadderRung> rungs;
  std::set<std::string> seen;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    if (item.empty()) throw std::invalid_argument("an empty rung in '" + text + "' (expected nodes:N or movetime[:MS], comma separated)");
    LadderRung r;
    if (item.rfind("nodes:", 0) == 0) {
      r.nodes = positiveNumber(item.substr(6), item, 1000000000);
    } else if (item == "movetime") {
      if (defaultMovetimeMs <= 0) throw std::invalid_argument("rung 'movetime' needs the player's --movetime (or write movetime:MS)");
      r.movetimeMs = defaultMovetimeMs;
    } else if (item.rfind("movetime:", 0) == 0) {
      r.movetimeMs = positiveNumber(item.substr(9), item, 86400000);
    } else if (item.rfind("depth:", 0) == 0) {
      r.depth = int(positiveNumber(item.substr(6), item, 100));
    } else {
      throw std::invalid_argument("rung '" + item + "': expected nodes:N, movetime[:MS] or depth:N");
    }
    if (!seen.insert(r.name()).second) throw std::invalid_argument("rung '" + r.name() + "' is given twice");
    rungs.push_back(r);
  }
  if (rungs.empty()) throw std::invalid_argument("no rungs (expected e.g. nodes:100,nodes:1000,movetime:200)");
  return rungs;
}

nlohmann::ordered_json ladderJson(const LadderInfo& info, const std::vector<LadderRungResult>& rungs, bool finished) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["format"] = "poppy-ladder";
  j["version"] = 1;
  j["finished"] = finished;
  j["variant"] = info.variant;
  j["player"] = {{"spec", info.player}, {"playouts", info.playerPlayouts}, {"movetime_ms", info.playerMovetimeMs}};
  if (!info.playerSearch.is_null()) j["player"]["search"] = info.playerSearch;
  Json options = Json::object();
  for (const auto& [name, value] : info.engineOptions) options[name] = value;
  j["engine"] = {{"command", info.engineCommand}, {"name", info.engineName}, {"notation", info.notation}, {"options", options}};
  j["openings"] = info.openings;
  j["openings_count"] = info.openingsCount;
  j["games_per_rung"] = info.gamesPerRung;
  j["settings"] = {{"parallel", info.parallel}, {"ply_cap", info.plyCap}, {"seed", info.seed}, {"grace_ms", info.graceMs}};
  Json planned = Json::array();
  for (const LadderRung& r : info.rungs) planned.push_back(r.name());
  j["rungs_planned"] = planned;
  Json list = Json::array();
  for (const LadderRungResult& r : rungs) {
    const selfplay::MatchResult& m = r.result;
    const auto [slo, shi] = m.scoreInterval95();
    const auto [elo, ehi] = m.eloInterval95();
    Json x;
    x["rung"] = r.rung.name();
    x["engine_nodes"] = r.rung.nodes;
    x["engine_movetime_ms"] = r.rung.movetimeMs;
    x["engine_depth"] = r.rung.depth;
    x["one_game_at_a_time"] = r.oneGameAtATime;
    x["parallel"] = r.parallel;
    x["finished"] = r.finished;
    x["games_wanted"] = r.gamesWanted;
    x["games"] = m.games();
    x["wins"] = m.winsA;
    x["draws"] = m.draws;
    x["losses"] = m.lossesA;
    x["score"] = m.score();
    x["score_low"] = slo;
    x["score_high"] = shi;
    x["elo"] = m.elo();
    x["elo_low"] = elo;
    x["elo_high"] = ehi;
    x["forfeits"] = {{"player", forfeitsOf(m, true)}, {"engine", forfeitsOf(m, false)}};
    x["reasons"] = endReasons(m);
    x["average_plies"] = averagePlies(m);
    x["seconds"] = r.seconds;
    x["records"] = r.records;
    list.push_back(x);
  }
  j["rungs"] = list;
  return j;
}

std::string ladderSvg(const LadderInfo& info, const std::vector<LadderRungResult>& rungs) {
  report::BarChart c;
  c.title = info.player + " vs " + (info.engineName.empty() ? info.engineCommand : info.engineName) + " (" +
            info.variant + ")";
  c.xLabel = "engine limit per move, and the player's Elo against it (intervals: ladder.json)";
  c.yLabel = "score of the player (95% interval)";
  c.fixedY = true;
  c.yMin = 0;
  c.yMax = 1;
  c.width = 1000;
  c.references.push_back({0.5, "even"});
  report::BarSeries s;
  s.name = "score, 95% interval";
  for (const LadderRungResult& r : rungs) {
    const selfplay::MatchResult& m = r.result;
    char elo[64];
    std::snprintf(elo, sizeof elo, ": Elo %+.0f", m.elo());
    c.categories.push_back(r.rung.name() + (m.games() ? elo : ": no games"));
    const auto [slo, shi] = m.scoreInterval95();
    s.values.push_back(m.games() ? m.score() : report::kMissing);
    s.low.push_back(m.games() ? slo : report::kMissing);
    s.high.push_back(m.games() ? shi : report::kMissing);
  }
  c.series.push_back(s);
  return report::renderSvg(c);
}

std::string ladderTable(const std::vector<LadderRungResult>& rungs) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %6s %5s %5s %5s  %-21s  %-24s  %s\n", "rung", "games", "+W", "=D", "-L",
                "score (95%)", "Elo (95%)", "forfeits player / engine");
  out += line;
  for (const LadderRungResult& r : rungs) {
    const selfplay::MatchResult& m = r.result;
    const auto [slo, shi] = m.scoreInterval95();
    const auto [elo, ehi] = m.eloInterval95();
    char score[64], rating[64];
    std::snprintf(score, sizeof score, "%.3f (%.3f-%.3f)", m.score(), slo, shi);
    std::snprintf(rating, sizeof rating, "%+.0f (%+.0f to %+.0f)", m.elo(), elo, ehi);
    std::snprintf(line, sizeof line, "%-16s %6d %5d %5d %5d  %-21s  %-24s  %s / %s\n", r.rung.name().c_str(), m.games(),
                  m.winsA, m.draws, m.lossesA, score, rating, forfeitText(forfeitsOf(m, true)).c_str(),
                  forfeitText(forfeitsOf(m, false)).c_str());
    out += line;
  }
  return out;
}

}  // namespace poppy::report
