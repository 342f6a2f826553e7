#include "report/opening_history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/generation_name.h"

namespace poppy::report {
namespace {

constexpr size_t kMaxLines = 9;  // plus "other moves": the palette's ten colours, no repeats

double shareOf(const PositionStats* stats, const std::string& move) {
  if (!stats) return kMissing;
  const auto it = stats->find(move);
  return it == stats->end() ? 0.0 : it->second.share;
}

std::string joined(const std::vector<std::string>& moves) {
  std::string out;
  for (const std::string& m : moves) out += (out.empty() ? "" : " ") + m;
  return out;
}

std::string percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * share);
  return buf;
}

// Stacked shares at x = generations[i]: a band per prominent move, then "other moves".
// `order`: moves to put first, in this order, when prominent here too (so that a move keeps its
// colour from one chart to the next).
LineChart shareChart(const std::vector<int>& generations, const std::vector<const PositionStats*>& perCheckpoint,
                     double minShare, const std::vector<std::string>& order = {}) {
  LineChart c;
  c.xLabel = "generation (checkpoint)";
  c.yLabel = "share of the search's visits";
  c.fixedY = true;
  c.yMin = 0;
  c.yMax = 1;
  c.stacked = true;
  std::vector<std::string> moves = prominentMoves(perCheckpoint, minShare, kMaxLines);
  if (!order.empty()) {
    std::vector<std::string> arranged;
    for (const std::string& m : order)
      if (std::find(moves.begin(), moves.end(), m) != moves.end()) arranged.push_back(m);
    for (const std::string& m : moves)
      if (std::find(arranged.begin(), arranged.end(), m) == arranged.end()) arranged.push_back(m);
    moves = arranged;
  }
  for (const std::string& move : moves) {
    LineSeries s{move, {}, {}};
    for (size_t i = 0; i < generations.size(); ++i) {
      s.x.push_back(generations[i]);
      s.y.push_back(shareOf(perCheckpoint[i], move));
    }
    c.series.push_back(s);
  }
  // What the named bands leave out, so the chart still adds up to 1.
  LineSeries other{"other moves", {}, {}};
  bool any = false;
  for (size_t i = 0; i < generations.size(); ++i) {
    other.x.push_back(generations[i]);
    if (!perCheckpoint[i]) {
      other.y.push_back(kMissing);
      continue;
    }
    double rest = 0;
    for (const auto& [move, stat] : *perCheckpoint[i])
      if (std::find(moves.begin(), moves.end(), move) == moves.end()) rest += stat.share;
    other.y.push_back(rest);
    any = any || rest > 1e-9;
  }
  if (any) c.series.push_back(other);
  return c;
}

LineChart checkpointChart(const OpeningHistory& h, const std::vector<const PositionStats*>& perCheckpoint,
                          double minShare) {
  std::vector<int> generations;
  for (const CheckpointOpenings& c : h.checkpoints) generations.push_back(c.generation);
  return shareChart(generations, perCheckpoint, minShare);
}

// The moves of a position, most visited first.
std::vector<std::pair<std::string, MoveStat>> ranked(const PositionStats& stats) {
  std::vector<std::pair<std::string, MoveStat>> sorted(stats.begin(), stats.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.share != b.second.share ? a.second.share > b.second.share : a.first < b.first;
  });
  return sorted;
}

nlohmann::ordered_json statsJson(const PositionStats& stats) {
  // Most visited first, like the analyzer's ranking.
  std::vector<std::pair<std::string, MoveStat>> sorted(stats.begin(), stats.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.visits != b.second.visits ? a.second.visits > b.second.visits : a.second.prior > b.second.prior;
  });
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [move, s] : sorted)
    out.push_back({{"move", move}, {"visits", s.visits}, {"share", s.share}, {"prior", s.prior}});
  return out;
}

}  // namespace

