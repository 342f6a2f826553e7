#include "nn/eigen_from_torch.h"

#include <map>
#include <set>
#include <variant>

namespace poppy::nn {
namespace {

class Reader {
 public:
  explicit Reader(PolicyValueNetImpl& net) {
    for (const auto& m : net.named_modules("", /*include_self=*/false)) modules_[m.key()] = m.value();
    for (const auto& p : net.named_parameters()) tensors_[p.key()] = p.value();
    for (const auto& b : net.named_buffers()) tensors_[b.key()] = b.value();
  }

  ConvBnWeights convBn(const std::string& conv, const std::string& bn) {
    const auto* c = module(conv)->as<torch::nn::Conv2dImpl>();
    if (!c) throw UnsupportedNetwork(conv + " is not a 2-d convolution");
    const auto& o = c->options;
    const int kernel = int((*o.kernel_size())[0]);
    // LibTorch 1.13 keeps these options in c10::variant, 2.x in std::variant: with std::get_if
    // declared, argument-dependent lookup finds c10::get_if for the former.
    using std::get_if;
    const auto* padding = get_if<torch::ExpandingArray<2>>(&o.padding());
    if ((*o.kernel_size())[1] != kernel || (*o.stride())[0] != 1 || (*o.stride())[1] != 1 || (*o.dilation())[0] != 1 ||
        (*o.dilation())[1] != 1 || o.groups() != 1 || o.transposed() || !padding || (**padding)[0] != kernel / 2 ||
        (**padding)[1] != kernel / 2 || !get_if<torch::enumtype::kZeros>(&o.padding_mode()))
      throw UnsupportedNetwork(conv + " is not a square convolution with stride 1, zero padding kernel/2, one group");
    if (o.bias()) throw UnsupportedNetwork(conv + " has a bias (the architecture has none before batch norm)");
    const auto* b = module(bn)->as<torch::nn::BatchNorm2dImpl>();
    if (!b) throw UnsupportedNetwork(bn + " is not a 2-d batch norm");
    if (!b->options.affine() || !b->options.track_running_stats())
      throw UnsupportedNetwork(bn + " has no affine weights or no running statistics");
    ConvBnWeights w;
    w.in = int(o.in_channels());
    w.out = int(o.out_channels());
    w.kernel = kernel;
    w.weight = take(conv + ".weight", {w.out, w.in, kernel, kernel});
    w.gamma = take(bn + ".weight", {w.out});
    w.beta = take(bn + ".bias", {w.out});
    w.mean = take(bn + ".running_mean", {w.out});
    w.var = take(bn + ".running_var", {w.out});
    w.eps = b->options.eps();
    tensors_.erase(bn + ".num_batches_tracked");  // only counts training steps
    return w;
  }

  LinearWeights linear(const std::string& name) {
    const auto* l = module(name)->as<torch::nn::LinearImpl>();
    if (!l) throw UnsupportedNetwork(name + " is not a linear layer");
    if (!l->options.bias()) throw UnsupportedNetwork(name + " has no bias");
    LinearWeights w;
    w.in = int(l->options.in_features());
    w.out = int(l->options.out_features());
    w.weight = take(name + ".weight", {w.out, w.in});
    w.bias = take(name + ".bias", {w.out});
    return w;
  }

  // The tower's containers hold no weights of their own.
  void container(const std::string& name) { module(name); }

  // A head that only training uses (the auxiliary heads, nn/network.h): taken and dropped.
  void trainingOnly(const std::string& name) {
    module(name);
    for (auto it = tensors_.begin(); it != tensors_.end();)
      it = it->first.rfind(name + ".", 0) == 0 ? tensors_.erase(it) : std::next(it);
  }

  // Refuses what no reader call took: a module, parameter or buffer unknown to the forward.
  void checkNothingLeft() const {
    for (const auto& [name, m] : modules_)
      if (!used_.count(name)) throw UnsupportedNetwork("module " + name + " (" + m->name() + ") is not part of the architecture the Eigen forward runs");
    if (!tensors_.empty())
      throw UnsupportedNetwork("weight " + tensors_.begin()->first + " is not part of the architecture the Eigen forward runs");
  }

 private:
  std::shared_ptr<torch::nn::Module> module(const std::string& name) {
    const auto it = modules_.find(name);
    if (it == modules_.end()) throw UnsupportedNetwork("the network has no module " + name);
    used_.insert(name);
    return it->second;
  }

  std::vector<float> take(const std::string& name, const std::vector<int64_t>& sizes) {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) throw UnsupportedNetwork("the network has no weight " + name);
    const torch::Tensor t = it->second.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    tensors_.erase(it);
    if (t.sizes().vec() != sizes) throw UnsupportedNetwork("weight " + name + " has sizes " + c10::str(t.sizes()));
    const float* p = t.data_ptr<float>();
    return std::vector<float>(p, p + t.numel());
  }

  std::map<std::string, std::shared_ptr<torch::nn::Module>> modules_;
  std::map<std::string, torch::Tensor> tensors_;
  std::set<std::string> used_;
};

}  // namespace

TorchLayoutWeights torchLayoutWeights(PolicyValueNetImpl& net) {
  torch::NoGradGuard noGrad;
  Reader r(net);
  TorchLayoutWeights w;
  w.shape = net.shape();
  w.input = r.convBn("input_conv", "input_bn");
  r.container("tower");
  for (int b = 0; b < w.shape.blocks; ++b) {
    const std::string block = "tower." + std::to_string(b);
    r.container(block);
    w.tower.push_back(r.convBn(block + ".conv1", block + ".bn1"));
    w.tower.push_back(r.convBn(block + ".conv2", block + ".bn2"));
  }
  w.policyConv = r.convBn("policy_conv", "policy_bn");
  w.valueConv = r.convBn("value_conv", "value_bn");
  if (w.shape.policyPlanes > 0) w.policyOut = r.convBn("policy_out", "policy_out_bn");
  else w.policyFc = r.linear("policy_fc");
  w.valueFc1 = r.linear("value_fc1");
  w.valueFc2 = r.linear("value_fc2");
  if (w.shape.auxiliaryHeads) {
    if (w.shape.policyPlanes > 0) {
      r.trainingOnly("reply_policy_out");
      r.trainingOnly("reply_policy_out_bn");
    } else {
      r.trainingOnly("reply_policy_fc");
    }
    r.trainingOnly("plies_left_fc");
  }
  r.checkNothingLeft();
  return w;
}

EigenNetwork eigenNetworkOf(PolicyValueNetImpl& net) { return foldNetwork(torchLayoutWeights(net)); }

}  // namespace poppy::nn
