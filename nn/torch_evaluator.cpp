#include "nn/torch_evaluator.h"

#include <cstring>
#include <stdexcept>

#include "nn/model_file.h"

namespace poppy::nn {

torch::Device parseDevice(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  if (name.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available())
      throw std::runtime_error("device '" + name +
                               "' asked for, but this LibTorch build has no CUDA or no GPU is visible; use device: cpu "
                               "or build against a CUDA LibTorch (see docs/commands/train.md, \"Training on a GPU\")");
    return torch::Device(name);
  }
  throw std::runtime_error("unknown device '" + name + "' (use cpu, cuda or cuda:N)");
}

namespace {
// A module of its own: converting the caller's module would change it under the caller.
PolicyValueNet copyOf(PolicyValueNet& net) {
  PolicyValueNet copy(net->shape());
  moduleFromBytes(*copy, moduleToBytes(*net));
  return copy;
}
}  // namespace

TorchEvaluator::TorchEvaluator(PolicyValueNet net, torch::Device device, Precision precision)
    : net_(precision == Precision::kBfloat16 ? copyOf(net) : std::move(net)), device_(device), precision_(precision) {
  if (precision_ == Precision::kBfloat16) net_->to(device_, torch::kBFloat16);
  else net_->to(device_);
  net_->eval();
}

void TorchEvaluator::evaluate(const float* planes, int batch, float* policyLogits, float* wdl) {
  if (batch <= 0) return;
  torch::NoGradGuard noGrad;
  const NetworkShape& s = net_->shape();
  const std::vector<int64_t> sizes = {batch, s.planes, s.height, s.width};
  torch::Tensor input;
  if (device_.is_cuda()) {
    // Through page-locked memory: the copy to the GPU then runs at full bus speed, by DMA.
    input = torch::empty(sizes, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
    std::memcpy(input.data_ptr<float>(), planes, sizeof(float) * size_t(input.numel()));
    input = input.to(device_, /*non_blocking=*/true);
  } else {
    input = torch::from_blob(const_cast<float*>(planes), sizes, torch::kFloat32);
  }
  if (precision_ == Precision::kBfloat16) input = input.to(torch::kBFloat16);
  auto [policy, value] = reportingOutOfMemory(
      "evaluating a batch of " + std::to_string(batch) + " positions on " + device_.str(),
      "lower selfplay.parallel_games or leaves_per_tree", [&] { return net_->forward(input); });
  const int p = s.policySize;
  if (!device_.is_cuda()) {
    policy = policy.to(torch::kFloat32).contiguous();  // (a no-op in fp32; a bf16 copy answers in bfloat16)
    value = torch::softmax(value.to(torch::kFloat32), 1).contiguous();
    std::memcpy(policyLogits, policy.data_ptr<float>(), sizeof(float) * size_t(batch) * p);
    std::memcpy(wdl, value.data_ptr<float>(), sizeof(float) * size_t(batch) * size_t(s.valueOutputs));
    return;
  }
  // One copy back, into page-locked memory (reused by LibTorch's host allocator, so no fresh
  // pages to fault in): policy logits and win/draw/loss side by side, one row per position.
  const torch::Tensor out =
      torch::cat({policy.to(torch::kFloat32), torch::softmax(value.to(torch::kFloat32), 1)}, 1);
  const int v = s.valueOutputs;
  torch::Tensor host = torch::empty({batch, p + v}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
  host.copy_(out);
  const float* row = host.data_ptr<float>();
  for (int i = 0; i < batch; ++i, row += p + v) {
    std::memcpy(policyLogits + size_t(i) * p, row, sizeof(float) * size_t(p));
    std::memcpy(wdl + size_t(i) * v, row + p, sizeof(float) * size_t(v));
  }
}

}  // namespace poppy::nn
