#include "training/held_out_losses.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nn/encoder.h"
#include "training/trainer.h"

namespace poppy::training {

HeldOutLosses scoreHeldOut(Trainer& trainer, const nn::Encoder& encoder,
                           const std::vector<const selfplay::Sample*>& samples, int batch) {
  if (samples.empty()) throw std::invalid_argument("scoreHeldOut: no samples to score");
  if (batch < 1) throw std::invalid_argument("scoreHeldOut: batch " + std::to_string(batch) + " is below 1");
  const size_t inputSize = size_t(encoder.inputSize()), policySize = size_t(encoder.policySize());
  const int valueSize = encoder.valueSize();
  std::vector<float> planes(size_t(batch) * inputSize), policy(size_t(batch) * policySize),
      value(size_t(batch) * size_t(valueSize));
  std::vector<double> frequency(static_cast<size_t>(valueSize));
  HeldOutLosses out;
  out.samples = samples.size();
  for (size_t at = 0; at < samples.size(); at += size_t(batch)) {
    const int n = int(std::min(samples.size() - at, size_t(batch)));
    for (int i = 0; i < n; ++i) {
      selfplay::writeDenseRow(*samples[at + size_t(i)], int(inputSize), int(policySize), valueSize, i, planes.data(),
                              policy.data(), value.data());
      const float* v = value.data() + size_t(i) * size_t(valueSize);
      for (int k = 0; k < valueSize; ++k) frequency[size_t(k)] += v[k];
    }
    const Losses l = trainer.evaluate(planes.data(), policy.data(), value.data(), n);
    out.policy += l.policy * n;
    out.value += l.value * n;
  }
  const double total = double(samples.size());
  out.policy /= total;
  out.value /= total;
  for (double f : frequency)
    if (f > 0) out.constantGuess -= f / total * std::log(f / total);
  return out;
}

}  // namespace poppy::training
