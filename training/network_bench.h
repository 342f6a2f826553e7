// `poppy bench nn`, `bench selfplay`, `bench train`: speed of the network, of self-play around
// it, and of training, each beside its bare LibTorch baseline measured in the same run. Each
// prints its key ratio as its last line and appends its figures to a CSV file.
#pragma once
#include "nn/network_backend.h"

namespace poppy::training {

void benchNetwork(const nn::NetworkBenchOptions& options);
void benchSelfplay(const nn::NetworkBenchOptions& options);
void benchTraining(const nn::NetworkBenchOptions& options);

}  // namespace poppy::training
