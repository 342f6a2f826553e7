#include "report/match_statistics.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <utility>

namespace poppy::report {
namespace {

double expectedScore(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

// A's points in one game of record `rec`, doubled: 2 win, 1 draw, 0 loss.
int doubledPointsOfA(const selfplay::GameRecord& rec, bool aWasSente) {
  if (rec.result == "draw") return 1;
  return (rec.result == "sente") == aWasSente ? 2 : 0;
}

}  // namespace

int64_t Pentanomial::pairs() const {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  return n;
}

Pentanomial pentanomialOf(const selfplay::MatchResult& result, const std::string& idPrefix) {
  // Game number -> A's doubled points; a pair counts once both of its games are here.
  std::map<int, int> points;
  for (size_t i = 0; i < result.records.size(); ++i) {
    const std::string& id = result.records[i].id;
    const int game = selfplay::gameNumberOf(id, idPrefix);
    if (game < 0) throw std::invalid_argument("record '" + id + "' is not a game of the match '" + idPrefix + "N'");
    points[game] = doubledPointsOfA(result.records[i], result.aWasSente[i]);
  }
  Pentanomial p;
  for (const auto& [game, doubled] : points) {
    if (game % 2 != 0) continue;
    const auto partner = points.find(game + 1);
    if (partner == points.end()) continue;
    // The two games' doubled points add up to the pair's points doubled: the bin of k/2 points.
    ++p.counts[size_t(doubled + partner->second)];
  }
  return p;
}

double likelihoodOfSuperiority(const selfplay::MatchResult& r) {
  const double decisive = r.winsA + r.lossesA;
  if (decisive == 0) return 0.5;
  return 0.5 * (1.0 + std::erf((r.winsA - r.lossesA) / std::sqrt(2.0 * decisive)));
}

void checkSprtSettings(const SprtSettings& s) {
  auto text = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return std::string(buf);
  };
  if (!(s.elo0 < s.elo1))
    throw std::invalid_argument("elo0 " + text(s.elo0) + " must be below elo1 " + text(s.elo1));
  for (const auto& [name, value] : {std::pair{"alpha", s.alpha}, std::pair{"beta", s.beta}})
    if (!(value > 0 && value < 0.5))
      throw std::invalid_argument(std::string(name) + " " + text(value) + " must be in (0, 0.5)");
  if (s.minPairs < 0) throw std::invalid_argument("min pairs " + std::to_string(s.minPairs) + " must be at least 0");
}

double sprtLogLikelihoodRatio(const Pentanomial& pairs, const SprtSettings& s) {
  if (pairs.pairs() == 0) return 0;
  double n = 0, sum = 0;
  std::array<double, 5> weight{};
  for (size_t k = 0; k < 5; ++k) {
    weight[k] = pairs.counts[k] > 0 ? double(pairs.counts[k]) : 1e-3;
    n += weight[k];
    sum += weight[k] * (double(k) / 4.0);
  }
  const double mean = sum / n;
  double variance = 0;
  for (size_t k = 0; k < 5; ++k) variance += weight[k] * std::pow(double(k) / 4.0 - mean, 2);
  variance /= n;
  const double s0 = expectedScore(s.elo0), s1 = expectedScore(s.elo1);
  return double(pairs.pairs()) * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance);
}

SprtStatus sprtStatus(const Pentanomial& pairs, const SprtSettings& s) {
  SprtStatus st;
  st.llr = sprtLogLikelihoodRatio(pairs, s);
  st.lower = std::log(s.beta / (1.0 - s.alpha));
  st.upper = std::log((1.0 - s.beta) / s.alpha);
  if (pairs.pairs() < s.minPairs) return st;  // too few pairs to decide on: continue
  if (st.llr >= st.upper) st.verdict = SprtVerdict::kAcceptH1;
  else if (st.llr <= st.lower) st.verdict = SprtVerdict::kAcceptH0;
  return st;
}

std::string sprtVerdictText(SprtVerdict v) {
  switch (v) {
    case SprtVerdict::kAcceptH0: return "H0 accepted";
    case SprtVerdict::kAcceptH1: return "H1 accepted";
    default: return "undecided";
  }
}

}  // namespace poppy::report
