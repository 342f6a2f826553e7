// `poppy variants`: the variants found, with board size and start position.
#include <cstdio>

#include "apps/commands.h"
#include "game/variant_loader.h"

namespace poppy::apps {

void addVariantsCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("variants", "List the variants in configs/variants");
  cmd->callback([] {
    for (const auto& name : game::knownVariants()) {
      const auto v = game::loadVariant(name);
      std::printf("%-10s %2dx%-2d  %-50s  %s\n", name.c_str(), v->files, v->ranks, v->description.c_str(),
                  v->startSfen.c_str());
    }
  });
}

}  // namespace poppy::apps
