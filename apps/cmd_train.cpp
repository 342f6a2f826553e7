// `poppy train`, `poppy selfplay`, `poppy gate`: the training loop and its parts (`poppy match`
// is apps/cmd_match.cpp).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "program/inference_option.h"
#include "program/model_players.h"
#include "common/progress_line.h"
#include "common/run_lock.h"
#include "game/variant_loader.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "selfplay/chunk_info.h"
#include "selfplay/replay_window.h"
#include "selfplay/selfplay_pool.h"
#include "selfplay/selfplay_runner.h"
#include "training/train_loop.h"
#ifdef POPPY_MPI
#include "distributed/distributed_train.h"
#endif

namespace poppy::apps {
namespace {

struct TrainArgs {
  std::string config = "configs/train/micro.yaml";
  std::string runDir = "runs/micro";
  int iterations = -1;
  double hours = -1;
  bool restartCandidate = false;
  bool distributed = false;
  std::string initModel;
  bool grow = false;
  std::vector<std::string> settings;  // --set KEY=VALUE, over the config's
};

struct SelfplayArgs {
  std::string model, out = "selfplay-out", device = "cpu";
  nn::Inference inference = nn::Inference::kAuto;
  int games = 10, playouts = 128, parallel = 32, threads = 1, workers = 2;
  uint64_t seed = 1;
};

struct MatchArgs {
  std::string a, b, variant = "micro", device = "cpu", records;
  nn::Inference inference = nn::Inference::kAuto;
  int games = 100, parallel = 32, playouts = 128, plyCap = 200, openingPlies = 2, threads = 1;
  double threshold = 0.55;
  uint64_t seed = 1;
};

void printMatch(const selfplay::MatchResult& r, const std::string& a, const std::string& b) {
  const auto [lo, hi] = r.eloInterval95();
  std::printf("%s vs %s: %d games, +%d =%d -%d, score %.3f, Elo %+.0f (95%%: %+.0f to %+.0f)\n", a.c_str(), b.c_str(),
              r.games(), r.winsA, r.draws, r.lossesA, r.score(), r.elo(), lo, hi);
}

selfplay::MatchResult runMatch(const MatchArgs& o) {
  nn::setNetworkThreads(o.threads);
  const auto variant = game::loadVariant(o.variant);
  game::requireTwoPlayers(*variant, "poppy gate");
  const nn::Encoder encoder(variant);
  program::LoadedPlayer a = program::loadPlayer(o.a, *variant, o.device, o.inference, o.playouts);
  program::LoadedPlayer b = program::loadPlayer(o.b, *variant, o.device, o.inference, o.playouts);
  selfplay::MatchSettings ms;
  ms.games = o.games;
  ms.parallelGames = o.parallel;
  ms.plyCap = o.plyCap;
  ms.openingTemperaturePlies = o.openingPlies;
  ms.seed = o.seed;
  common::ProgressLine progressLine;
  auto r = selfplay::playMatch(variant, encoder, a.spec, b.spec, ms, [&](const selfplay::MatchResult& s, int wanted) {
    char line[128];
    std::snprintf(line, sizeof line, "%d/%d games: +%d =%d -%d", s.games(), wanted, s.winsA, s.draws, s.lossesA);
    progressLine.update(line, s.games() == wanted);
  });
  progressLine.finish();
  if (!o.records.empty()) selfplay::appendGameRecords(o.records, r.records);
  return r;
}

void addMatchOptions(CLI::App* cmd, MatchArgs& o) {
  cmd->add_option("--variant", o.variant, "Variant")->capture_default_str();
  cmd->add_option("--games", o.games, "Games (colours alternate)")->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("--parallel", o.parallel, "Games played at once")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--playouts", o.playouts, "Playouts per move of model players without their own")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--ply-cap", o.plyCap, "Plies after which a game is drawn")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--opening-plies", o.openingPlies, "First plies model players sample by visit count (variety), counted from the end of the opening")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--device", o.device, "cpu or cuda")->capture_default_str();
  program::addInferenceOption(cmd, o.inference);
  cmd->add_option("--threads", o.threads, "LibTorch threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--seed", o.seed, "Random seed")->capture_default_str();
  cmd->add_option("--records", o.records, "Append every game to this JSONL file");
}

}  // namespace

