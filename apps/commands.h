// Each subcommand of `poppy` registers itself on the CLI11 app; main() dispatches and turns
// errors into a message on stderr and a non-zero exit.
#pragma once
#include <CLI/CLI.hpp>

namespace poppy::apps {

void addPerftCommand(CLI::App& app);
void addBenchCommand(CLI::App& app);
void addVariantsCommand(CLI::App& app);
void addUsiCommand(CLI::App& app);
void addXboardCommand(CLI::App& app);
void addOpeningsCommands(CLI::App* openings);  // openings tree, games, book (on the group main() makes)
void addReportCommand(CLI::App& app);
void addOpeningsHistoryCommand(CLI::App* openings);  // openings history
void addTrainCommands(CLI::App& app);  // train, selfplay, gate
void addMatchCommand(CLI::App& app);
void addLadderCommand(CLI::App& app);  // ladder: a player against an engine at several strengths
void addTournamentCommand(CLI::App& app);  // tournament: a round robin of several players
void addPlayCommand(CLI::App& app);
void addServeCommand(CLI::App& app);  // serve: the web page
void addRecordsCommands(CLI::App& app);  // records export, import: KIF and CSA files
void addModelCommands(CLI::App& app);    // model info: what a model file holds
// Ends each command's --help with the docs page that describes it (docs/commands/*.md).
void nameDocumentationPages(CLI::App& app);
void addNetworkBenches(CLI::App* bench);  // bench nn, selfplay, train
void addSearchBench(CLI::App* bench);     // bench search

}  // namespace poppy::apps
