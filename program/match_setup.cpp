#include "program/match_setup.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <sstream>
#include <stdexcept>

#include "program/inference_option.h"
#include "program/search_option_flags.h"
#include "mcts/search_options.h"

namespace poppy::program {
namespace {

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// Debian installs Fairy-Stockfish as /usr/games/fairy-stockfish, and /usr/games is often not on
// the PATH (root, services, CI): a bare program name found nowhere on the PATH is taken from there.
std::string withGamesDir(const std::string& command) {
  std::istringstream in(command);
  std::string program;
  in >> program;
  if (program.empty() || program.find_first_of("/'\"=$`") != std::string::npos) return command;
  std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && executable(dir + "/" + program)) return command;
  if (!executable("/usr/games/" + program)) return command;
  const size_t at = command.find(program);
  return command.substr(0, at) + "/usr/games/" + command.substr(at);
}

// The command of a usi: or xboard: player: what follows the prefix, without quotes around the
// whole (usi:"prog args" may keep them when it comes from a file), a bare name in /usr/games found.
std::string engineCommand(const std::string& player, const std::string& prefix, const std::string& example) {
  std::string command = player.substr(prefix.size());
  if (command.size() >= 2 && (command.front() == '"' || command.front() == '\'') && command.back() == command.front())
    command = command.substr(1, command.size() - 2);
  if (command.find_first_not_of(' ') == std::string::npos)
    throw std::runtime_error("player '" + player + "': " + prefix + " needs a command, e.g. " + prefix + example);
  return withGamesDir(command);
}

}  // namespace

std::pair<std::string, std::string> engineOption(const std::string& text, const std::string& flag) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw std::runtime_error(flag + " '" + text + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

play::UsiProcessConfig usiConfig(const SideArgs& s, const std::string& suffix, const PlayerSettings& settings,
                                 const std::string& variant) {
  play::UsiProcessConfig c;
  c.command = engineCommand(s.player, "usi:", "fairy-stockfish");
  for (const auto& e : s.engineOptions) c.options.push_back(engineOption(e, "--engine-option" + suffix));
  try {
    c.notation = play::parseNotationKind(s.notation);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("--notation" + suffix + ": " + e.what());
  }
  c.variant = variant;
  c.nodes = s.nodes;
  c.movetimeMs = s.movetimeMs;
  c.graceSeconds = settings.graceMs / 1000.0;
  c.moveTimeoutSeconds = settings.moveTimeoutMs / 1000.0;
  return c;
}

play::XboardConfig xboardConfig(const SideArgs& s, const std::string& suffix, const PlayerSettings& settings,
                                const std::string& variant) {
  play::XboardConfig c;
  c.command = engineCommand(s.player, "xboard:", "hachu");
  for (const auto& e : s.engineOptions) c.options.push_back(engineOption(e, "--engine-option" + suffix));
  if (s.notation != "auto")
    throw std::runtime_error("--notation" + suffix + " only applies to usi: players, not '" + s.player + "'");
  if (s.nodes > 0)
    throw std::runtime_error("--nodes" + suffix + ": XBoard engines have no node limit; give --depth" + suffix +
                             " or --movetime" + suffix);
  c.variant = variant;
  c.depth = s.depth;
  c.movetimeMs = s.movetimeMs;
  c.graceSeconds = settings.graceMs / 1000.0;
  c.moveTimeoutSeconds = settings.moveTimeoutMs / 1000.0;
  try {
    play::checkXboardConfig(c);
  } catch (const play::XboardError& e) {
    throw std::runtime_error("player '" + s.player + "': " + e.what());
  }
  return c;
}

MatchPlayer makeMatchPlayer(const SideArgs& s, const std::string& suffix, const PlayerSettings& settings,
                            const game::VariantPtr& variant) {
  MatchPlayer p;
  const bool xboard = s.player.rfind("xboard:", 0) == 0;
  if (s.depth > 0 && !xboard)
    throw std::runtime_error("--depth" + suffix + " only applies to xboard: players, not '" + s.player + "'");
  if (s.player.rfind("usi:", 0) == 0) {
    p.loaded.spec.kind = selfplay::PlayerSpec::Kind::kExternal;
    p.loaded.spec.name = s.player;
    p.loaded.spec.external = play::usiPlayerFactory(usiConfig(s, suffix, settings, variant->name));
  } else if (xboard) {
    p.loaded.spec.kind = selfplay::PlayerSpec::Kind::kExternal;
    p.loaded.spec.name = s.player;
    p.loaded.spec.external = play::xboardPlayerFactory(xboardConfig(s, suffix, settings, variant->name));
  } else {
    if (!s.engineOptions.empty())
      throw std::runtime_error("--engine-option" + suffix + " only applies to usi: and xboard: players, not '" +
                               s.player + "'");
    if (s.notation != "auto")
      throw std::runtime_error("--notation" + suffix + " only applies to usi: players, not '" + s.player + "'");
    const bool timedOnly = s.movetimeMs > 0 && s.nodes == 0;
    p.loaded = loadPlayer(s.player, *variant, settings.device, settings.inference,
                          timedOnly ? kTimedNodeCap : settings.playouts);
    auto& spec = p.loaded.spec;
    switch (spec.kind) {
      case selfplay::PlayerSpec::Kind::kNetwork:
        if (s.nodes > 0) spec.search.playouts = int(s.nodes);
        for (const mcts::SearchOption& option : mcts::searchOptions())
          if (option.where & mcts::SearchOption::kMatch) option.set(spec.search, option.get(settings.search));
        break;
      case selfplay::PlayerSpec::Kind::kRollout:
        if (s.nodes > 0) spec.simulations = int(s.nodes);
        else if (timedOnly && s.player == "rollout") spec.simulations = kTimedNodeCap;
        break;
      default:
        if (s.nodes > 0 || s.movetimeMs > 0)
          throw std::runtime_error("--nodes" + suffix + " and --movetime" + suffix + " do not apply to the random player");
    }
    spec.moveSeconds = s.movetimeMs / 1000.0;
  }
  if (!s.book.empty()) {
    p.book = std::make_shared<play::OpeningBook>(play::OpeningBook::load(s.book, variant));
    auto book = p.book;
    p.loaded.spec.book = [book](const game::Position& pos, std::mt19937& rng) { return book->choose(pos, &rng); };
  }
  return p;
}

std::string recordIdPrefix(const std::string& kind) {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "-%Y%m%dT%H%M%S-", std::localtime(&now));
  return kind + buf;
}

void addPlayerSettingOptions(CLI::App* cmd, PlayerSettings& settings) {
  cmd->add_option("--device", settings.device, "cpu or cuda")->capture_default_str();
  addInferenceOption(cmd, settings.inference);
  addSearchOptionFlags(cmd, settings.search, mcts::SearchOption::kMatch, "Model players: ");
}

}  // namespace poppy::program
