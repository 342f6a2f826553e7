// `poppy variants`: the variants found, with board size, start position and rules fingerprint
// (what models, replay chunks and runs record, game/rules_fingerprint.h).
#include <cstdio>

#include "apps/commands.h"
#include "game/rules_fingerprint.h"
#include "game/variant_loader.h"

namespace poppy::apps {

void addVariantsCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("variants", "List the variants in configs/variants (with their rules fingerprints)");
  cmd->callback([] {
    for (const auto& name : game::knownVariants()) {
      const auto v = game::loadVariant(name);
      std::printf("%-10s %2dx%-2d  %-50s  %-40s  rules %s\n", name.c_str(), v->files, v->ranks,
                  v->description.c_str(), v->startSfen.c_str(), game::fingerprintHex(v->fingerprint).c_str());
    }
  });
}

}  // namespace poppy::apps
