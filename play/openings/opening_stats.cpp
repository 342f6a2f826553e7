#include "play/openings/opening_stats.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/generation_name.h"

namespace poppy::play {

namespace {

using common::generationNumber;

void addResult(const std::string& result, int64_t& sente, int64_t& draws, int64_t& gote) {
  if (result == "sente") ++sente;
  else if (result == "gote") ++gote;
  else ++draws;
}

struct GroupBuilder {
  OpeningGroup group;
  size_t firstSeen = 0;
  std::map<std::pair<std::string, std::vector<std::string>>, OpeningLineStats> lines;
};

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

}  // namespace

OpeningStats openingStats(const std::vector<selfplay::GameRecord>& records, int depth, int top, bool byGeneration) {
  if (depth < 1) throw std::invalid_argument("depth must be at least 1");
  if (top < 1) throw std::invalid_argument("top must be at least 1");
  OpeningStats stats;
  stats.depth = depth;
  stats.top = top;
  stats.byGeneration = byGeneration;
  std::map<std::string, GroupBuilder> groups;
  for (size_t i = 0; i < records.size(); ++i) {
    const selfplay::GameRecord& r = records[i];
    const std::string model = byGeneration ? r.model : "all";
    auto [it, added] = groups.try_emplace(model);
    GroupBuilder& g = it->second;
    if (added) {
      g.group.model = model;
      g.firstSeen = i;
    }
    const size_t n = std::min<size_t>(size_t(depth), r.moves.size());
    std::vector<std::string> moves(r.moves.begin(), r.moves.begin() + long(n));
    OpeningLineStats& line = g.lines[{r.start, moves}];
    line.start = r.start;
    line.moves = std::move(moves);
    ++line.games;
    addResult(r.result, line.senteWins, line.draws, line.goteWins);
    ++g.group.games;
    addResult(r.result, g.group.senteWins, g.group.draws, g.group.goteWins);
    ++stats.games;
  }
  std::vector<GroupBuilder*> ordered;
  for (auto& [model, g] : groups) {
    g.group.distinctLines = int64_t(g.lines.size());
    for (auto& [key, line] : g.lines) g.group.lines.push_back(std::move(line));
    // Most played first; ties by start and moves (the map's order, kept by the stable sort).
    std::stable_sort(g.group.lines.begin(), g.group.lines.end(),
                     [](const OpeningLineStats& a, const OpeningLineStats& b) { return a.games > b.games; });
    if (int(g.group.lines.size()) > top) g.group.lines.resize(size_t(top));
    ordered.push_back(&g);
  }
  // Generations in number order, other names after them in the order the records show them.
  std::sort(ordered.begin(), ordered.end(), [](const GroupBuilder* a, const GroupBuilder* b) {
    const int ga = generationNumber(a->group.model), gb = generationNumber(b->group.model);
    if ((ga >= 0) != (gb >= 0)) return ga >= 0;
    if (ga >= 0 && ga != gb) return ga < gb;
    return a->firstSeen < b->firstSeen;
  });
  for (GroupBuilder* g : ordered) stats.groups.push_back(std::move(g->group));
  return stats;
}

std::string openingStatsText(const OpeningStats& stats) {
  std::string out = std::to_string(stats.games) + " games; the first " + std::to_string(stats.depth) +
                    " plies of each, the " + std::to_string(stats.top) + " most played lines" +
                    (stats.byGeneration ? " per generation" : "") + "\n";
  out += "result columns: sente wins / draws / gote wins, sente score = (sente wins + draws/2) / games\n";
  // Lines from a start other than the most common one say so.
  std::map<std::string, int64_t> starts;
  for (const OpeningGroup& g : stats.groups)
    for (const OpeningLineStats& l : g.lines) starts[l.start] += l.games;
  std::string commonStart;
  int64_t best = -1;
  for (const auto& [s, n] : starts)
    if (n > best) best = n, commonStart = s;
  for (const OpeningGroup& g : stats.groups) {
    char head[256];
    std::snprintf(head, sizeof head, "\n%s: %lld games, %lld distinct lines, sente %lld / draws %lld / gote %lld\n",
                  g.model.c_str(), (long long)g.games, (long long)g.distinctLines, (long long)g.senteWins,
                  (long long)g.draws, (long long)g.goteWins);
    out += head;
    out += "   games  of group  sente/draws/gote   sente score  line\n";
    for (const OpeningLineStats& l : g.lines) {
      std::string moves;
      for (const std::string& m : l.moves) moves += (moves.empty() ? "" : " ") + m;
      if (moves.empty()) moves = "(no moves)";
      if (int(l.moves.size()) < stats.depth) moves += " (game over)";
      if (l.start != commonStart) moves += "  [from " + l.start + "]";
      char row[512];
      std::snprintf(row, sizeof row, "  %6lld  %8s  %4lld / %4lld / %4lld  %11s  %s\n",
                    (long long)l.games, percent(g.games ? double(l.games) / double(g.games) : 0).c_str(),
                    (long long)l.senteWins, (long long)l.draws, (long long)l.goteWins,
                    percent(l.senteScore()).c_str(), moves.c_str());
      out += row;
    }
  }
  return out;
}

std::string openingStatsJson(const OpeningStats& stats) {
  nlohmann::ordered_json j;
  j["format"] = "poppy-opening-stats";
  j["version"] = 1;
  j["depth"] = stats.depth;
  j["top"] = stats.top;
  j["by_generation"] = stats.byGeneration;
  j["games"] = stats.games;
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const OpeningGroup& g : stats.groups) {
    nlohmann::ordered_json jg;
    jg["model"] = g.model;
    jg["games"] = g.games;
    jg["distinct_lines"] = g.distinctLines;
    jg["sente_wins"] = g.senteWins;
    jg["draws"] = g.draws;
    jg["gote_wins"] = g.goteWins;
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const OpeningLineStats& l : g.lines) {
      lines.push_back({{"start", l.start},
                       {"moves", l.moves},
                       {"games", l.games},
                       {"sente_wins", l.senteWins},
                       {"draws", l.draws},
                       {"gote_wins", l.goteWins},
                       {"sente_score", l.senteScore()}});
    }
    jg["lines"] = std::move(lines);
    groups.push_back(std::move(jg));
  }
  j["groups"] = std::move(groups);
  return j.dump(1) + "\n";
}

}  // namespace poppy::play
