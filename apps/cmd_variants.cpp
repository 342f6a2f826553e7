// `poppy variants`: the variants found, with board size, start position and rules fingerprint
// (what models, replay chunks and runs record, game/rules_fingerprint.h); with --random-games N,
// how big each game is in N uniformly random games (game/random_games.h).
#include <cstdio>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "game/random_games.h"
#include "game/rules_fingerprint.h"
#include "game/variant_loader.h"

namespace poppy::apps {
namespace {

struct VariantsArgs {
  int randomGames = 0;
  int plyCap = 1000;
  uint64_t seed = 1;
  std::string variant;  // empty: every variant
};

void printRandomGames(const VariantsArgs& o) {
  std::printf("%-10s %6s %8s %8s %8s %8s %8s %8s %8s\n", "variant", "games", "moves", "max", "plies", "decisive",
              "drawn", "capped", "alpha");
  for (const auto& name : o.variant.empty() ? game::knownVariants() : std::vector<std::string>{o.variant}) {
    const auto v = game::loadVariant(name);
    const game::RandomGameStats s = game::playRandomGames(v, o.randomGames, o.plyCap, o.seed);
    const double moves = s.legalMovesPerPosition();
    std::printf("%-10s %6d %8.1f %8d %8.1f %7.0f%% %7.0f%% %7.0f%% %8.2f\n", v->name.c_str(), s.games, moves,
                s.maxLegalMoves, s.pliesPerGame(), 100.0 * s.decisive / s.games, 100.0 * s.drawn / s.games,
                100.0 * s.capped / s.games, moves > 0 ? 10.0 / moves : 0.0);
    std::fflush(stdout);
  }
  std::printf("moves: legal moves per position; plies: per game (to the end by the rules, or --ply-cap %d);\n"
              "alpha: 10 / moves, the Dirichlet alpha AlphaZero's scaling suggests (selfplay.dirichlet_alpha)\n",
              o.plyCap);
}

}  // namespace

void addVariantsCommand(CLI::App& app) {
  auto o = std::make_shared<VariantsArgs>();
  CLI::App* cmd = app.add_subcommand("variants", "List the variants in configs/variants (with their rules fingerprints)");
  cmd->add_option("--random-games", o->randomGames,
                  "Play N uniformly random games of each variant and print its legal moves per position, game "
                  "length and results")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--variant", o->variant, "With --random-games: only this variant (a name or .yaml path)");
  cmd->add_option("--ply-cap", o->plyCap, "With --random-games: plies after which a game stops")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "With --random-games: random seed")->capture_default_str();
  cmd->callback([o] {
    if (o->randomGames > 0) return printRandomGames(*o);
    for (const auto& name : game::knownVariants()) {
      const auto v = game::loadVariant(name);
      std::printf("%-10s %2dx%-2d  %-50s  %-40s  rules %s\n", name.c_str(), v->files, v->ranks,
                  v->description.c_str(), v->startSfen.c_str(), game::fingerprintHex(v->fingerprint).c_str());
    }
  });
}

}  // namespace poppy::apps
