// The `poppy` command: thin dispatch to the subcommands in apps/cmd_*.cpp.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "common/heap_reuse.h"

int main(int argc, char** argv) {
  poppy::common::keepFreedMemoryForReuse();  // before LibTorch allocates anything
  CLI::App app{"Poppy: a self-play trainer for the shogi family (micro shogi first)."};
  // Not require_subcommand(): then an unknown word is reported by name ("not expected").
  app.set_help_all_flag("--help-all", "Show the help of every subcommand");
  poppy::apps::addPerftCommand(app);
  poppy::apps::addBenchCommand(app);
  poppy::apps::addVariantsCommand(app);
  poppy::apps::addTrainCommands(app);
  poppy::apps::addUsiCommand(app);
  poppy::apps::addXboardCommand(app);
  // The openings group, made once here; its subcommands come from two files.
  CLI::App* openings = app.add_subcommand("openings", "Study the network's opening preferences");
  openings->require_subcommand(1);
  poppy::apps::addOpeningsCommands(openings);
  poppy::apps::addOpeningsHistoryCommand(openings);
  poppy::apps::addReportCommand(app);
  poppy::apps::addMatchCommand(app);
  poppy::apps::addLadderCommand(app);
  poppy::apps::addTournamentCommand(app);
  poppy::apps::addPlayCommand(app);
  poppy::apps::addServeCommand(app);
  poppy::apps::addRecordsCommands(app);
  poppy::apps::addModelCommands(app);
  poppy::apps::nameDocumentationPages(app);
  // Called as `poppy-usi` (build/poppy-usi, a link to poppy), it is `poppy usi`: a shogi GUI
  // registers an engine as one program with no arguments, and this one plays each variant's
  // shipped model. Called as `poppy-usi-VARIANT` (build/poppy-usi-shogi, for the GUIs that know
  // only standard shogi and never set UCI_Variant), it is `poppy usi --variant VARIANT`. Any
  // arguments given still apply (`poppy-usi --threads 2`).
  std::vector<char*> args(argv, argv + argc);
  const std::string self = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "";
  static char usi[] = "usi";
  static char variantFlag[] = "--variant";
  static std::string variantName;
  const std::string usiPrefix = "poppy-usi-";
  if (self == "poppy-usi") {
    args.insert(args.begin() + 1, usi);
  } else if (self.rfind(usiPrefix, 0) == 0 && self.size() > usiPrefix.size()) {
    variantName = self.substr(usiPrefix.size());
    args.insert(args.begin() + 1, {usi, variantFlag, variantName.data()});
  }
  try {
    app.parse(int(args.size()), args.data());
    if (app.get_subcommands().empty()) {
      std::fprintf(stderr, "%s\npoppy: error: name a subcommand (see above)\n", app.help().c_str());
      return 2;
    }
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help); its own codes (104, 105, ...) all mean a usage
    // error, which every poppy command reports as 2.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "poppy: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
