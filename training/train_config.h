// The settings of a training run (configs/train/NAME.yaml). Every key is optional but known:
// an unknown key or a value out of range is refused with the file and key named.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mcts/search_params.h"
#include "nn/inference.h"
#include "nn/precision.h"
#include "selfplay/selfplay_runner.h"
#include "training/memory_layout.h"

namespace poppy::training {

// The search settings a config's selfplay: or gate: section sets (the keys of
// mcts/search_options.h marked kConfig), on top of SearchParams' defaults.
struct SearchSettings {
  mcts::SearchParams values;

  SearchSettings() = default;
  SearchSettings(int playouts) { values.playouts = playouts; }

  // These settings on top of `base` (the one place they reach the search).
  mcts::SearchParams applyTo(mcts::SearchParams base) const;
};

struct TrainRunConfig {
  std::string sourcePath;
  // The settings as one self-contained YAML text: the file's own text, or with `base: FILE`
  // (common/yaml_layers.h) the merged settings. A run directory keeps it as config.yaml, and the
  // distributed learner sends it to its actors.
  std::string settingsText;
  std::string variant = "micro";
  std::string device = "cpu";
  // What runs the network in self-play and gate games on the CPU (nn/inference.h): auto uses
  // Eigen for small calls (the ends of self-play phases, when few games are left) and LibTorch
  // for the large ones. Training itself always uses LibTorch.
  nn::Inference inference = nn::Inference::kAuto;
  // Number format of self-play, gate and training networks (nn/precision.h); bf16 needs a GPU.
  nn::Precision precision = nn::Precision::kFloat32;
  uint64_t seed = 1;

  // network
  int blocks = 4;
  int channels = 32;
  int valueHidden = 32;
  // The auxiliary heads (nn/network.h): the opponent's reply policy and the plies left, each a
  // target the trainer adds to the loss with the weights below.
  bool auxiliaryHeads = false;

  // selfplay
  int gamesPerIteration = 96;
  int parallelGames = 48;
  SearchSettings selfplaySearch;
  double dirichletAlpha = 0.5;
  double noiseFraction = 0.25;
  int temperatureMoves = 8;   // plies played in proportion to visits; after that, most visits
  int plyCap = 200;
  // LibTorch threads while searching: small batches lose more to thread synchronisation than
  // they gain on 2 cores, so one thread serves self-play and matches best there.
  int selfplayThreads = 1;
  // Self-play workers, each a thread with its own search, network copy and share of the games
  // (selfplay/selfplay_pool.h): 2 uses both cores of a 2-core machine.
  int selfplayWorkers = 2;
  // Playout cap randomisation (selfplay/selfplay_runner.h): the share of moves searched with
  // `playouts` and trained on; the rest get fastPlayouts and are not. 1 = off.
  double fullSearchFraction = 1.0;
  int fastPlayouts = 32;
  // Forced playouts and policy target pruning at self-play roots (mcts/search_params.h): k.
  // 2 (KataGo's) won a 200-game match against 0 after runs of equal iterations (docs/experiments/faster-learning.md).
  double forcedPlayouts = 2.0;
  // Gumbel root selection with sequential halving (mcts/gumbel_root.h) in self-play's full
  // searches: the moves sampled at the root (replaces noise and forced playouts); 0 = off.
  int gumbelActions = 0;
  double gumbelCScale = 0.1;
  // Self-play's search scores a move that repeats a position as a draw this much worse for its
  // mover (mcts/search_params.h); 0 = off. chu.yaml sets it: its games collapse into shuffles.
  double repetitionContempt = 0.0;
  // Self-play games drawn at the ply cap are scored by material for training
  // (selfplay/ply_cap_adjudication.h): the margin, as a share of one side's start material;
  // 0 = off. Meant for games that rarely end before the cap (chu; tried there, docs/experiments/chu.md).
  double plyCapAdjudication = 0.0;