void addTrainCommands(CLI::App& app) {
  auto t = std::make_shared<TrainArgs>();
  CLI::App* train = app.add_subcommand("train", "Run the AlphaZero loop: self-play, training, gating (resumable)");
  train->add_option("--config", t->config, "Run configuration (YAML)")->capture_default_str();
  train->add_option("--run-dir", t->runDir, "Run directory; an existing one is resumed")->capture_default_str();
  train->add_option("--set", t->settings,
                    "A setting over the config's, KEY=VALUE with a dotted key and a YAML value (repeatable): --set "
                    "training.window=90000 --set selfplay.playouts=64; the run directory's config.yaml keeps the result");
  train->add_option("--iterations", t->iterations,
                    "Stop once the run has done this many iterations in all, counted from its start (overrides "
                    "run.iterations; 0: no limit)")
      ->check(CLI::Range(0, 100000000));
  train->add_option("--hours", t->hours,
                    "Stop once the run has trained this many hours in all, counted from its start (overrides "
                    "run.hours; 0: no limit)")
      ->check(CLI::Range(0.0, 100000.0));
  train->add_flag("--restart-candidate", t->restartCandidate,
                  "If candidate.ckpt does not load, keep it as candidate.ckpt.damaged and start the candidate "
                  "again from the best model");
  train->add_option("--init-model", t->initModel,
                    "Start a new run from this model's weights and training step instead of random weights (same "
                    "variant and network as the config); a run that exists already is resumed and this is not used");
  train->add_flag("--grow", t->grow,
                  "With --init-model: a model of a smaller network (fewer blocks, channels or value-head units) grows "
                  "into the config's network, new blocks as identities and new channels at zero, so the run starts "
                  "from what the model plays (docs/commands/train.md, \"Growing the network\")");
  train->add_flag("--distributed", t->distributed,
                  "Under mpirun: rank 0 learns (the run directory), every other rank plays self-play games for it "
                  "(docs/commands/train.md, \"Distributed training\")");
  train->callback([t] {
    auto config = training::loadTrainConfig(t->config, t->settings);
    if (t->iterations >= 0) config.iterations = t->iterations;
    if (t->hours >= 0) config.hours = t->hours;
    training::TrainOptions options;
    options.runDir = t->runDir;
    options.restartCandidate = t->restartCandidate;
    options.initModel = t->initModel;
    options.grow = t->grow;
    if (t->distributed) {
#ifdef POPPY_MPI
      distributed::runDistributedTraining(config, options);
      return;
#else
      throw std::runtime_error("--distributed needs an MPI build of poppy: install libopenmpi-dev (scripts/setup.sh "
                               "does) and build again");
#endif
    }
    nn::networkBackend().train(config, options);
  });

  auto s = std::make_shared<SelfplayArgs>();
  CLI::App* sp = app.add_subcommand("selfplay", "Play self-play games with a model; write replay chunks and records");
  sp->add_option("--model", s->model, "Model file")->required();
  sp->add_option("--games", s->games, "Games to play")->check(CLI::Range(1, 10000000))->capture_default_str();
  sp->add_option("--out", s->out, "Output directory (replay/ and games.jsonl)")->capture_default_str();
  sp->add_option("--playouts", s->playouts, "Playouts per move")->check(CLI::Range(1, 1000000))->capture_default_str();
  sp->add_option("--parallel", s->parallel, "Games played at once")->check(CLI::Range(1, 4096))->capture_default_str();
  sp->add_option("--device", s->device, "cpu or cuda")->capture_default_str();
  program::addInferenceOption(sp, s->inference);
  sp->add_option("--threads", s->threads, "LibTorch threads per worker")->check(CLI::Range(1, 256))->capture_default_str();
  sp->add_option("--workers", s->workers, "Self-play workers (threads), each with its own network copy and share of the games")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  sp->add_option("--seed", s->seed, "Random seed")->capture_default_str();
  sp->callback([s] {
    nn::setNetworkThreads(s->threads);
    const nn::ModelInfo info = nn::readModelInfo(s->model);  // each worker loads (and checks) the weights
    const auto variant = game::loadVariant(info.variant);
    const nn::Encoder encoder(variant);
    selfplay::SelfPlaySettings settings;
    settings.search.playouts = s->playouts;
    // Every move is a full search here (fullSearchFraction 1); the fast searches' playouts must
    // still fit under the full ones, or fewer than 32 playouts were refused.
    settings.fastPlayouts = std::min(settings.fastPlayouts, s->playouts);
    if (variant->numPlayers > 2) {
      // The exact tactics are two-player proofs (a mate in yonin takes over an army and the game
      // goes on): off, as configs/train/yonin.yaml has them.
      settings.search.solver = false;
      settings.search.leafMatePlies = settings.search.rootMatePlies = 0;
    }
    settings.parallelGames = s->parallel;
    settings.modelId = info.id;
    settings.seed = s->seed;
    std::filesystem::create_directories(s->out + "/replay");
    const common::DirectoryLock lock(s->out);  // one writer of its chunks and records
    const auto chunkInfo = selfplay::chunkInfoFor(encoder);
    uint64_t next = selfplay::nextChunkSequence(s->out + "/replay");
    selfplay::SelfPlayPool runner(
        variant, encoder,
        [&]() -> std::unique_ptr<mcts::Evaluator> {
          return nn::loadModelEvaluator(s->model, variant.get(), s->device, s->inference);
        },
        settings, s->workers, 0);
    common::ProgressLine progressLine;
    runner.play(
        s->games,
        [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
          selfplay::saveFinishedGame(s->out, next++, chunkInfo, samples, record);
        },
        [&](const selfplay::SelfPlayProgress& p) {
          char line[128];
          std::snprintf(line, sizeof line, "%d/%d games, %.0f games/h", p.gamesFinished, p.gamesWanted,
                        p.seconds > 0 ? p.gamesFinished * 3600 / p.seconds : 0.0);
          progressLine.update(line, p.gamesFinished == p.gamesWanted);
        });
    progressLine.finish();
    std::printf("wrote %d games to %s\n", s->games, s->out.c_str());
  });

  auto g = std::make_shared<MatchArgs>();
  g->games = 40;
  g->playouts = 64;
  CLI::App* gate = app.add_subcommand("gate", "Play a candidate model against the best; promote if it scores enough");
  gate->add_option("--candidate", g->a, "Candidate model file")->required();
  gate->add_option("--best", g->b, "Best model file")->required();
  gate->add_option("--threshold", g->threshold, "Score needed to promote")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  addMatchOptions(gate, *g);
  gate->callback([g] {
    MatchArgs o = *g;
    o.variant = nn::readModelInfo(o.b).variant;
    o.a = "model:" + g->a;
    o.b = "model:" + g->b;
    const auto r = runMatch(o);
    printMatch(r, g->a, g->b);
    std::printf("%s\n", r.score() >= g->threshold ? "promote: the candidate passes the gate"
                                                  : "keep: the candidate does not pass the gate");
  });
}

}  // namespace poppy::apps
