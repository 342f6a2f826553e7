// Win rates as centipawns on the shogi engines' logistic scale: coef x ln(p / (1 - p)) (dlshogi's
// eval_coef 756: +756 cp at p = 0.73), so that GUIs' graphs and match adjudication read Poppy's
// evaluations as they read theirs. For `poppy usi`'s `score cp` (EvalCoef) and the scores of model
// players in matches (selfplay/adjudication.h).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace poppy::mcts {

inline constexpr int64_t kShogiEvalCoef = 756;

// p is kept in [1e-4, 1 - 1e-4]: at most +-9.2 x coef (6,963 cp at 756).
inline int64_t centipawnsOfWinRate(double p, int64_t coef = kShogiEvalCoef) {
  p = std::clamp(p, 1e-4, 1 - 1e-4);
  return std::llround(double(coef) * std::log(p / (1 - p)));
}

}  // namespace poppy::mcts