  // training
  int batchSize = 256;
  int stepsPerIteration = 150;
  double learningRate = 0.02;
  std::vector<std::pair<int64_t, double>> lrSchedule;
  double momentum = 0.9;
  double weightDecay = 1e-4;
  int window = 60000;        // newest samples the trainer draws from
  int minSamples = 2000;     // no training before the window holds this many
  int trainThreads = 2;      // LibTorch threads while training (large batches)
  // The value target: (1 - w) x the game result + w x the search's root value (KataGo mixes
  // the two: the result is unbiased but noisy, the root value less noisy). 0 = the result only.
  // 0.5 won a 200-game match against 0 after equal 75-minute runs (docs/experiments/faster-learning.md).
  double rootValueWeight = 0.5;
  // The value loss's weight beside the policy's. With few games the value head learns each
  // game's result by heart (its positions all carry it): the loss on the games it trained on
  // falls while the loss on the next iteration's games rises above a constant guess's
  // (`fresh_value_loss` in metrics.jsonl). A smaller weight slows that learning by heart.
  double valueLossWeight = 1.0;
  // The auxiliary heads' loss weights (network.auxiliary_heads): the reply policy's
  // cross-entropy (KataGo weighs its opponent policy 0.15) and the plies-left head's Huber loss
  // on plies / 16.
  double replyPolicyWeight = 0.15;
  double pliesLeftWeight = 0.1;
  // Reflect half of each batch left to right (nn/board_mirror.h): twice the positions from the
  // same games. Refused at the start of a run for a variant whose rules change in a mirror.
  bool mirror = false;
  // The final anneal: in the last `annealFraction` of a run with a limit (run.hours by time,
  // else run.iterations), the learning rate is at most `annealLearningRate`, so that the run
  // ends on a model trained at a low rate. 0: off. Measured: the last 2,175 steps of an 80-minute
  // micro run at 0.005 instead of 0.02 scored +49 Elo head to head and 0.448 against 0.383 vs
  // Fairy-Stockfish at 10,000 nodes (docs/experiments/faster-learning.md).
  double annealFraction = 0;
  double annealLearningRate = 0.005;
  // A "steps" event in metrics.jsonl every this many training steps (the mean losses of those
  // steps), for a live view of a long phase; 0: only the phase's "train" event.
  int logEverySteps = 25;
  // The convolutions' memory layout while training (training/memory_layout.h).
  MemoryLayout memoryLayout = MemoryLayout::kAuto;

  // gate
  int gateGames = 40;
  SearchSettings gateSearch{64};  // the exact-tactics settings as self-play's
  double gateThreshold = 0.55;
  int gateParallelGames = 40;
  // gate.sprt: {elo0, elo1, alpha, beta}: the gate stops as soon as the sequential probability
  // ratio test (report/match_statistics.h) decides between the candidate being elo0 and elo1
  // Elo stronger than the best, and promotes it when H1 is accepted; gate.games is then the most
  // it plays, and a gate still undecided there falls back to gate.threshold. Off: gateSprt false.
  // The test may decide only once gate.sprt.min_pairs colour-swapped pairs have finished: on a
  // handful of pairs that all scored the same, the normal approximation's variance is nearly 0
  // and one lucky pair would decide.
  bool gateSprt = false;
  double gateSprtElo0 = 0, gateSprtElo1 = 35, gateSprtAlpha = 0.05, gateSprtBeta = 0.05;
  int gateSprtMinPairs = 10;

  // Asynchronous self-play (training/local_game_feed.h): a thread of this process plays games
  // without pause while the run trains, instead of the two taking turns. Off: the phases alternate.
  bool asynchronous = false;
  // With asynchronous self-play or `--distributed`'s actors: the run trains while samples
  // trained <= trainRatio x samples played, and waits for games otherwise: how many times each
  // sample is trained on, on average (training.train_ratio; distributed.train_ratio, its older place).
  double trainRatio = 4.0;

  // distributed (`poppy train --distributed` under mpirun; training/game_feed.h)
  // Seconds the learner waits, at the end of a run, for each actor to say it has stopped.
  double actorTimeout = 30.0;
  // Seconds an actor plays on without hearing from the learner (which says it is alive every
  // 2 s) before it stops: a learner that died.
  double learnerTimeout = 60.0;
  // run
  int iterations = 0;        // 0: until stopped
  double hours = 0;          // 0: no time limit
};

// Reads a run configuration, its bases (`base: FILE`) and, over them, `commandLine` settings
// ("training.window=90000", `poppy train --set`). Throws common::ConfigError.
TrainRunConfig loadTrainConfig(const std::string& path, const std::vector<std::string>& commandLine = {});

// The self-play settings of a run: its search, noise, temperature, ply cap and playout cap
// randomisation (the model id and seed are left to the caller).
selfplay::SelfPlaySettings selfplaySettingsFor(const TrainRunConfig& config);

}  // namespace poppy::training
