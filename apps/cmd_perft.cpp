// `poppy perft`: leaf counts of the legal move tree, the move generator's correctness check.
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "game/perft.h"
#include "game/variant_loader.h"

namespace poppy::apps {
namespace {

struct PerftOptions {
  std::string variant = "micro";
  std::string sfen;
  std::string moves;
  int depth = 0;
  bool divide = false;
};

void runPerft(const PerftOptions& o) {
  using namespace poppy::game;
  const VariantPtr variant = loadVariant(o.variant);
  Position pos = o.sfen.empty() ? Position(variant) : Position::fromSfen(variant, o.sfen);
  std::istringstream moves(o.moves);
  for (std::string text; moves >> text;) pos.makeMove(pos.parseUsi(text));

  const auto start = std::chrono::steady_clock::now();
  uint64_t nodes = 0;
  if (o.divide) {
    for (const auto& [move, count] : perftDivide(pos, o.depth)) {
      std::printf("%s: %llu\n", move.c_str(), static_cast<unsigned long long>(count));
      nodes += count;
    }
    std::printf("\n");
  } else {
    nodes = perft(pos, o.depth);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("Nodes searched: %llu\n", static_cast<unsigned long long>(nodes));
  std::fflush(stdout);
  std::fprintf(stderr, "time %.3f s, %.2f M nodes/s\n", seconds, seconds > 0 ? nodes / seconds / 1e6 : 0.0);
}

}  // namespace

void addPerftCommand(CLI::App& app) {
  auto o = std::make_shared<PerftOptions>();
  CLI::App* cmd = app.add_subcommand("perft", "Count the leaf nodes of the legal move tree to a depth");
  cmd->add_option("--variant", o->variant, "Variant name (configs/variants/NAME.yaml) or path to a .yaml file")
      ->capture_default_str();
  cmd->add_option("--sfen", o->sfen, "Start from this SFEN instead of the variant's start position")
      ->check([](const std::string& s) { return s.empty() ? std::string("an empty SFEN") : std::string(); });
  cmd->add_option("--moves", o->moves, "USI moves to play first, separated by spaces (\"7g7f 3c3d\")");
  cmd->add_option("--depth", o->depth, "Depth in plies")->required()->check(CLI::Range(0, 20));
  cmd->add_flag("--divide", o->divide, "Print one 'move: count' line per legal move first");
  cmd->callback([o] { runPerft(*o); });
}

}  // namespace poppy::apps
