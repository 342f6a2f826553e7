// A round robin's table: each pair's result, each player's points, and one Elo scale for all
// (the maximum-likelihood Bradley-Terry ratings of the pairs' scores, draws counted as half a
// win, the first player at 0), for `poppy tournament` (apps/cmd_tournament.cpp).
#pragma once
#include <string>
#include <vector>

namespace poppy::report {

struct PairResult {
  int a = 0, b = 0;        // indices into the players
  double points = 0;       // a's points (a win 1, a draw 1/2)
  int games = 0;
};

// Ratings (Elo) of `players` players from their pairs, the first at 0. A player with all points
// or none against everyone has no finite rating: it is clamped to +-kEloBound about the others
// (and said so by ratingBounded). Throws std::invalid_argument for a pair naming a player out of
// range or with points outside [0, games].
std::vector<double> roundRobinElo(int players, const std::vector<PairResult>& pairs);

inline constexpr double kEloBound = 1000;

// The crosstable as text: a row per player (sorted by rating), its points, games, rating, and its
// score against each other player.
std::string crosstable(const std::vector<std::string>& names, const std::vector<PairResult>& pairs,
                       const std::vector<double>& elo);

}  // namespace poppy::report
