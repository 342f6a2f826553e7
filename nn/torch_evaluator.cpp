#include "nn/torch_evaluator.h"

#include <cstring>
#include <stdexcept>


namespace poppy::nn {

torch::Device parseDevice(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  if (name.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available())
      throw std::runtime_error("device '" + name +
                               "' asked for, but this LibTorch build has no CUDA or no GPU is visible; use device: cpu "
                               "or build against a CUDA LibTorch (see README)");
    return torch::Device(name);
  }
  throw std::runtime_error("unknown device '" + name + "' (use cpu, cuda or cuda:N)");
}

TorchEvaluator::TorchEvaluator(PolicyValueNet net, torch::Device device) : net_(std::move(net)), device_(device) {
  net_->to(device_);
  net_->eval();
}

void TorchEvaluator::evaluate(const float* planes, int batch, float* policyLogits, float* wdl) {
  if (batch <= 0) return;
  torch::NoGradGuard noGrad;
  const NetworkShape& s = net_->shape();
  auto input = torch::from_blob(const_cast<float*>(planes), {batch, s.planes, s.height, s.width}, torch::kFloat32);
  auto [policy, value] = net_->forward(input.to(device_));
  policy = policy.to(torch::kCPU).contiguous();
  value = torch::softmax(value, 1).to(torch::kCPU).contiguous();
  std::memcpy(policyLogits, policy.data_ptr<float>(), sizeof(float) * size_t(batch) * s.policySize);
  std::memcpy(wdl, value.data_ptr<float>(), sizeof(float) * size_t(batch) * 3);
}

}  // namespace poppy::nn
