// Training checkpoints: model weights, optimizer state (momentum buffers) and step, in one
// file written atomically: "POPPYCKP <version>", a JSON header line (model info, sizes,
// CRC-32), then the two LibTorch payloads. A corrupt file is refused by name, never used.
#pragma once
#include <stdexcept>
#include <string>

#include "nn/model_file.h"
#include "training/trainer.h"

namespace poppy::training {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void saveCheckpoint(const std::string& path, Trainer& trainer, const nn::ModelInfo& info);

// Restores weights, optimizer state and step into `trainer` (built with the same shape).
// Throws CheckpointError naming the file when it is missing, corrupt or for another model.
nn::ModelInfo loadCheckpoint(const std::string& path, Trainer& trainer, const game::Variant* expectedVariant,
                             int expectedEncoder);

}  // namespace poppy::training
