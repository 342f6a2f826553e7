#include "training/train_phase.h"

#include <algorithm>
#include <cstdio>
#include <future>
#include <random>
#include <vector>

#include "nn/compute_threads.h"
#include "selfplay/sample.h"
#include "training/held_out_losses.h"

namespace poppy::training {
namespace {

// One batch of dense training inputs and targets (the auxiliary ones empty without auxiliary
// heads).
struct Batch {
  std::vector<float> planes, policy, wdl, rootValues;
  std::vector<float> replyPolicy, hasReply, pliesLeft;
  selfplay::AuxiliaryTargets targets() {
    return {replyPolicy.data(), hasReply.data(), pliesLeft.data()};
  }
  AuxiliaryBatch auxiliary() const { return {replyPolicy.data(), hasReply.data(), pliesLeft.data()}; }
};

}  // namespace

TrainPhaseOutcome trainOnWindow(const TrainPhaseInputs& in, RunLog& log) {
  const TrainRunConfig& config = in.config;
  const nn::Encoder& encoder = in.encoder;
  const int batch = config.batchSize;
  const int steps = config.stepsPerIteration;
  const bool auxiliary = in.trainer.net()->shape().auxiliaryHeads;
  Batch batches[2];
  for (Batch& b : batches) {
    b.planes.resize(size_t(batch) * encoder.inputSize());
    b.policy.resize(size_t(batch) * encoder.policySize());
    b.wdl.resize(size_t(batch) * size_t(encoder.valueSize()));
    b.rootValues.resize(size_t(batch));
    if (auxiliary) {
      b.replyPolicy.resize(size_t(batch) * encoder.policySize());
      b.hasReply.resize(size_t(batch));
      b.pliesLeft.resize(size_t(batch));
    }
  }
  std::mt19937 rng(uint32_t(config.seed * 7 + uint64_t(in.trainer.steps())));
  auto draw = [&](Batch& b) {
    const selfplay::AuxiliaryTargets targets = b.targets();
    in.window.sampleBatch(batch, rng, b.planes.data(), b.policy.data(), b.wdl.data(), b.rootValues.data(),
                          auxiliary ? &targets : nullptr);
    if (in.mirror)
      for (int i = 0; i < batch; ++i)
        if (rng() & 1) {
          in.mirror->reflectPlanes(b.planes.data() + size_t(i) * encoder.inputSize());
          in.mirror->reflectPolicy(b.policy.data() + size_t(i) * encoder.policySize());
          // The reply is the same game a ply on, reflected with it (nothing to do for none).
          if (auxiliary && b.hasReply[size_t(i)] > 0)
            in.mirror->reflectPolicy(b.replyPolicy.data() + size_t(i) * encoder.policySize());
        }
    if (config.rootValueWeight > 0)
      for (int i = 0; i < batch; ++i)
        selfplay::mixRootValue(b.wdl.data() + size_t(i) * 3, b.rootValues[size_t(i)], float(config.rootValueWeight));
  };
  auto stopped = [&] { return in.stop && in.stop(); };
  Losses sum, sinceEvent;
  int stepsSinceEvent = 0;
  const double start = nowSeconds();
  double eventStart = start;
  int done = 0;
  // The next batch is drawn on another thread while the network trains on this one, so the
  // step (on a GPU especially) never waits for sampling. Draws stay in order: the same batches
  // as drawing them one after another. With a feed, the window takes in new games only between
  // draws, and a batch drawn before the wait is drawn again after it when the window changed.
  bool windowChanged = false;
  if (in.waitForSamples && !in.waitForSamples(0, windowChanged)) return {};
  std::future<void> next;
  if (steps > 0) next = std::async(std::launch::async, draw, std::ref(batches[0]));
  for (; done < steps && !stopped(); ++done) {
    next.get();
    if (in.waitForSamples && done > 0) {
      windowChanged = false;
      if (!in.waitForSamples(done, windowChanged)) return {};
      if (windowChanged) draw(batches[done % 2]);
    }
    const Batch& b = batches[done % 2];
    if (done + 1 < steps) next = std::async(std::launch::async, draw, std::ref(batches[(done + 1) % 2]));
    const AuxiliaryBatch aux = b.auxiliary();
    const Losses l = in.trainer.step(b.planes.data(), b.policy.data(), b.wdl.data(), batch, auxiliary ? &aux : nullptr);
    for (Losses* into : {&sum, &sinceEvent}) {
      into->policy += l.policy;
      into->value += l.value;
      into->total += l.total;
      into->replyPolicy += l.replyPolicy;
      into->pliesLeft += l.pliesLeft;
    }
    if (++stepsSinceEvent == config.logEverySteps && in.stepsEvent) {
      const double now = nowSeconds(), n = stepsSinceEvent;
      nlohmann::json event = {{"event", "steps"},
                              {"steps", stepsSinceEvent},
                              {"policy_loss", sinceEvent.policy / n},
                              {"value_loss", sinceEvent.value / n},
                              {"total_loss", sinceEvent.total / n},
                              {"learning_rate", in.trainer.learningRateAt(in.trainer.steps())},
                              {"samples_per_second", n * batch / std::max(now - eventStart, 1e-9)}};
      if (auxiliary) {
        event["reply_policy_loss"] = sinceEvent.replyPolicy / n;
        event["plies_left_loss"] = sinceEvent.pliesLeft / n;
      }
      in.stepsEvent(std::move(event));
      sinceEvent = {};
      stepsSinceEvent = 0;
      eventStart = now;
    }
    char line[256];
    std::snprintf(line, sizeof line, "iter %d train step %d/%d  policy loss %.3f  value loss %.3f  lr %.4g",
                  in.iteration, done + 1, steps, l.policy, l.value, in.trainer.learningRateAt(in.trainer.steps()));
    log.status(line);
  }
  if (stopped()) return {};
  const double seconds = nowSeconds() - start;
  char line[256];
  std::snprintf(line, sizeof line, "iter %d train done: %d steps in %.0fs, policy loss %.3f, value loss %.3f, window %zu",
                in.iteration, done, seconds, sum.policy / done, sum.value / done, in.window.size());
  log.status(line, true);
  TrainPhaseOutcome out;
  out.finished = true;
  out.event = {{"event", "train"},
               {"steps", done},
               {"seconds", seconds},
               {"policy_loss", sum.policy / done},
               {"value_loss", sum.value / done},
               {"total_loss", sum.total / done},
               {"window", in.window.size()},
               {"samples_per_second", done * double(batch) / std::max(seconds, 1e-9)},
               {"learning_rate", in.trainer.learningRateAt(in.trainer.steps())}};
  if (auxiliary) {
    out.event["reply_policy_loss"] = sum.replyPolicy / done;
    out.event["plies_left_loss"] = sum.pliesLeft / done;
  }
  return out;
}

nlohmann::json scoreFreshGames(Trainer& trainer, const selfplay::ReplayWindow& window, const nn::Encoder& encoder,
                               const TrainRunConfig& config, size_t added, int iteration, RunLog& log) {
  static constexpr size_t kFreshSamples = 4096;
  const size_t count = std::min(added, kFreshSamples), first = window.size() - added;
  std::vector<const selfplay::Sample*> samples(count);
  for (size_t i = 0; i < count; ++i) samples[i] = &window.at(first + i * added / count);
  nn::setComputeThreads(config.trainThreads);
  const double start = nowSeconds();
  const HeldOutLosses fresh = scoreHeldOut(trainer, encoder, samples, config.batchSize);
  char line[256];
  std::snprintf(line, sizeof line,
                "iter %d fresh games (%zu samples, not yet trained on): policy loss %.3f, value loss %.3f "
                "(a constant guess %.3f)",
                iteration, count, fresh.policy, fresh.value, fresh.constantGuess);
  log.status(line, true);
  return {{"event", "fresh"},
          {"samples", count},
          {"seconds", nowSeconds() - start},
          {"fresh_policy_loss", fresh.policy},
          {"fresh_value_loss", fresh.value},
          {"constant_value_loss", fresh.constantGuess}};
}

}  // namespace poppy::training
