// The command-line flags of the search settings (mcts/search_options.h): one per option marked
// with `where`, bound to a field of `params`, with the table's help, values and checks. Shared
// by `match`, `ladder` (model players) and `usi` (the engine's defaults before any setoption).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "mcts/search_options.h"

namespace poppy::program {

// helpPrefix goes before each option's help ("Model players: ").
void addSearchOptionFlags(CLI::App* cmd, mcts::SearchParams& params, unsigned where, const std::string& helpPrefix);

}  // namespace poppy::program
