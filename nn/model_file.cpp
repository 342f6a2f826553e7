#include "nn/model_file.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.h"

namespace poppy::nn {

std::string moduleToBytes(torch::nn::Module& module) {
  // Always written from the CPU, so weights saved during a GPU run load on any machine.
  const std::vector<torch::Tensor> params = module.parameters();
  const torch::Device device = params.empty() ? torch::Device(torch::kCPU) : params[0].device();
  if (!device.is_cpu()) module.to(torch::kCPU);
  torch::serialize::OutputArchive archive;
  module.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  if (!device.is_cpu()) module.to(device);
  return out.str();
}

void moduleFromBytes(torch::nn::Module& module, const std::string& bytes) {
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in, torch::kCPU);
  module.load(archive);
}

void saveModel(const std::string& path, PolicyValueNet& net, const ModelInfo& info) {
  common::writeFileAtomically(path, modelFileBytes(info, moduleToBytes(*net)));
}

PolicyValueNet loadModel(const std::string& path, ModelInfo* info, const game::Variant* expected,
                         int expectedEncoder) {
  ModelFileContents p = readModelFile(path, true);
  checkModelFits(p.info, path, expected, expectedEncoder);
  PolicyValueNet net(p.info.shape);
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& t : net->named_parameters()) shapes.push_back(t.value().sizes().vec());
  try {
    moduleFromBytes(*net, p.payload);
  } catch (const c10::Error& e) {
    throw ModelError("model " + path + ": weights do not load: " + std::string(e.what_without_backtrace()));
  }
  // LibTorch replaces tensors whatever their size: check them against the header's architecture.
  size_t i = 0;
  for (const auto& t : net->named_parameters())
    if (t.value().sizes().vec() != shapes[i++])
      throw ModelError("model " + path + ": weight " + t.key() + " does not fit the architecture in the header");
  if (info) *info = p.info;
  return net;
}

}  // namespace poppy::nn
