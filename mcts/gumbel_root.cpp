#include "mcts/gumbel_root.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace poppy::mcts {

std::vector<int> sequentialHalvingSchedule(int considered, int simulations) {
  if (considered < 1 || simulations < 0)
    throw std::invalid_argument("sequentialHalvingSchedule: " + std::to_string(considered) + " moves, " +
                                std::to_string(simulations) + " playouts");
  std::vector<int> schedule;
  schedule.reserve(size_t(simulations));
  if (considered == 1) {  // one move takes every playout
    for (int k = 0; k < simulations; ++k) schedule.push_back(k);
    return schedule;
  }
  const int phases = int(std::ceil(std::log2(double(considered))));
  int left = considered, visits = 0;  // every move left has `visits` visits at a phase's start
  while (int(schedule.size()) < simulations) {
    const int extra = std::max(1, simulations / (phases * left));
    for (int round = 0; round < extra; ++round, ++visits)
      for (int move = 0; move < left; ++move) schedule.push_back(visits);
    left = std::max(2, left / 2);
  }
  schedule.resize(size_t(simulations));
  return schedule;
}

void GumbelRoot::start(int moves, int simulations, float networkValue, const GumbelParams& params,
                       std::mt19937_64& rng) {
  std::vector<float> gumbel(size_t(std::max(moves, 0)));
  for (float& g : gumbel) {
    // A uniform draw in (0, 1) from the top 53 bits, then g = -log(-log(u)): Gumbel(0, 1).
    const double u = (double(rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    g = float(-std::log(-std::log(u)));
  }
  start(std::move(gumbel), simulations, networkValue, params);
}

void GumbelRoot::start(std::vector<float> gumbel, int simulations, float networkValue, const GumbelParams& params) {
  if (params.considered < 1) throw std::invalid_argument("GumbelRoot: considered moves must be at least 1");
  gumbel_ = std::move(gumbel);
  params_ = params;
  networkValue_ = networkValue;
  const int considered = std::min(params.considered, int(gumbel_.size()));
  schedule_ = considered > 0 ? sequentialHalvingSchedule(considered, std::max(simulations, 0)) : std::vector<int>{};
}

std::vector<float> GumbelRoot::completedQ(const std::vector<GumbelChild>& children) const {
  // v_mix = (v + N / (sum of visited priors) * sum over visited of prior * q) / (1 + N), N the
  // visits below the root: the network's value, then the visited moves' values as the
  // policy would weigh them.
  double visits = 0, visitedPrior = 0, weightedQ = 0;
  for (const GumbelChild& c : children)
    if (c.visits > 0) {
      visits += c.visits;
      visitedPrior += c.prior;
      weightedQ += double(c.prior) * c.q;
    }
  double mixed = networkValue_;
  if (visits > 0 && visitedPrior > 0) mixed = (networkValue_ + visits * weightedQ / visitedPrior) / (1.0 + visits);
  std::vector<float> q(children.size());
  for (size_t i = 0; i < children.size(); ++i) q[i] = children[i].visits > 0 ? children[i].q : float(mixed);
  return q;
}

std::vector<float> GumbelRoot::sigma(const std::vector<GumbelChild>& children) const {
  std::vector<float> q = completedQ(children);
  float low = std::numeric_limits<float>::infinity(), high = -low;
  int mostVisits = 0;
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].excluded) continue;
    low = std::min(low, q[i]);
    high = std::max(high, q[i]);
    mostVisits = std::max(mostVisits, children[i].visits);
  }
  const float scale = (params_.cVisit + float(mostVisits)) * params_.cScale;
  for (size_t i = 0; i < q.size(); ++i) {
    const float rescaled = high > low ? std::clamp((q[i] - low) / (high - low), 0.0f, 1.0f) : 0.0f;
    q[i] = scale * rescaled;
  }
  return q;
}

std::vector<float> GumbelRoot::scores(const std::vector<GumbelChild>& children, bool withGumbel) const {
  if (children.size() != gumbel_.size())
    throw std::logic_error("GumbelRoot: " + std::to_string(children.size()) + " children, " +
                           std::to_string(gumbel_.size()) + " Gumbel variables");
  std::vector<float> s = sigma(children);
  for (size_t i = 0; i < children.size(); ++i)
    s[i] += std::log(std::max(children[i].prior, 1e-30f)) + (withGumbel ? gumbel_[i] : 0.0f);
  return s;
}

int GumbelRoot::select(const std::vector<GumbelChild>& children) const {
  const std::vector<float> score = scores(children, true);
  int sims = 0;
  for (const GumbelChild& c : children) sims += c.visits + c.inFlight;
  const auto count = [&](size_t i) { return children[i].visits + children[i].inFlight; };
  int best = -1;
  if (sims < int(schedule_.size())) {
    const int wanted = schedule_[size_t(sims)];
    for (size_t i = 0; i < children.size(); ++i)
      if (!children[i].excluded && count(i) == wanted && (best < 0 || score[i] > score[size_t(best)])) best = int(i);
    if (best >= 0) return best;
  }
  // The two most visited moves (ties: the better score) take turns, the one behind first.
  int first = -1, second = -1;
  const auto ahead = [&](int a, int b) {
    return b < 0 || count(size_t(a)) > count(size_t(b)) ||
           (count(size_t(a)) == count(size_t(b)) && score[size_t(a)] > score[size_t(b)]);
  };
  for (int i = 0; i < int(children.size()); ++i) {
    if (children[size_t(i)].excluded) continue;
    if (ahead(i, first)) {
      second = first;
      first = i;
    } else if (ahead(i, second)) {
      second = i;
    }
  }
  if (second < 0) return first;
  return count(size_t(second)) < count(size_t(first)) ? second : first;
}

int GumbelRoot::choice(const std::vector<GumbelChild>& children) const {
  const std::vector<float> score = scores(children, true);
  int mostVisits = -1;
  for (const GumbelChild& c : children)
    if (!c.excluded) mostVisits = std::max(mostVisits, c.visits);
  int best = -1;
  for (size_t i = 0; i < children.size(); ++i)
    if (!children[i].excluded && children[i].visits == mostVisits && (best < 0 || score[i] > score[size_t(best)]))
      best = int(i);
  return best;
}

void GumbelRoot::improvedPolicy(const std::vector<GumbelChild>& children, std::vector<double>& out) const {
  const std::vector<float> score = scores(children, false);
  out.assign(children.size(), 0.0);
  float top = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < children.size(); ++i)
    if (!children[i].excluded) top = std::max(top, score[i]);
  double sum = 0;
  for (size_t i = 0; i < children.size(); ++i)
    if (!children[i].excluded) sum += (out[i] = std::exp(double(score[i] - top)));
  if (sum > 0)
    for (double& p : out) p /= sum;
}

}  // namespace poppy::mcts
