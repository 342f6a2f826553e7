#include "report/opening_history.h"

#include <algorithm>
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

LineChart shareChart(const OpeningHistory& h, const std::vector<const PositionStats*>& perCheckpoint,
                     double minShare) {
  LineChart c;
  c.xLabel = "generation (checkpoint)";
  c.yLabel = "share of the search's visits";
  c.fixedY = true;
  c.yMin = 0;
  c.yMax = 1;
  const std::vector<std::string> moves = prominentMoves(perCheckpoint, minShare, kMaxLines);
  for (const std::string& move : moves) {
    LineSeries s{move, {}, {}};
    for (size_t i = 0; i < h.checkpoints.size(); ++i) {
      s.x.push_back(h.checkpoints[i].generation);
      s.y.push_back(shareOf(perCheckpoint[i], move));
    }
    c.series.push_back(s);
  }
  // What the shown lines leave out, so the chart still adds up to 1.
  LineSeries other{"other moves", {}, {}};
  other.dashed = true;
  bool any = false;
  for (size_t i = 0; i < h.checkpoints.size(); ++i) {
    other.x.push_back(h.checkpoints[i].generation);
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
  LineChart chart = shareChart(h, per, minShare);
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
  LineChart chart = shareChart(h, per, minShare);
  chart.title = after.empty() ? "Replies (no first move followed)"
                              : "Replies to " + after + " preferred by each checkpoint (" + std::to_string(h.playouts) +
                                    " playouts)";
  return chart;
}

std::string historyJson(const OpeningHistory& h) {
  nlohmann::ordered_json j;
  j["format"] = 1;
  j["run_dir"] = h.runDir;
  j["variant"] = h.variant;
  j["start"] = h.startSfen;
  j["playouts"] = h.playouts;
  j["followed"] = h.followed;
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
    j["checkpoints"].push_back(cj);
  }
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
  }
  return out;
}

}  // namespace poppy::report
