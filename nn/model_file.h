// Model files: the header (nn/model_header.h: variant, rules fingerprint, encoder version,
// architecture, training step, payload size, CRC-32) then the LibTorch parameters. Written
// atomically; a file for another variant, rules or encoder, a truncated file or a bad checksum is
// refused with a ModelError naming the file.
#pragma once
#include <string>

#include "nn/model_header.h"
#include "nn/network.h"

namespace poppy::nn {

// Serialises module parameters and buffers to bytes and back (used by checkpoints too). The bytes
// are always written from the CPU: a module on a GPU is moved there for the write and back after
// (so no other thread may use it meanwhile); moduleFromBytes loads onto the CPU.
std::string moduleToBytes(torch::nn::Module& module);
void moduleFromBytes(torch::nn::Module& module, const std::string& bytes);

void saveModel(const std::string& path, PolicyValueNet& net, const ModelInfo& info);
// Loads onto the CPU. expected / expectedEncoder: refuse a model built for another variant (name
// or rules fingerprint) or encoder (nullptr / 0 to accept any); see checkModelFits.
PolicyValueNet loadModel(const std::string& path, ModelInfo* info, const game::Variant* expected,
                         int expectedEncoder);

}  // namespace poppy::nn
