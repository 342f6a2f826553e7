// Games between two players with alternating colours, many at once: network players share one
// batched search per round (as in self-play), rollout and random players move directly. Used
// by the gate of `poppy train`, `poppy gate`, `poppy match` and the learning benchmarks.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mcts/evaluator.h"
#include "mcts/search_params.h"
#include "nn/encoder.h"
#include "selfplay/game_record.h"

namespace poppy::selfplay {

struct PlayerSpec {
  enum class Kind { kNetwork, kRollout, kRandom };
  Kind kind = Kind::kRandom;
  std::string name;                      // for records and reports
  mcts::Evaluator* evaluator = nullptr;  // kNetwork
  mcts::SearchParams search;             // kNetwork (rootNoise is turned off)
  int simulations = 1000;                // kRollout
};

struct MatchSettings {
  int games = 100;
  int parallelGames = 32;
  int openingTemperaturePlies = 2;  // network players sample their first moves by visits (variety)
  int plyCap = 200;
  uint64_t seed = 1;
};

struct MatchResult {
  int winsA = 0, draws = 0, lossesA = 0;
  int games() const { return winsA + draws + lossesA; }
  double score() const;        // A's score, draws counted as half
  double elo() const;          // A's Elo difference implied by the score
  // 95% interval of the Elo difference, from the Wilson interval of the score (which stays
  // meaningful at 0 or 100%); eloMargin95 is its half-width.
  std::pair<double, double> eloInterval95() const;
  double eloMargin95() const;
  std::vector<GameRecord> records;
};

using MatchProgress = std::function<void(const MatchResult& soFar, int gamesWanted)>;

// Game i has A as sente when i is even. Throws std::invalid_argument for a network player
// without an evaluator.
MatchResult playMatch(const game::VariantPtr& variant, const nn::Encoder& encoder, const PlayerSpec& a,
                      const PlayerSpec& b, const MatchSettings& settings, const MatchProgress& progress = nullptr);

// Elo difference for a score in (0, 1), clamped away from 0 and 1.
double eloFromScore(double score);

}  // namespace poppy::selfplay
