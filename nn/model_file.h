// Model files: a text line "POPPYNET <version>", a JSON header line (variant, encoder version,
// architecture, training step, payload size, CRC-32), then the LibTorch parameters. Written
// atomically; a file for another variant or encoder, a truncated file or a bad checksum is
// refused with a ModelError naming the file.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "nn/network.h"

namespace poppy::nn {

class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelInfo {
  std::string variant;
  int encoderVersion = 0;
  NetworkShape shape;
  int64_t step = 0;   // training steps behind these weights
  std::string id;     // e.g. "gen-0007"
};

// The header fields shared by model files and checkpoints. fromJson throws
// nlohmann::json::exception for a missing or mistyped field.
void modelInfoToJson(const ModelInfo& info, nlohmann::json& out);
ModelInfo modelInfoFromJson(const nlohmann::json& in);

// Serialises module parameters and buffers to bytes and back (used by checkpoints too).
std::string moduleToBytes(torch::nn::Module& module);
void moduleFromBytes(torch::nn::Module& module, const std::string& bytes);

void saveModel(const std::string& path, PolicyValueNet& net, const ModelInfo& info);
// Reads the header only (cheap): for listing and for checking before a load.
ModelInfo readModelInfo(const std::string& path);
// Loads onto the CPU. expectedVariant / expectedEncoder: refuse a model built for others
// ("" / 0 to accept any).
PolicyValueNet loadModel(const std::string& path, ModelInfo* info, const std::string& expectedVariant,
                         int expectedEncoder);

}  // namespace poppy::nn
