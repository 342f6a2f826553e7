// How well a network knows games it has not trained on: its mean losses on a list of samples,
// scored as it searches (Trainer::evaluate), beside the loss of the best constant guess of their
// results. A value loss above the constant guess's means the value head learned the games it
// trained on by heart (docs/commands/train.md "Value overfitting"). Used by `poppy train`'s `fresh` lines and by
// bench/bench_value_overfit.
#pragma once
#include <cstddef>
#include <vector>

#include "selfplay/sample.h"

namespace poppy::nn {
class Encoder;
}

namespace poppy::training {

class Trainer;

struct HeldOutLosses {
  size_t samples = 0;
  double policy = 0, value = 0;
  // The value loss of predicting, for every sample, these samples' own frequencies of results
  // (the entropy of those frequencies): the best any network that ignores the position can do.
  double constantGuess = 0;
};

// Scores `samples` in batches of at most `batch`. Throws std::invalid_argument for an empty list
// or a batch below 1.
HeldOutLosses scoreHeldOut(Trainer& trainer, const nn::Encoder& encoder,
                           const std::vector<const selfplay::Sample*>& samples, int batch);

}  // namespace poppy::training
