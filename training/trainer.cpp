#include "training/trainer.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

#include "nn/autocast.h"
#include "nn/torch_evaluator.h"
#include "training/multi_tensor_sgd.h"

namespace poppy::training {

Trainer::Trainer(nn::PolicyValueNet net, OptimizerConfig config, torch::Device device, nn::Precision precision,
                 MemoryLayout layout)
    : net_(std::move(net)),
      config_(std::move(config)),
      device_(device),
      precision_(precision),
      channelsLast_(trainsChannelsLast(layout, device.is_cpu(), net_->shape().policyPlanes > 0)) {
  placeNetwork();
  optimizer_ = std::make_unique<torch::optim::SGD>(
      net_->parameters(), torch::optim::SGDOptions(config_.learningRate)
                              .momentum(config_.momentum)
                              .weight_decay(config_.weightDecay)
                              .nesterov(true));
}

void Trainer::placeNetwork() {
  net_->to(device_);
  // Both ways: loaded weights come in the layout they were saved in. set_data keeps each
  // parameter's identity, so the optimizer's state stays attached to it.
  const auto format = channelsLast_ ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  torch::NoGradGuard noGrad;
  for (auto& p : net_->parameters())
    if (p.dim() == 4 && !p.is_contiguous(format)) p.set_data(p.data().contiguous(format));
}

double Trainer::learningRateAt(int64_t step) const {
  double rate = config_.learningRate;
  for (const auto& [from, r] : config_.schedule)
    if (step >= from) rate = r;
  return rateCap_ > 0 ? std::min(rate, rateCap_) : rate;
}

namespace {
// `data` as a float32 tensor on `device`; to a GPU through page-locked memory (a DMA copy that
// does not hold the CPU).
torch::Tensor onDevice(const float* data, std::vector<int64_t> sizes, const torch::Device& device) {
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  if (device.is_cpu()) return torch::from_blob(const_cast<float*>(data), sizes, opts);
  torch::Tensor pinned = torch::empty(sizes, opts.pinned_memory(true));
  std::memcpy(pinned.data_ptr<float>(), data, sizeof(float) * size_t(pinned.numel()));
  return pinned.to(device, /*non_blocking=*/true);
}

// A batch on the device: planes x, policy targets pt, value targets vt.
struct DeviceBatch {
  torch::Tensor x, pt, vt;
};
DeviceBatch onDevice(const nn::NetworkShape& s, const float* planes, const float* policy, const float* wdl, int batch,
                     const torch::Device& device, bool channelsLast) {
  torch::Tensor x = onDevice(planes, {batch, s.planes, s.height, s.width}, device);
  if (channelsLast) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
  return {x, onDevice(policy, {batch, s.policySize}, device), onDevice(wdl, {batch, s.valueOutputs}, device)};
}

// The auxiliary losses (reply policy, plies left) on a batch: masked means over the batch, in
// float32 as the others.
std::pair<torch::Tensor, torch::Tensor> auxiliaryLosses(const nn::NetworkOutputs& out, const nn::NetworkShape& s,
                                                        const AuxiliaryBatch& aux, int batch, const torch::Device& device) {
  const torch::Tensor replyTarget = onDevice(aux.replyPolicy, {batch, s.policySize}, device);
  const torch::Tensor hasReply = onDevice(aux.hasReply, {batch}, device);
  const torch::Tensor plies = onDevice(aux.pliesLeft, {batch}, device);
  const torch::Tensor reply =
      -(hasReply * (replyTarget * torch::log_softmax(out.replyPolicy.to(torch::kFloat32), 1)).sum(1)).mean();
  // Huber (quadratic within 1, that is 16 plies, linear beyond): a long game's count does not
  // swamp the step, as in lc0's moves-left head.
  const torch::Tensor known = (plies > 0).to(torch::kFloat32);
  const torch::Tensor huber = torch::nn::functional::smooth_l1_loss(
      out.pliesLeft.to(torch::kFloat32), plies / nn::PolicyValueNetImpl::kPliesLeftScale,
      torch::nn::functional::SmoothL1LossFuncOptions().reduction(torch::kNone));
  return {reply, (known * huber).mean()};
}

// The policy and value cross-entropies of the network's outputs on a batch (in float32 whatever
// the forward pass ran in), as step and evaluate both score it.
std::pair<torch::Tensor, torch::Tensor> crossEntropies(const torch::Tensor& logits, const torch::Tensor& value,
                                                       const DeviceBatch& b) {
  return {-(b.pt * torch::log_softmax(logits.to(torch::kFloat32), 1)).sum(1).mean(),
          -(b.vt * torch::log_softmax(value.to(torch::kFloat32), 1)).sum(1).mean()};
}

// The network's heads on a batch, the forward pass autocast to bfloat16 when bf16; the
// auxiliary heads only when `auxiliary`.
nn::NetworkOutputs outputs(nn::PolicyValueNet& net, const torch::Tensor& x, bool bf16, bool auxiliary) {
  nn::Autocast autocast(bf16, x.device().type());
  if (auxiliary) return net->forwardAll(x);
  auto [logits, value] = net->forward(x);
  return {logits, value, {}, {}};
}
}  // namespace

Losses Trainer::step(const float* planes, const float* policy, const float* wdl, int batch, const AuxiliaryBatch* aux) {
  const DeviceBatch b = onDevice(net_->shape(), planes, policy, wdl, batch, device_, channelsLast_);
  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(learningRateAt(steps_));
  net_->train();
  torch::Tensor policyLoss, valueLoss, replyLoss, pliesLoss, total;
  const bool auxiliary = aux && net_->shape().auxiliaryHeads;
  nn::reportingOutOfMemory("training a batch of " + std::to_string(batch) + " samples on " + device_.str(),
                           "lower training.batch_size", [&] {
                             const nn::NetworkOutputs out =
                                 outputs(net_, b.x, precision_ == nn::Precision::kBfloat16, auxiliary);
                             std::tie(policyLoss, valueLoss) = crossEntropies(out.policy, out.value, b);
                             if (auxiliary)
                               std::tie(replyLoss, pliesLoss) = auxiliaryLosses(out, net_->shape(), *aux, batch, device_);
                             else
                               replyLoss = pliesLoss = torch::zeros({}, policyLoss.options());
                             total = policyLoss + config_.valueLossWeight * valueLoss +
                                     config_.replyPolicyWeight * replyLoss + config_.pliesLeftWeight * pliesLoss;
                             optimizer_->zero_grad();
                             total.backward();
                             multiTensorSgdStep(*optimizer_);
                             return 0;
                           });
  ++steps_;
  // One copy back: three item() calls would each wait for the GPU.
  const torch::Tensor l = torch::stack({policyLoss.detach(), valueLoss.detach(), total.detach(), replyLoss.detach(),
                                        pliesLoss.detach()})
                              .to(torch::kCPU, torch::kDouble);
  const double* v = l.data_ptr<double>();
  return Losses{v[0], v[1], v[2], v[3], v[4]};
}

Losses Trainer::evaluate(const float* planes, const float* policy, const float* wdl, int batch) {
  const DeviceBatch b = onDevice(net_->shape(), planes, policy, wdl, batch, device_, channelsLast_);
  torch::NoGradGuard noGrad;
  net_->eval();
  torch::Tensor policyLoss, valueLoss;
  nn::reportingOutOfMemory("evaluating a batch of " + std::to_string(batch) + " samples on " + device_.str(),
                           "lower training.batch_size", [&] {
                             const nn::NetworkOutputs out =
                                 outputs(net_, b.x, precision_ == nn::Precision::kBfloat16, false);
                             std::tie(policyLoss, valueLoss) = crossEntropies(out.policy, out.value, b);
                             return 0;
                           });
  net_->train();
  const torch::Tensor l = torch::stack({policyLoss, valueLoss}).to(torch::kCPU, torch::kDouble);
  const double* v = l.data_ptr<double>();
  return Losses{v[0], v[1], v[0] + config_.valueLossWeight * v[1]};
}

}  // namespace poppy::training
