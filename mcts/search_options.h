// The search settings people set, each declared once: its key in a training config
// (configs/train/*.yaml, selfplay: and gate:), its flag on `poppy match` and `poppy ladder`, its
// USI option on `poppy usi`, what it does, and the values it takes (lc0's OptionId in spirit).
// The readers of all three derive names, help, ranges and errors from this table, so a setting
// cannot mean one thing in a config and another over USI. Defaults are not here: they are the
// context's (self-play's in a config, mcts::playTimeSearchParams() at play time).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcts/search_params.h"

namespace poppy::mcts {

struct SearchOption {
  // kConfig: a key of a training config's selfplay: and gate: sections; kSelfplayConfig: of
  // selfplay: only (the gate keeps the rules' own scores and PUCT).
  enum Where : unsigned { kConfig = 1, kSelfplayConfig = 2, kMatch = 4, kUsi = 8 };
  enum class Kind { kInteger, kReal, kBoolean };

  const char* key;      // config key (lower_case)
  const char* flag;     // command-line flag of `match` and `ladder` (with kMatch)
  const char* usiName;  // USI option name (with kUsi)
  const char* help;     // one sentence: what it does
  Kind kind;
  double min, max;      // inclusive; booleans 0 and 1
  unsigned where;       // a mask of Where: the places it may be set
  // The field of SearchParams it sets (the one of its kind).
  float SearchParams::*real = nullptr;
  int SearchParams::*integer = nullptr;
  int64_t SearchParams::*wide = nullptr;
  bool SearchParams::*boolean = nullptr;
  bool oddOrZero = false;  // plies of a mate search at every leaf: 0, or odd (a mate is an odd ply count)

  double get(const SearchParams& p) const;
  // The reason `v` is refused (out of range, not whole, an even mate depth), or nullopt.
  std::optional<std::string> whyNot(double v) const;
  // Sets the field; call whyNot first (a refused value is clamped and rounded, never stored as is).
  void set(SearchParams& p, double v) const;
  // "a number in [0.01, 100]", "a whole number in [1, 256]", "true or false", "0, 1 or 3".
  std::string values() const;
  // The field's value as a config or a command line writes it ("1.5", "800", "true").
  std::string text(const SearchParams& p) const;
};

// Every option, in the order `usi` lists them and `--help` shows them.
const std::vector<SearchOption>& searchOptions();
// By config key; nullptr when there is none.
const SearchOption* searchOptionByKey(std::string_view key);
// By USI name, case-insensitively (USI option names are); nullptr when there is none.
const SearchOption* searchOptionByUsiName(std::string_view name);

}  // namespace poppy::mcts
