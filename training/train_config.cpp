#include "training/train_config.h"

#include <algorithm>
#include <set>
#include <string>

#include "common/yaml_reader.h"
#include "mcts/search_options.h"

namespace poppy::training {
namespace {

// The search keys of mcts/search_options.h (kConfig; with kSelfplayConfig too in selfplay:),
// read into `s`: ranges and errors come from the table, so they match `match` and `usi`.
void readSearchOption(const common::YamlReader& r, const YAML::Node& node, const std::string& section,
                      const mcts::SearchOption& o, mcts::SearchParams& s) {
  const YAML::Node given = node[o.key];
  if (!given) return;
  double v = 0;
  switch (o.kind) {
    case mcts::SearchOption::Kind::kBoolean: v = r.boolean(node, section, o.key, o.get(s) != 0); break;
    case mcts::SearchOption::Kind::kReal: v = r.real(node, section, o.key, o.min, o.max, o.get(s)); break;
    case mcts::SearchOption::Kind::kInteger:
      v = r.integer(node, section, o.key, long(o.min), long(o.max), int(o.get(s)));
      break;
  }
  if (const auto why = o.whyNot(v)) r.fail(section + "." + o.key, *why, given);
  o.set(s, v);
}

SearchSettings readSearch(const common::YamlReader& r, const YAML::Node& node, const std::string& section,
                          SearchSettings s) {
  for (const mcts::SearchOption& o : mcts::searchOptions())
    if (o.where & mcts::SearchOption::kConfig) readSearchOption(r, node, section, o, s.values);
  return s;
}

// The keys readSearch reads, for the section's list of known keys.
std::set<std::string> searchKeys(unsigned where) {
  std::set<std::string> keys;
  for (const mcts::SearchOption& o : mcts::searchOptions())
    if (o.where & where) keys.insert(o.key);
  return keys;
}

// A selfplay-only key of the table (kSelfplayConfig) into a TrainRunConfig field.
template <typename T>
void readSelfplayOnly(const common::YamlReader& r, const YAML::Node& node, const char* key, T& field) {
  mcts::SearchParams p;
  const mcts::SearchOption& o = *mcts::searchOptionByKey(key);
  o.set(p, double(field));
  readSearchOption(r, node, "selfplay", o, p);
  field = T(o.get(p));
}

}  // namespace

mcts::SearchParams SearchSettings::applyTo(mcts::SearchParams base) const {
  for (const mcts::SearchOption& o : mcts::searchOptions())
    if (o.where & mcts::SearchOption::kConfig) o.set(base, o.get(values));
  return base;
}

selfplay::SelfPlaySettings selfplaySettingsFor(const TrainRunConfig& c) {
  selfplay::SelfPlaySettings s;
  s.search = c.selfplaySearch.applyTo(s.search);
  s.search.dirichletAlpha = float(c.dirichletAlpha);
  s.search.noiseFraction = float(c.noiseFraction);
  s.search.plyCap = c.plyCap;
  s.parallelGames = c.parallelGames;
  s.temperatureMoves = c.temperatureMoves;
  s.plyCapAdjudication = c.plyCapAdjudication;
  s.fullSearchFraction = c.fullSearchFraction;
  s.fastPlayouts = std::min(c.fastPlayouts, c.selfplaySearch.values.playouts);
  s.search.forcedPlayoutsK = float(c.forcedPlayouts);
  s.search.repetitionContempt = float(c.repetitionContempt);
  s.search.gumbelConsidered = c.gumbelActions;
  s.search.gumbelCScale = float(c.gumbelCScale);
  s.seed = c.seed;
  return s;
}

TrainRunConfig loadTrainConfig(const std::string& path, const std::vector<std::string>& commandLine) {
  common::YamlReader r(path);
  const YAML::Node root = r.loadWithBases(commandLine);
  TrainRunConfig c;
  c.sourcePath = path;
  c.settingsText = r.settingsText();
  r.onlyKeys(root, "", {"variant", "device", "inference", "precision", "seed", "network", "selfplay", "training", "gate", "run",
                       "distributed"});
  c.variant = r.text(root, "", "variant", c.variant);
  c.device = r.text(root, "", "device", c.device);
  c.inference = nn::parseInference(r.choice(root, "", "inference", {"auto", "torch", "eigen", "int8"}, "auto"));
  if ((c.inference == nn::Inference::kEigen || c.inference == nn::Inference::kInt8) && c.device != "cpu")
    r.fail("inference", std::string(nn::inferenceName(c.inference)) + " runs on the CPU, not on device " + c.device +
                            ": use auto or torch with a GPU",
           root["inference"]);
  c.precision = nn::parsePrecision(r.choice(root, "", "precision", {"fp32", "bf16"}, "fp32"));
  c.seed = uint64_t(r.integer(root, "", "seed", 0, 2147483647, int(c.seed)));

  if (const YAML::Node n = root["network"]) {
    r.onlyKeys(n, "network", {"blocks", "channels", "value_hidden", "auxiliary_heads"});
    c.blocks = r.integer(n, "network", "blocks", 0, 64, c.blocks);
    c.channels = r.integer(n, "network", "channels", 1, 1024, c.channels);
    c.valueHidden = r.integer(n, "network", "value_hidden", 1, 4096, c.valueHidden);
    c.auxiliaryHeads = r.boolean(n, "network", "auxiliary_heads", c.auxiliaryHeads);
  }
  if (const YAML::Node n = root["selfplay"]) {
    std::set<std::string> keys = {"games_per_iteration", "parallel_games", "dirichlet_alpha", "noise_fraction",
                                     "temperature_moves", "ply_cap", "threads", "workers", "full_search_fraction",
                                     "fast_playouts", "forced_playouts", "gumbel_c_scale", "ply_cap_adjudication",
                                     "asynchronous"};
    for (const std::string& k : searchKeys(mcts::SearchOption::kConfig | mcts::SearchOption::kSelfplayConfig))
      keys.insert(k);
    r.onlyKeys(n, "selfplay", keys);
    c.gamesPerIteration = r.integer(n, "selfplay", "games_per_iteration", 1, 1000000, c.gamesPerIteration);
    c.parallelGames = r.integer(n, "selfplay", "parallel_games", 1, 4096, c.parallelGames);
    c.selfplaySearch = readSearch(r, n, "selfplay", c.selfplaySearch);
    c.dirichletAlpha = r.real(n, "selfplay", "dirichlet_alpha", 0.001, 100, c.dirichletAlpha);
    c.noiseFraction = r.real(n, "selfplay", "noise_fraction", 0, 1, c.noiseFraction);
    c.temperatureMoves = r.integer(n, "selfplay", "temperature_moves", 0, 10000, c.temperatureMoves);
    c.plyCap = r.integer(n, "selfplay", "ply_cap", 1, 100000, c.plyCap);
    c.selfplayThreads = r.integer(n, "selfplay", "threads", 1, 256, c.selfplayThreads);
    c.selfplayWorkers = r.integer(n, "selfplay", "workers", 1, 256, c.selfplayWorkers);
    c.fullSearchFraction = r.real(n, "selfplay", "full_search_fraction", 0.01, 1, c.fullSearchFraction);
    c.fastPlayouts = r.integer(n, "selfplay", "fast_playouts", 1, 100000, c.fastPlayouts);
    c.forcedPlayouts = r.real(n, "selfplay", "forced_playouts", 0, 10, c.forcedPlayouts);
    readSelfplayOnly(r, n, "gumbel_actions", c.gumbelActions);
    c.gumbelCScale = r.real(n, "selfplay", "gumbel_c_scale", 0.001, 100, c.gumbelCScale);
    readSelfplayOnly(r, n, "repetition_contempt", c.repetitionContempt);
    c.plyCapAdjudication = r.real(n, "selfplay", "ply_cap_adjudication", 0, 1, c.plyCapAdjudication);
    c.asynchronous = r.boolean(n, "selfplay", "asynchronous", c.asynchronous);
    if (c.fullSearchFraction < 1 && c.fastPlayouts > c.selfplaySearch.values.playouts)
      r.fail("selfplay.fast_playouts", "must not exceed selfplay.playouts (" + std::to_string(c.selfplaySearch.values.playouts) + ")",
             n["fast_playouts"]);
  }
  if (const YAML::Node n = root["training"]) {
    r.onlyKeys(n, "training", {"batch_size", "steps_per_iteration", "learning_rate", "lr_schedule", "momentum",
                               "weight_decay", "window", "min_samples", "threads", "root_value_weight",
                               "value_loss_weight", "mirror", "memory_layout", "anneal_fraction",
                               "anneal_learning_rate", "log_every_steps", "train_ratio", "reply_policy_weight",
                               "plies_left_weight"});
    c.batchSize = r.integer(n, "training", "batch_size", 1, 65536, c.batchSize);
    c.stepsPerIteration = r.integer(n, "training", "steps_per_iteration", 0, 1000000, c.stepsPerIteration);
    c.learningRate = r.real(n, "training", "learning_rate", 1e-7, 10, c.learningRate);
    c.momentum = r.real(n, "training", "momentum", 0, 0.999, c.momentum);
    c.weightDecay = r.real(n, "training", "weight_decay", 0, 1, c.weightDecay);
    c.window = r.integer(n, "training", "window", 1, 100000000, c.window);
    c.minSamples = r.integer(n, "training", "min_samples", 1, 100000000, c.minSamples);
    if (c.minSamples > c.window)  // the window never holds min_samples: the run would never train
      r.fail("training.min_samples", std::to_string(c.minSamples) + " is more than training.window (" +
                                         std::to_string(c.window) + "): the window never holds enough samples to train",
             n["min_samples"]);
    c.trainThreads = r.integer(n, "training", "threads", 1, 256, c.trainThreads);
    c.rootValueWeight = r.real(n, "training", "root_value_weight", 0, 1, c.rootValueWeight);
    c.valueLossWeight = r.real(n, "training", "value_loss_weight", 0, 10, c.valueLossWeight);
    c.replyPolicyWeight = r.real(n, "training", "reply_policy_weight", 0, 10, c.replyPolicyWeight);
    c.pliesLeftWeight = r.real(n, "training", "plies_left_weight", 0, 10, c.pliesLeftWeight);
    c.mirror = r.boolean(n, "training", "mirror", c.mirror);
    c.annealFraction = r.real(n, "training", "anneal_fraction", 0, 0.9, c.annealFraction);
    c.annealLearningRate = r.real(n, "training", "anneal_learning_rate", 1e-7, 10, c.annealLearningRate);
    c.logEverySteps = r.integer(n, "training", "log_every_steps", 0, 1000000, c.logEverySteps);
    c.trainRatio = r.real(n, "training", "train_ratio", 0.01, 1000, c.trainRatio);
    c.memoryLayout = parseMemoryLayout(
        r.choice(n, "training", "memory_layout", {"auto", "nchw", "channels_last"}, memoryLayoutName(c.memoryLayout)));
    if (const YAML::Node s = n["lr_schedule"]) {
      if (!s.IsSequence()) r.fail("training.lr_schedule", "must be a list of [step, rate] pairs", s);
      int64_t last = -1;
      for (size_t i = 0; i < s.size(); ++i) {
        const std::string key = "training.lr_schedule[" + std::to_string(i) + "]";
        if (!s[i].IsSequence() || s[i].size() != 2) r.fail(key, "must be a [step, rate] pair", s[i]);
        const long step = r.as<long>(s[i][0], key, "a whole step number");
        const double rate = r.as<double>(s[i][1], key, "a learning rate");
        if (step <= last) r.fail(key, "steps must increase", s[i]);
        if (!(rate > 0 && rate <= 10)) r.fail(key, "rate must be in (0, 10]", s[i]);
        last = step;
        c.lrSchedule.emplace_back(step, rate);
      }
    }
  }
  if (const YAML::Node n = root["gate"]) {
    std::set<std::string> keys = {"games", "threshold", "parallel_games", "sprt"};
    for (const std::string& k : searchKeys(mcts::SearchOption::kConfig)) keys.insert(k);
    r.onlyKeys(n, "gate", keys);
    c.gateGames = r.integer(n, "gate", "games", 0, 100000, c.gateGames);
    c.gateSearch = readSearch(r, n, "gate", c.gateSearch);
    c.gateThreshold = r.real(n, "gate", "threshold", 0, 1, c.gateThreshold);
    c.gateParallelGames = r.integer(n, "gate", "parallel_games", 1, 4096, c.gateParallelGames);
    if (const YAML::Node s = n["sprt"]) {
      r.onlyKeys(s, "gate.sprt", {"elo0", "elo1", "alpha", "beta", "min_pairs"});
      c.gateSprt = true;
      c.gateSprtElo0 = r.real(s, "gate.sprt", "elo0", -1000, 1000, c.gateSprtElo0);
      c.gateSprtElo1 = r.real(s, "gate.sprt", "elo1", -1000, 1000, c.gateSprtElo1);
      c.gateSprtAlpha = r.real(s, "gate.sprt", "alpha", 0.001, 0.499, c.gateSprtAlpha);
      c.gateSprtBeta = r.real(s, "gate.sprt", "beta", 0.001, 0.499, c.gateSprtBeta);
      c.gateSprtMinPairs = r.integer(s, "gate.sprt", "min_pairs", 1, 100000, c.gateSprtMinPairs);
      if (c.gateSprtElo0 >= c.gateSprtElo1) r.fail("gate.sprt.elo1", "must be above elo0", s);
      if (c.gateGames < 2 * c.gateSprtMinPairs)
        r.fail("gate.sprt", "needs gate.games (the most games the test may play) of at least 2 x min_pairs (" +
                                std::to_string(2 * c.gateSprtMinPairs) + ")", s);
    }
  }
  if (const YAML::Node n = root["distributed"]) {
    r.onlyKeys(n, "distributed", {"train_ratio", "actor_timeout", "learner_timeout"});
    // The ratio's older place (before asynchronous self-play used it too): still read.
    if (n["train_ratio"] && root["training"] && root["training"]["train_ratio"])
      r.fail("distributed.train_ratio", "is also set as training.train_ratio: keep that one only", n["train_ratio"]);
    c.trainRatio = r.real(n, "distributed", "train_ratio", 0.01, 1000, c.trainRatio);
    c.actorTimeout = r.real(n, "distributed", "actor_timeout", 1, 86400, c.actorTimeout);
    c.learnerTimeout = r.real(n, "distributed", "learner_timeout", 5, 86400, c.learnerTimeout);
  }
  if (const YAML::Node n = root["run"]) {
    r.onlyKeys(n, "run", {"iterations", "hours"});
    c.iterations = r.integer(n, "run", "iterations", 0, 100000000, c.iterations);
    c.hours = r.real(n, "run", "hours", 0, 100000, c.hours);
  }
  return c;
}

}  // namespace poppy::training
