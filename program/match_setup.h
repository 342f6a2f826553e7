// The players of `poppy match` and `poppy ladder` from their command-line descriptions: a Poppy
// player (model:PATH[:PLAYOUTS], rollout[:SIMULATIONS], random; program/model_players.h), any USI
// engine (usi:COMMAND) or XBoard engine (xboard:COMMAND, e.g. HaChu for chu), with its per-move
// limits, engine options, notation and opening book.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "program/model_players.h"
#include "mcts/play_time_search.h"
#include "game/variant.h"
#include "play/openings/opening_book.h"
#include "play/engines/usi_client.h"
#include "play/engines/xboard_client.h"

namespace poppy::program {

// Searches with a time limit and no node limit still stop here (tree memory).
constexpr int kTimedNodeCap = 1000000;

// One side as the command line gives it.
struct SideArgs {
  std::string player, book;
  std::vector<std::string> engineOptions;  // NAME=VALUE, usi: players only
  std::string notation = "auto";           // usi: players only (play/engines/usi_notation.h)
  int64_t nodes = 0, movetimeMs = 0;
  int depth = 0;                           // xboard: players only: `sd DEPTH`
};

// What every side shares.
struct PlayerSettings {
  std::string device = "cpu";
  nn::Inference inference = nn::Inference::kAuto;  // model players (nn/inference.h)
  int playouts = 128;  // of model players without their own
  // Model players' search settings (mcts/search_options.h: --tactics, --cpuct, --leaf-mate-plies,
  // ...), from the play-time defaults. The big variants want shallower mate searches than the
  // defaults (a training config's leaf_mate_plies and root_mate_plies: mitsugumi 1 and 3).
  mcts::SearchParams search = mcts::playTimeSearchParams();
  int64_t graceMs = 1000, moveTimeoutMs = 60000;
};

// A player with its limits and book; keeps the evaluator and book alive.
struct MatchPlayer {
  LoadedPlayer loaded;
  std::shared_ptr<play::OpeningBook> book;
};

// The options of PlayerSettings that `poppy match` and `poppy ladder` share: --device, --inference,
// --tactics, --leaf-mate-plies, --root-mate-plies, --repetition-contempt, --gumbel-actions,
// --cpuct, --fpu-reduction, --policy-temperature.
void addPlayerSettingOptions(CLI::App* cmd, PlayerSettings& settings);

// "NAME=VALUE" -> (NAME, VALUE); `flag` names the option in the error.
std::pair<std::string, std::string> engineOption(const std::string& text, const std::string& flag);

// The USI client's settings of a usi:COMMAND player (the command without its quotes; a bare
// program name that is nowhere on the PATH but in /usr/games, where Debian installs
// fairy-stockfish, is run from there). `suffix` ends the names of the side's options in
// messages ("-a": --engine-option-a).
play::UsiProcessConfig usiConfig(const SideArgs& side, const std::string& suffix, const PlayerSettings& settings,
                                 const std::string& variant);

// The XBoard client's settings of an xboard:COMMAND player (play/engines/xboard_client.h).
play::XboardConfig xboardConfig(const SideArgs& side, const std::string& suffix, const PlayerSettings& settings,
                                const std::string& variant);

// Throws std::runtime_error (or a model/book error) naming the bad description, option or file.
MatchPlayer makeMatchPlayer(const SideArgs& side, const std::string& suffix, const PlayerSettings& settings,
                            const game::VariantPtr& variant);

// "<kind>-20250101T120000-": record ids stay unique when one file collects several runs.
std::string recordIdPrefix(const std::string& kind);

}  // namespace poppy::program
