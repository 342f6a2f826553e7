// `poppy xboard`: an XBoard (CECP) engine on stdin/stdout, for chu (XBoard 4.9 plays chu; HaChu
// is the engine people meet there). The protocol lives in play::XboardEngine; this file loads the
// model (the shipped chu model unless --model says otherwise).
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "program/inference_option.h"
#include "program/model_choice.h"
#include "game/variant_loader.h"
#include "nn/network_backend.h"
#include "play/engines/xboard_engine.h"

namespace poppy::apps {
namespace {

struct XboardCommandOptions {
  std::string model, device = "cpu";
  nn::Inference inference = nn::Inference::kAuto;
  play::XboardEngineOptions engine;
};

void runXboard(XboardCommandOptions o) {
  const auto variant = game::loadVariant("chu");
  nn::setNetworkThreads(nn::kPlayTimeNetworkThreads);
  std::string model = o.model;
  if (model.empty()) model = program::defaultModelFor(*variant, "poppy xboard");
  else if (program::namesNoModel(model)) model.clear();
  std::unique_ptr<mcts::Evaluator> evaluator;
  if (!model.empty()) {
    try {
      evaluator = nn::loadModelEvaluator(model, variant.get(), o.device, o.inference);
    } catch (const std::exception& e) {
      throw std::runtime_error("--model '" + model + "': " + e.what());
    }
  }
  play::XboardEngine engine(std::cout, variant, evaluator.get(), o.engine);
  engine.run(std::cin);
}

}  // namespace

void addXboardCommand(CLI::App& app) {
  auto o = std::make_shared<XboardCommandOptions>();
  CLI::App* cmd = app.add_subcommand("xboard", "Play chu as an XBoard (CECP) engine on stdin/stdout (XBoard, HaChu)");
  cmd->add_option("--model", o->model, "Model file (default: chu's shipped model); none: rollout MCTS");
  cmd->add_option("--device", o->device, "cpu, cuda or cuda:N")->capture_default_str();
  program::addInferenceOption(cmd, o->inference);
  cmd->add_option("--playouts", o->engine.playouts, "Playouts per move when XBoard gives no time")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(1), play::Analyzer::kMaxPlayouts));
  cmd->add_option("--threads", o->engine.threads, "Search threads sharing one tree")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--repetition-contempt", o->engine.repetitionContempt,
                  "The search scores a move back to an earlier position this much below a draw (0-1): keeps greedy chu "
                  "play from shuffling into repetition draws")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--move-overhead", o->engine.overheadMs, "Milliseconds kept in hand per move")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(0), int64_t(10000)));
  cmd->callback([o] { runXboard(*o); });
}

}  // namespace poppy::apps
