// `poppy bench nn`, `bench selfplay`, `bench train`: their options here; the measurements run in
// the network module (training/network_bench.cpp), loaded only for these commands.
#include <memory>

#include "apps/commands.h"
#include "nn/network_backend.h"

namespace poppy::apps {
namespace {

void addOptions(CLI::App* cmd, nn::NetworkBenchOptions& a) {
  cmd->add_option("--config", a.config, "Run configuration giving the network and search settings")->capture_default_str();
  cmd->add_option("--csv", a.csv, "Append the figures to this CSV file")->capture_default_str();
  cmd->add_option("--seconds", a.seconds, "Seconds per measurement")->check(CLI::Range(0.05, 600.0))->capture_default_str();
  cmd->add_option("--precision", a.precision, "fp32 or bf16 (bfloat16 autocast; on the CPU fast only with AMX or AVX-512 BF16; default: the config's `precision`)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
}

}  // namespace

void addNetworkBenches(CLI::App* bench) {
  auto a = std::make_shared<nn::NetworkBenchOptions>();
  CLI::App* network = bench->add_subcommand("nn", "Network evaluations/s for batch sizes 1..256 (8192 on a GPU) with LibTorch "
                                             "and Eigen (CPU only), and the model's GFLOP/s beside the machine's "
                                             "matrix-product GFLOP/s");
  addOptions(network, *a);
  network->add_option("--inference", a->inference, "torch, eigen, or both (compared at each batch size)")
      ->check(CLI::IsMember({"torch", "eigen", "both"}))
      ->capture_default_str();
  network->add_option("--max-batch", a->maxBatch, "Largest batch size timed (default: 256 on the CPU, 8192 on a GPU)")
      ->check(CLI::Range(1, 65536));
  network->add_option("--model", a->model, "Model file whose weights to run (default: random weights of the config's shape)");
  network->add_option("--eigen-kernel", a->eigenKernel,
                      "The Eigen forward's instruction set: baseline, avx2 or avx512, or an int8 one: "
                      "avx512-int8 (VNNI) or baseline-int8 (the slow reference) (default: the best float one this "
                      "CPU runs)");
  network->callback([a] { nn::networkBackend().benchNetwork(*a); });
  CLI::App* sp = bench->add_subcommand("selfplay", "Self-play games/hour and network rate inside self-play vs standalone");
  addOptions(sp, *a);
  sp->add_option("--games", a->games, "Games to play")->check(CLI::Range(1, 100000))->capture_default_str();
  sp->add_option("--model", a->model, "Model file whose weights play (default: random weights of the config's shape)");
  sp->add_option("--tactics", a->tactics, "MCTS-solver and mate searches: on, off, or both (two runs compared)")
      ->check(CLI::IsMember({"on", "off", "both"}))
      ->capture_default_str();
  sp->add_option("--workers", a->workers, "Self-play workers (threads), default: the config's selfplay.workers")
      ->check(CLI::Range(1, 256));
  sp->add_option("--inference", a->selfplayInference,
                 "What runs the self-play networks: auto, torch, eigen or int8 (default: the config's `inference`)")
      ->check(CLI::IsMember({"auto", "torch", "eigen", "int8"}));
  sp->callback([a] { nn::networkBackend().benchSelfplay(*a); });
  CLI::App* tr = bench->add_subcommand("train", "Training samples/s vs a bare forward+backward loop");
  addOptions(tr, *a);
  tr->add_option("--batch", a->batch, "Batch size (default: the config's)")->check(CLI::Range(0, 65536));
  tr->add_option("--layout", a->layout,
                 "Memory layout of the convolutions: auto, nchw, channels_last, or both (nchw and channels_last "
                 "compared); default: the config's training.memory_layout")
      ->check(CLI::IsMember({"auto", "nchw", "channels_last", "both"}));
  tr->callback([a] { nn::networkBackend().benchTraining(*a); });
}

}  // namespace poppy::apps
