// Checks made before `poppy train` writes anything into a run directory: that a directory
// without state.json holds no earlier run (it would be overwritten), that a resumed run's
// network is the configured one, and that a model to start a new run from (--init-model) fits
// the configuration. Each failure is a RunDirectoryError naming the files and what differs.
#pragma once
#include <stdexcept>
#include <string>

#include "game/variant.h"
#include "nn/model_header.h"
#include "nn/network_shape.h"

namespace poppy::training {

class RunDirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A directory with no state.json is a new run only if it holds none of a run's files
// (candidate.ckpt, models/*.model, games.jsonl, replay chunks); otherwise state.json was lost
// and a new run would overwrite generation 0, the candidate and the records.
void refuseRunWithoutState(const std::string& runDir);

// The run's best model (bestModelPath) against the configured network: a config whose network
// changed is refused, naming both (the weights cannot go on in another shape).
void refuseChangedNetwork(const std::string& bestModelPath, const nn::NetworkShape& configured,
                          const std::string& configPath);

// The header of --init-model's file, checked against the run's variant (name, rules, encoder)
// and configured network; returns it. grow (--grow): a smaller network that can grow into the
// configured one (nn/network_growth.h) is accepted too.
nn::ModelInfo checkInitModel(const std::string& modelPath, const game::Variant& variant, int encoderVersion,
                             const nn::NetworkShape& configured, const std::string& configPath, bool grow);

}  // namespace poppy::training
