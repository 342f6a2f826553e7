#include "training/trainer.h"

namespace poppy::training {

Trainer::Trainer(nn::PolicyValueNet net, OptimizerConfig config, torch::Device device)
    : net_(std::move(net)), config_(std::move(config)), device_(device) {
  net_->to(device_);
  optimizer_ = std::make_unique<torch::optim::SGD>(
      net_->parameters(), torch::optim::SGDOptions(config_.learningRate)
                              .momentum(config_.momentum)
                              .weight_decay(config_.weightDecay)
                              .nesterov(true));
}

double Trainer::learningRateAt(int64_t step) const {
  double rate = config_.learningRate;
  for (const auto& [from, r] : config_.schedule)
    if (step >= from) rate = r;
  return rate;
}

Losses Trainer::step(const float* planes, const float* policy, const float* wdl, int batch) {
  const nn::NetworkShape& s = net_->shape();
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  auto x = torch::from_blob(const_cast<float*>(planes), {batch, s.planes, s.height, s.width}, opts).to(device_);
  auto pt = torch::from_blob(const_cast<float*>(policy), {batch, s.policySize}, opts).to(device_);
  auto vt = torch::from_blob(const_cast<float*>(wdl), {batch, 3}, opts).to(device_);

  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(learningRateAt(steps_));
  net_->train();
  auto [logits, value] = net_->forward(x);
  auto policyLoss = -(pt * torch::log_softmax(logits, 1)).sum(1).mean();
  auto valueLoss = -(vt * torch::log_softmax(value, 1)).sum(1).mean();
  auto total = policyLoss + config_.valueLossWeight * valueLoss;
  optimizer_->zero_grad();
  total.backward();
  optimizer_->step();
  ++steps_;
  return Losses{policyLoss.item<double>(), valueLoss.item<double>(), total.item<double>()};
}

}  // namespace poppy::training