int checkpointGeneration(const std::string& fileName) {
  const std::string suffix = ".model";
  if (fileName.size() <= suffix.size() ||
      fileName.compare(fileName.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  return common::generationNumber(fileName.substr(0, fileName.size() - suffix.size()));
}

std::vector<std::string> prominentMoves(const std::vector<const PositionStats*>& perCheckpoint, double minShare,
                                        size_t maxLines) {
  std::map<std::string, double> peak;
  for (const PositionStats* stats : perCheckpoint)
    if (stats)
      for (const auto& [move, s] : *stats)
        if (s.share >= minShare) peak[move] = std::max(peak[move], s.share);
  std::vector<std::string> moves;
  for (const auto& [move, p] : peak) moves.push_back(move);
  std::stable_sort(moves.begin(), moves.end(), [&](const std::string& a, const std::string& b) { return peak[a] > peak[b]; });
  if (moves.size() > maxLines) moves.resize(maxLines);
  const PositionStats* last = nullptr;
  for (const PositionStats* stats : perCheckpoint)
    if (stats) last = stats;
  std::stable_sort(moves.begin(), moves.end(), [&](const std::string& a, const std::string& b) {
    const double sa = shareOf(last, a), sb = shareOf(last, b);
    return sa != sb ? sa > sb : a < b;
  });
  return moves;
}

LineChart firstMoveChart(const OpeningHistory& h, double minShare) {
  std::vector<const PositionStats*> per;
  for (const CheckpointOpenings& c : h.checkpoints) per.push_back(&c.first);
  LineChart chart = checkpointChart(h, per, minShare);
  chart.title = "First moves preferred by each checkpoint (" + std::to_string(h.playouts) + " playouts)";
  return chart;
}

LineChart secondMoveChart(const OpeningHistory& h, double minShare) {
  const std::string after = h.followed.empty() ? "" : h.followed.front();
  std::vector<const PositionStats*> per;
  for (const CheckpointOpenings& c : h.checkpoints) {
    const auto it = c.second.find(after);
    per.push_back(it == c.second.end() ? nullptr : &it->second);
  }
  LineChart chart = checkpointChart(h, per, minShare);
  chart.title = after.empty() ? "Replies (no first move followed)"
                              : "Replies to " + after + " preferred by each checkpoint (" + std::to_string(h.playouts) +
                                    " playouts)";
  return chart;
}

LineChart positionChart(const OpeningHistory& h, double minShare) {
  std::vector<const PositionStats*> per;
  for (const CheckpointOpenings& c : h.checkpoints) per.push_back(h.position.empty() ? nullptr : &c.chosen);
  LineChart chart = checkpointChart(h, per, minShare);
  if (h.position.empty()) chart.series.clear();
  chart.title = h.position.empty() ? "Chosen position (none chosen)"
                                   : "After " + joined(h.position) + ": moves preferred by each checkpoint";
  return chart;
}

LineChart playedChart(const OpeningHistory& h, double minShare) {
  std::vector<int> generations;
  std::vector<const PositionStats*> per;
  for (const PlayedOpenings& p : h.played) {
    generations.push_back(p.generation);
    per.push_back(&p.first);
  }
  // The preferred first moves' order first, so a move has the same colour in both charts.
  std::vector<const PositionStats*> preferred;
  for (const CheckpointOpenings& c : h.checkpoints) preferred.push_back(&c.first);
  LineChart chart = shareChart(generations, per, minShare, prominentMoves(preferred, minShare, kMaxLines));
  chart.title = "First moves self-play played, by the generation that played them";
  chart.xLabel = "generation (the best model playing the game)";
  chart.yLabel = "share of the generation's games";
  return chart;
}

double jensenShannon(const PositionStats& p, const PositionStats& q) {
  double sumP = 0, sumQ = 0;
  for (const auto& [move, s] : p) sumP += std::max(0.0, s.share);
  for (const auto& [move, s] : q) sumQ += std::max(0.0, s.share);
  if (sumP <= 0 || sumQ <= 0) return kMissing;
  std::map<std::string, std::pair<double, double>> both;
  for (const auto& [move, s] : p) both[move].first = std::max(0.0, s.share) / sumP;
  for (const auto& [move, s] : q) both[move].second = std::max(0.0, s.share) / sumQ;
  double d = 0;
  for (const auto& [move, pq] : both) {
    const double m = (pq.first + pq.second) / 2;
    if (pq.first > 0) d += 0.5 * pq.first * std::log2(pq.first / m);
    if (pq.second > 0) d += 0.5 * pq.second * std::log2(pq.second / m);
  }
  return std::clamp(d, 0.0, 1.0);
}

LineChart divergenceChart(const OpeningHistory& h) {
  LineChart c;
  c.title = "How far the opening preferences moved (Jensen-Shannon divergence)";
  c.xLabel = "generation (checkpoint)";
  c.yLabel = "divergence (bits; 0 same, 1 disjoint)";
  c.yFromZero = true;
  LineSeries previous{"first: vs previous", {}, {}};
  LineSeries last{"first: vs last", {}, {}};
  last.dashed = true;
  LineSeries chosen{joined(h.position) + ": vs previous", {}, {}};
  for (size_t i = 0; i < h.checkpoints.size(); ++i) {
    const CheckpointOpenings& cp = h.checkpoints[i];
    previous.x.push_back(cp.generation);
    previous.y.push_back(i == 0 ? kMissing : jensenShannon(h.checkpoints[i - 1].first, cp.first));
    last.x.push_back(cp.generation);
    last.y.push_back(jensenShannon(cp.first, h.checkpoints.back().first));
    chosen.x.push_back(cp.generation);
    chosen.y.push_back(i == 0 ? kMissing : jensenShannon(h.checkpoints[i - 1].chosen, cp.chosen));
  }
  c.series = {previous, last};
  if (!h.position.empty()) c.series.push_back(chosen);
  return c;
}

std::string historyTable(const OpeningHistory& h, int top) {
  std::map<int, const PlayedOpenings*> played;
  for (const PlayedOpenings& p : h.played) played[p.generation] = &p;
  std::string out = "checkpoint       step  first moves (visit share)        top lines (first x reply share)";
  if (!h.played.empty()) out += "            self-play played (games)";
  out += "\n";
  for (const CheckpointOpenings& c : h.checkpoints) {
    std::string firsts, lines, games;
    int k = 0;
    for (const auto& [move, s] : ranked(c.first)) {
      if (k++ == top) break;
      firsts += (firsts.empty() ? "" : "  ") + move + " " + percent(s.share);
    }
    std::vector<std::pair<std::string, double>> twoPly;
    for (const auto& [first, replies] : c.second) {
      const auto f = c.first.find(first);
      if (f == c.first.end()) continue;
      for (const auto& [reply, s] : replies) twoPly.push_back({first + " " + reply, f->second.share * s.share});
    }
    std::stable_sort(twoPly.begin(), twoPly.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (int i = 0; i < top && i < int(twoPly.size()); ++i)
      lines += (lines.empty() ? "" : "  ") + twoPly[i].first + " " + percent(twoPly[i].second);
    const auto p = played.find(c.generation);
    if (p != played.end()) {
      k = 0;
      for (const auto& [move, s] : ranked(p->second->first)) {
        if (k++ == top) break;
        games += (games.empty() ? "" : "  ") + move + " " + percent(s.share);
      }
      games += " (" + std::to_string(p->second->games) + ")";
    }
    char head[64];
    std::snprintf(head, sizeof head, "%-12s %8lld  ", c.model.substr(0, c.model.rfind('.')).c_str(),
                  (long long)c.step);
    char row[512];
    std::snprintf(row, sizeof row, "%s%-32s %-44s %s", head, firsts.c_str(), lines.c_str(), games.c_str());
    std::string text = row;
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

std::string historyJson(const OpeningHistory& h) {
  nlohmann::ordered_json j;
  j["format"] = 1;
  j["run_dir"] = h.runDir;
  j["variant"] = h.variant;
  j["start"] = h.startSfen;
  j["playouts"] = h.playouts;
  j["followed"] = h.followed;
  j["position"] = h.position;
  j["checkpoints"] = nlohmann::ordered_json::array();
  for (const CheckpointOpenings& c : h.checkpoints) {
    nlohmann::ordered_json cj;
    cj["generation"] = c.generation;
    cj["model"] = c.model;
    cj["step"] = c.step;
    cj["first"] = statsJson(c.first);
    nlohmann::ordered_json second = nlohmann::ordered_json::object();
    for (const std::string& move : h.followed) {
      const auto it = c.second.find(move);
      if (it != c.second.end()) second[move] = statsJson(it->second);
    }
    cj["second"] = second;
    if (!h.position.empty()) cj["chosen"] = statsJson(c.chosen);
    j["checkpoints"].push_back(cj);
  }
  j["played"] = nlohmann::ordered_json::array();
  for (const PlayedOpenings& p : h.played)
    j["played"].push_back({{"generation", p.generation}, {"games", p.games}, {"first", statsJson(p.first)}});
  return j.dump(2) + "\n";
}

std::string historyCsv(const OpeningHistory& h) {
  std::string out = "generation,model,step,after,move,visits,share,prior\n";
  auto rows = [&](const CheckpointOpenings& c, const std::string& after, const PositionStats& stats) {
    for (const auto& [move, s] : stats)
      out += std::to_string(c.generation) + "," + csvField(c.model) + "," + std::to_string(c.step) + "," +
             csvField(after) + "," + csvField(move) + "," + std::to_string(s.visits) + "," +
             formatNumber(s.share) + "," + formatNumber(s.prior) + "\n";
  };
  for (const CheckpointOpenings& c : h.checkpoints) {
    rows(c, "", c.first);
    for (const std::string& move : h.followed) {
      const auto it = c.second.find(move);
      if (it != c.second.end()) rows(c, move, it->second);
    }
    if (!h.position.empty()) rows(c, joined(h.position), c.chosen);
  }
  return out;
}

}  // namespace poppy::report
