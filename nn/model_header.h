// The header of model files (nn/model_file.h writes and loads the weights): a text line
// "POPPYNET <version>", then one JSON line (variant, rules fingerprint, encoder version,
// architecture, training step, payload size, CRC-32), then the LibTorch parameters. Reading and
// checking the header needs no LibTorch, so listing models, choosing a variant from a model and
// refusing a wrong model cost no network start-up.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "game/variant.h"
#include "nn/network_shape.h"

namespace poppy::nn {

class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelInfo {
  std::string variant;
  uint64_t rules = 0;  // game::rulesFingerprint of the variant trained on; 0: not recorded (older files)
  int encoderVersion = 0;
  NetworkShape shape;
  int64_t step = 0;   // training steps behind these weights
  std::string id;     // e.g. "gen-0007"
};

// "4 blocks x 32 channels, value head 32 wide": how messages name a network.
std::string describeNetwork(const NetworkShape& s);
// The architecture fields that decide whether weights load into a network (the encoder's
// planes, board and policy size included).
bool sameNetwork(const NetworkShape& a, const NetworkShape& b);

// The header fields shared by model files and checkpoints. fromJson throws
// nlohmann::json::exception for a missing or mistyped field.
void modelInfoToJson(const ModelInfo& info, nlohmann::json& out);
ModelInfo modelInfoFromJson(const nlohmann::json& in);

// A whole model file, its header checked (format, fields, plausible architecture) and, with
// withPayload, its size and checksum too. Throws ModelError naming the file.
struct ModelFileContents {
  ModelInfo info;
  std::string payload;  // the LibTorch parameters (empty without withPayload)
};
// Without withPayload only the header's first bytes are read.
ModelFileContents readModelFile(const std::string& path, bool withPayload);
// The same for a file's bytes (without withPayload, the file's first bytes are enough); path only
// names the file in errors.
ModelFileContents parseModelFile(const std::string& bytes, const std::string& path, bool withPayload);
// The bytes of a model file for these weights (what saveModel writes).
std::string modelFileBytes(const ModelInfo& info, const std::string& payload);

// Reads the header only (cheap): for listing and for checking before a load.
ModelInfo readModelInfo(const std::string& path);

// Refuses (ModelError naming the file, both variants and both fingerprints) a model trained for
// another variant, for the same name with other rules, or with another encoder version.
// expected == nullptr accepts any variant; expectedEncoder 0 accepts any encoder.
void checkModelFits(const ModelInfo& info, const std::string& path, const game::Variant* expected,
                    int expectedEncoder);

}  // namespace poppy::nn
