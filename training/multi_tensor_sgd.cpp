#include "training/multi_tensor_sgd.h"

#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

namespace poppy::training {
namespace {

// The key of a parameter's entry in the optimizer's state: LibTorch 1.13 writes the address of
// its TensorImpl as text, 2.x uses the address itself.
template <typename Key>
Key stateKey(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << static_cast<void*>(p.unsafeGetTensorImpl());
    return text.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace

void multiTensorSgdStep(torch::optim::SGD& optimizer) {
  torch::NoGradGuard noGrad;
  auto& state = optimizer.state();
  using Key = typename std::remove_reference_t<decltype(state)>::key_type;
  for (auto& group : optimizer.param_groups()) {
    const auto& o = static_cast<const torch::optim::SGDOptions&>(group.options());
    std::vector<torch::Tensor> params, grads, buffers;
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      grads.push_back(p.grad());
    }
    if (params.empty()) continue;
    // d_p = grad + weight_decay * p
    std::vector<torch::Tensor> steps = o.weight_decay() != 0 ? torch::_foreach_add(grads, params, o.weight_decay())
                                                             : torch::_foreach_add(grads, 0.0);
    if (o.momentum() != 0) {
      // A buffer starts as the first step's d_p (LibTorch's rule), then buf = momentum * buf + (1 - dampening) * d_p.
      std::vector<torch::Tensor> existing, fresh;
      for (size_t i = 0; i < params.size(); ++i) {
        const Key key = stateKey<Key>(params[i]);
        auto it = state.find(key);
        if (it == state.end()) {
          auto s = std::make_unique<torch::optim::SGDParamState>();
          s->momentum_buffer(steps[i].clone());
          buffers.push_back(s->momentum_buffer());
          state[key] = std::move(s);
        } else {
          torch::Tensor& buf = static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
          buffers.push_back(buf);
          existing.push_back(buf);
          fresh.push_back(steps[i]);
        }
      }
      if (!existing.empty()) {
        torch::_foreach_mul_(existing, o.momentum());
        torch::_foreach_add_(existing, fresh, 1 - o.dampening());
      }
      if (o.nesterov()) torch::_foreach_add_(steps, buffers, o.momentum());
      else steps = buffers;
    }
    torch::_foreach_add_(params, steps, -o.lr());
  }
}

}  // namespace poppy::training
