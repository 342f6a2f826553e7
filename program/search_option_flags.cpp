#include "program/search_option_flags.h"

#include <cstdlib>

namespace poppy::program {

void addSearchOptionFlags(CLI::App* cmd, mcts::SearchParams& params, unsigned where, const std::string& helpPrefix) {
  using Kind = mcts::SearchOption::Kind;
  for (const mcts::SearchOption& option : mcts::searchOptions()) {
    if (!(option.where & where) || !option.flag) continue;
    std::string help = helpPrefix + option.help + " (" + option.values();
    if ((option.where & mcts::SearchOption::kUsi) && option.usiName)
      help += std::string("; USI option ") + option.usiName;
    help += ")";
    CLI::Option* flag = nullptr;
    switch (option.kind) {
      case Kind::kBoolean: flag = cmd->add_option(option.flag, params.*option.boolean, help); break;
      case Kind::kReal: flag = cmd->add_option(option.flag, params.*option.real, help); break;
      case Kind::kInteger:
        flag = option.wide ? cmd->add_option(option.flag, params.*option.wide, help)
                           : cmd->add_option(option.flag, params.*option.integer, help);
        break;
    }
    flag->capture_default_str();
    if (option.kind == Kind::kBoolean) continue;  // CLI11 refuses what is not true or false
    const mcts::SearchOption* o = &option;  // the table lives as long as the program
    flag->check(CLI::Validator(
        [o](std::string& text) {
          char* end = nullptr;
          const double v = std::strtod(text.c_str(), &end);
          if (text.empty() || *end) return "must be " + o->values();
          const auto why = o->whyNot(v);
          return why ? *why : std::string();
        },
        "", option.key));
  }
}

}  // namespace poppy::program
