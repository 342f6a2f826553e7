// `poppy play`: a person against the engine in the terminal. The session is play::TerminalGame;
// this file reads the options, loads the model (LibTorch) and wires stdin/stdout and ^C to it.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <random>

#include "apps/commands.h"
#include "selfplay/game_record.h"
#include "program/inference_option.h"
#include "program/model_choice.h"
#include "game/variant_loader.h"
#include "mcts/play_time_search.h"
#include "play/human/four_player_board_text.h"
#include "play/human/four_player_game.h"
#include "nn/model_header.h"
#include "nn/network_backend.h"
#include "play/human/terminal_game.h"

namespace poppy::apps {
namespace {

struct PlayArgs {
  std::string variant = "micro", model, device = "cpu", side = "sente", sfen, save, clock;
  nn::Inference inference = nn::Inference::kAuto;
  int playouts = 0;
  double seconds = 0;
  int plyCap = 200;
  int threads = nn::kPlayTimeNetworkThreads;
  int searchThreads = 1;
  bool noColor = false;
};

constexpr int kDefaultPlayouts = 800;

std::atomic<bool> gInterrupted{false};

extern "C" void onInterrupt(int) { gInterrupted.store(true); }

// ^C ends the session through its normal exit, so the game is still saved. Without SA_RESTART
// a read from the terminal fails with EINTR, which the session takes as the end of input.
void catchInterrupt() {
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
}

bool terminalHasColor() {
  if (!::isatty(STDOUT_FILENO) || std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  return term && std::string(term) != "dumb";
}

void runPlay(const PlayArgs& a, bool variantGiven) {
  nn::setNetworkThreads(a.threads);
  play::PlaySettings s;
  std::string variantName = a.variant;
  std::string model = program::namesNoModel(a.model) ? "" : a.model;
  // A model knows its variant: without --variant, play that one.
  if (!model.empty() && !variantGiven) variantName = nn::readModelInfo(model).variant;
  s.variant = game::loadVariant(variantName);
  const bool four = s.variant->numPlayers > 2;
  if (a.model.empty()) model = program::defaultModelFor(*s.variant, "poppy play");

  std::unique_ptr<mcts::Evaluator> evaluator;
  if (!model.empty()) {
    evaluator = nn::loadModelEvaluator(model, s.variant.get(), a.device, a.inference);
    s.modelName = model;
  }

  if (a.side == "random") {
    s.human = int(std::random_device{}() % unsigned(s.variant->numPlayers));
  } else if (four) {
    // Four players: a seat; sente and gote name south and north, the seats facing each other.
    s.human = a.side == "sente" ? 0 : a.side == "gote" ? 2 : play::parseSeat(a.side);
    if (s.human < 0) throw std::runtime_error("--side '" + a.side + "': use south, west, north, east or random");
  } else {
    s.human = play::parseSide(a.side);
    if (s.human < 0) throw std::runtime_error("--side '" + a.side + "': use sente, gote or random");
  }
  s.startSfen = a.sfen;
  s.clock = common::parseClock(a.clock);  // a bad clock fails before the game starts, naming it
  s.searchThreads = a.searchThreads;
  s.search = mcts::playTimeSearchParams();
  s.search.playouts = a.playouts > 0 ? a.playouts : kDefaultPlayouts;
  s.limits.playouts = a.playouts;  // 0 with --seconds: the time alone limits the search
  s.limits.seconds = a.seconds;
  if (a.playouts == 0 && a.seconds == 0) s.limits.playouts = kDefaultPlayouts;
  s.plyCap = a.plyCap;
  s.savePath = a.save.empty() ? play::defaultSavePath(std::time(nullptr)) : a.save;
  selfplay::requireWritableRecordFile(s.savePath);  // now, not when the game ends and its record would be lost
  s.color = !a.noColor && terminalHasColor();
  s.echoInput = !::isatty(STDIN_FILENO);
  s.seed = std::random_device{}();
  s.interrupted = &gInterrupted;

  if (four) {
    play::FourPlayerGame game(std::move(s), evaluator.get(), std::cin, std::cout);
    catchInterrupt();
    game.run();
    return;
  }
  play::TerminalGame game(std::move(s), evaluator.get(), std::cin, std::cout);
  catchInterrupt();
  game.run();
}

}  // namespace

void addPlayCommand(CLI::App& app) {
  auto a = std::make_shared<PlayArgs>();
  CLI::App* cmd = app.add_subcommand("play", "Play a game against the engine in the terminal");
  CLI::Option* variant = cmd->add_option("--variant", a->variant, "Variant name or file (default: the model's, else micro)");
  cmd->add_option("--model", a->model,
                  "Model file (default: the variant's shipped model, models/shipped.yaml); none: the search without a network");
  cmd->add_option("--device", a->device, "cpu or cuda (for --model)")->capture_default_str();
  program::addInferenceOption(cmd, a->inference);
  cmd->add_option("--side", a->side, "Your side: sente (moves first), gote or random; four players (yonin): south (moves first), west, north, east or random")->capture_default_str();
  cmd->add_option("--playouts", a->playouts, "Engine playouts per move (default 800, or unlimited with --seconds)")
      ->check(CLI::Range(1, 4000000));
  cmd->add_option("--seconds", a->seconds, "Engine thinking time per move (with --playouts: whichever ends first)")
      ->check(CLI::Range(0.01, 3600.0));
  cmd->add_option("--sfen", a->sfen, "Start from this position (SFEN) instead of the variant's start");
  cmd->add_option("--clock", a->clock,
                  "A clock for both sides: \"10m/30s\" (main time, then 30 s byoyomi a move) or \"5m+5s\" "
                  "(Fischer: 5 s added a move); running out loses");
  cmd->add_option("--ply-cap", a->plyCap, "Plies after which the game ends (a draw, or shogi's impasse count)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--save", a->save, "Append the game record (JSONL) here (default games/play-YYYYMMDD-HHMMSS.jsonl)");
  cmd->add_option("--threads", a->threads, "LibTorch threads")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--search-threads", a->searchThreads, "Threads searching each engine move together (with a model)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--no-color", a->noColor, "No ANSI colours (they are off anyway when stdout is not a terminal)");
  cmd->callback([a, variant] { runPlay(*a, variant->count() > 0); });
}

}  // namespace poppy::apps
