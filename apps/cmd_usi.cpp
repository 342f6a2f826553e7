// `poppy usi`: a USI engine on stdin/stdout for shogi GUIs, every variant Poppy knows. The
// protocol lives in play::UsiEngine; this file only adds model loading (LibTorch) and options.
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps/commands.h"
#include "program/search_option_flags.h"
#include "program/inference_option.h"
#include "program/model_choice.h"
#include "game/variant_loader.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "play/shipped_models.h"
#include "play/engines/usi_engine.h"

namespace poppy::apps {
namespace {

struct UsiCommandOptions {
  play::UsiOptions engine;  // engine.inference follows inference below
  nn::Inference inference = nn::Inference::kAuto;
};

void runUsi(UsiCommandOptions o, bool variantGiven) {
  // Command-line mistakes stop here with `poppy: error: ...`; the same mistakes made through
  // setoption later are answered with `info string error: ...` and the engine goes on.
  const bool shipped = o.engine.modelFile.empty();  // no --model: the variant's shipped model
  if (program::namesNoModel(o.engine.modelFile)) o.engine.modelFile.clear();
  for (const auto& [what, path] : {std::pair{"--model", o.engine.modelFile}, std::pair{"--book", o.engine.book}}) {
    if (path.empty()) continue;
    if (std::filesystem::is_directory(path))
      throw std::runtime_error(std::string(what) + " '" + path + "': is a directory, not a file");
    if (!std::filesystem::is_regular_file(path))
      throw std::runtime_error(std::string(what) + " '" + path + "': no such file");
  }
  // A model knows its variant: without --variant, the engine plays that one (as `poppy play`).
  if (!o.engine.modelFile.empty() && !variantGiven) {
    try {
      o.engine.variant = nn::readModelInfo(o.engine.modelFile).variant;
    } catch (const std::exception& e) {
      throw std::runtime_error("--model '" + o.engine.modelFile + "': " + e.what());
    }
  }
  const auto variant = game::loadVariant(o.engine.variant);
  game::requireTwoPlayers(*variant, "poppy usi (USI has no four-player form)");
  nn::setNetworkThreads(nn::kPlayTimeNetworkThreads);
  o.engine.inference = nn::inferenceName(o.inference);
  nn::checkDeviceName(o.engine.device);  // throws on a misspelt device name (its existence: when a model loads)
  // A model that does not load stops the engine here (exit 2), before any GUI sees it. The
  // network loaded for that check is the one the engine starts with: it is not loaded twice.
  // Without --model the engine follows UCI_Variant with its shipped model (ModelFile 'shipped');
  // the first variant's is loaded now, so that a GUI's first `isready` is answered at once.
  std::string firstModel = o.engine.modelFile;
  if (shipped) {
    firstModel = program::defaultModelFor(*variant, "poppy usi");
    o.engine.modelFile = play::kShippedModel;
  }
  auto preloaded = std::make_shared<std::unique_ptr<mcts::Evaluator>>();
  if (!firstModel.empty()) {
    try {
      *preloaded = nn::loadModelEvaluator(firstModel, variant.get(), o.engine.device, o.inference);
    } catch (const std::exception& e) {
      throw std::runtime_error((shipped ? "the shipped model '" : "--model '") + firstModel + "': " + e.what());
    }
  }
  // The Device and Inference options may differ from the command line's by the time a model loads.
  auto factory = [first = play::ModelRequest{firstModel, o.engine.device, o.engine.inference}, preloaded,
                  firstVariant = variant](const play::ModelRequest& model,
                                          const game::Variant& v) -> std::unique_ptr<mcts::Evaluator> {
    if (*preloaded && model.path == first.path && model.device == first.device && model.inference == first.inference &&
        v.name == firstVariant->name && v.fingerprint == firstVariant->fingerprint)
      return std::move(*preloaded);
    return nn::loadModelEvaluator(model.path, &v, model.device, nn::parseInference(model.inference));
  };
  play::UsiEngine engine(std::cout, o.engine, factory);
  engine.run(std::cin);
}

}  // namespace

void addUsiCommand(CLI::App& app) {
  auto o = std::make_shared<UsiCommandOptions>();
  CLI::App* cmd = app.add_subcommand("usi", "Play as a USI engine on stdin/stdout (for shogi GUIs)");
  cmd->add_option("--model", o->engine.modelFile,
                  "Model file (setoption ModelFile; default: the variant's shipped model, models/shipped.yaml); none: rollout MCTS");
  CLI::Option* variant =
      cmd->add_option("--variant", o->engine.variant, "Variant name or .yaml path (default: the model's, else micro) (setoption UCI_Variant)");
  cmd->add_option("--device", o->engine.device, "cpu, cuda or cuda:N (setoption Device)")->capture_default_str();
  program::addInferenceOption(cmd, o->inference);
  cmd->add_option("--playouts", o->engine.playouts, "Playouts for a `go` without limits (setoption Playouts)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), play::Analyzer::kMaxPlayouts));
  cmd->add_option("--book", o->engine.book, "Opening book (JSON, see poppy openings) (setoption Book)");
  cmd->add_option("--resign-threshold", o->engine.resignThreshold,
                  "Resign when the best move's win rate is below this; 0 = never (setoption ResignThreshold)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.999));
  cmd->add_option("--multipv", o->engine.multiPv, "Lines of analysis (setoption MultiPV)")
      ->capture_default_str()
      ->check(CLI::Range(1, 500));
  cmd->add_option("--threads", o->engine.threads, "Search threads sharing one tree (setoption Threads)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--move-overhead", o->engine.moveOverheadMs,
                  "Milliseconds kept in hand per move for GUI and network latency (setoption MoveOverhead)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(0), int64_t(10000)));
  program::addSearchOptionFlags(cmd, o->engine.search, mcts::SearchOption::kUsi, "");
  cmd->add_option("--hash", o->engine.hashMiB, "MiB for the cache of network answers (setoption USI_Hash)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), play::UsiOptions::kMaxHashMiB));
  cmd->callback([o, variant] { runUsi(*o, variant->count() > 0); });
}

}  // namespace poppy::apps
