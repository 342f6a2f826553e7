// Which docs page describes each command: every `poppy COMMAND --help` ends by naming it, so
// the help text and the long explanations (docs/commands/*.md) stay one step apart.
#include <map>
#include <string>

#include "apps/commands.h"

namespace poppy::apps {
namespace {

void setFooter(CLI::App* command, const std::string& page) {
  command->footer("Documentation: " + page);
  for (CLI::App* sub : command->get_subcommands([](CLI::App*) { return true; })) setFooter(sub, page);
}

}  // namespace

void nameDocumentationPages(CLI::App& app) {
  static const std::map<std::string, std::string> kPages = {
      {"train", "docs/commands/train.md"},   {"selfplay", "docs/commands/train.md"},
      {"gate", "docs/commands/train.md"},    {"usi", "docs/commands/play.md"},
      {"xboard", "docs/commands/play.md"},
      {"play", "docs/commands/play.md"},     {"serve", "docs/commands/play.md"},
      {"match", "docs/commands/match.md"},   {"ladder", "docs/commands/match.md"},
      {"tournament", "docs/commands/match.md"},
      {"openings", "docs/commands/study.md"}, {"records", "docs/commands/study.md"},
      {"report", "docs/commands/study.md"},  {"bench", "docs/commands/bench.md"},
      {"perft", "docs/commands/bench.md"},   {"variants", "docs/commands/bench.md"},
      {"model", "docs/commands/model.md"}};
  app.footer("Documentation: README.md (quick start) and docs/commands/README.md (every command)");
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    const auto page = kPages.find(command->get_name());
    if (page != kPages.end()) setFooter(command, page->second);
  }
}

}  // namespace poppy::apps
