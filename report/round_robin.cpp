#include "report/round_robin.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace poppy::report {

std::vector<double> roundRobinElo(int players, const std::vector<PairResult>& pairs) {
  if (players < 1) throw std::invalid_argument("a round robin needs players");
  for (const PairResult& p : pairs)
    if (p.a < 0 || p.b < 0 || p.a >= players || p.b >= players || p.a == p.b || p.games < 0 || p.points < 0 ||
        p.points > p.games)
      throw std::invalid_argument("round robin: a pair's players or points are out of range");
  // Hunter's minorization-maximization for Bradley-Terry strengths g (Elo = 400 log10 g): each
  // step g_i = W_i / sum_j n_ij / (g_i + g_j), with W_i the points and n_ij the games. A small
  // prior (half a draw against a player of the same strength, both ways) keeps a player with all
  // or no points finite; its rating is then clamped.
  std::vector<double> wins(size_t(players), 0), g(size_t(players), 1);
  for (const PairResult& p : pairs) {
    wins[size_t(p.a)] += p.points;
    wins[size_t(p.b)] += p.games - p.points;
  }
  constexpr double kPrior = 1e-3;  // biases a 4-game pair by under 0.1 Elo
  for (int iter = 0; iter < 10000; ++iter) {
    double change = 0;
    for (int i = 0; i < players; ++i) {
      double denominator = kPrior * 2 / (g[size_t(i)] + 1);  // the prior's games against strength 1
      for (const PairResult& p : pairs)
        if (p.a == i || p.b == i) denominator += p.games / (g[size_t(p.a)] + g[size_t(p.b)]);
      if (denominator <= 0) continue;
      const double next = (wins[size_t(i)] + kPrior) / denominator;
      change = std::max(change, std::abs(std::log(next / g[size_t(i)])));
      g[size_t(i)] = next;
    }
    if (change < 1e-12) break;
  }
  std::vector<double> elo(static_cast<size_t>(players), 0.0);
  for (int i = 0; i < players; ++i) elo[size_t(i)] = 400 * std::log10(g[size_t(i)] / g[0]);
  for (double& e : elo) e = std::clamp(e, -kEloBound, kEloBound);
  return elo;
}

std::string crosstable(const std::vector<std::string>& names, const std::vector<PairResult>& pairs,
                       const std::vector<double>& elo) {
  const size_t n = names.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return elo[x] > elo[y]; });
  std::vector<double> points(n, 0);
  std::vector<int> games(n, 0);
  // score[i][j]: i's points and games against j.
  std::vector<std::vector<std::pair<double, int>>> score(n, std::vector<std::pair<double, int>>(n, {0, 0}));
  for (const PairResult& p : pairs) {
    points[size_t(p.a)] += p.points;
    points[size_t(p.b)] += p.games - p.points;
    games[size_t(p.a)] += p.games;
    games[size_t(p.b)] += p.games;
    score[size_t(p.a)][size_t(p.b)].first += p.points;
    score[size_t(p.a)][size_t(p.b)].second += p.games;
    score[size_t(p.b)][size_t(p.a)].first += p.games - p.points;
    score[size_t(p.b)][size_t(p.a)].second += p.games;
  }
  size_t width = 6;
  for (const auto& s : names) width = std::max(width, s.size());
  char cell[64];
  std::string out;
  std::snprintf(cell, sizeof cell, "%-4s %-*s %8s %7s %7s", "rank", int(width), "player", "Elo", "points", "games");
  out += cell;
  for (size_t c = 0; c < n; ++c) {
    std::snprintf(cell, sizeof cell, " %9s", ("vs " + std::to_string(c + 1)).c_str());
    out += cell;
  }
  out += "\n";
  for (size_t r = 0; r < n; ++r) {
    const size_t i = order[r];
    std::snprintf(cell, sizeof cell, "%-4zu %-*s %+8.0f %7.1f %7d", r + 1, int(width), names[i].c_str(), elo[i],
                  points[i], games[i]);
    out += cell;
    for (size_t c = 0; c < n; ++c) {
      const size_t j = order[c];
      if (i == j || score[i][j].second == 0) std::snprintf(cell, sizeof cell, " %9s", "-");
      else std::snprintf(cell, sizeof cell, " %5.1f/%-3d", score[i][j].first, score[i][j].second);
      out += cell;
    }
    out += "\n";
  }
  return out;
}

}  // namespace poppy::report
