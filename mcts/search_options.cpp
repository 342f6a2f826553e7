#include "mcts/search_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace poppy::mcts {
namespace {

using K = SearchOption::Kind;
constexpr unsigned kConfig = SearchOption::kConfig, kSelfplayConfig = SearchOption::kSelfplayConfig,
                   kMatch = SearchOption::kMatch, kUsi = SearchOption::kUsi;

SearchOption real(const char* key, const char* flag, const char* usi, const char* help, double min, double max,
                  unsigned where, float SearchParams::*field) {
  SearchOption o{key, flag, usi, help, K::kReal, min, max, where};
  o.real = field;
  return o;
}
SearchOption integer(const char* key, const char* flag, const char* usi, const char* help, double min, double max,
                     unsigned where, int SearchParams::*field) {
  SearchOption o{key, flag, usi, help, K::kInteger, min, max, where};
  o.integer = field;
  return o;
}

std::vector<SearchOption> declare() {
  std::vector<SearchOption> all;
  all.push_back(integer("playouts", nullptr, nullptr, "Playouts a move (self-play and gate searches)", 1, 100000,
                        kConfig, &SearchParams::playouts));
  all.push_back(real("cpuct", "--cpuct", "CPuct", "PUCT's exploration constant: higher looks wider, lower deeper",
                     0.01, 100, kConfig | kMatch | kUsi, &SearchParams::cpuct));
  all.push_back(real("cpuct_growth", "--cpuct-growth", "CPuctGrowth",
                     "cpuct grows by this times ln((N + cpuct_base) / cpuct_base), N the visits of the node: wider "
                     "search in long searches (0: a fixed cpuct)",
                     0, 100, kConfig | kMatch | kUsi, &SearchParams::cpuctGrowth));
  all.push_back(real("cpuct_base", "--cpuct-base", "CPuctBase", "The visits at which cpuct_growth has added ln 2 of itself",
                     1, 1e9, kConfig | kMatch | kUsi, &SearchParams::cpuctBase));
  all.push_back(real("material_weight", "--material-weight", "MaterialWeight",
                     "Blend into each new leaf's value the material its side keeps after the captures on the board "
                     "(a capture search): 0 off, 1 material only; for networks that cannot see a hanging piece",
                     0, 1, kConfig | kMatch | kUsi, &SearchParams::materialWeight));
  all.push_back(real("material_scale", "--material-scale", "MaterialScale",
                     "With material_weight: the material lead (a share of one side's start material) worth tanh(1), "
                     "a 0.88 expected score",
                     0.001, 10, kConfig | kMatch | kUsi, &SearchParams::materialScale));
  all.push_back(real("fpu_reduction", "--fpu-reduction", "FpuReduction",
                     "An unvisited move is valued at its parent's value less this (first-play urgency)", 0, 2,
                     kConfig | kMatch | kUsi, &SearchParams::fpuReduction));
  all.push_back(real("policy_temperature", "--policy-temperature", "PolicyTemperature",
                     "Priors are softmax(logits / this): above 1 flattens the network's policy, so the search also "
                     "looks at the moves it ranks second and third",
                     0.1, 10, kMatch | kUsi, &SearchParams::policyTemperature));
  all.push_back(integer("leaves_per_tree", "--leaves-per-tree", "BatchSize",
                        "Leaves each search thread gathers (with virtual loss) for one network call: larger feeds a "
                        "GPU better; on a CPU the default is best",
                        1, 256, kConfig | kMatch | kUsi, &SearchParams::leavesPerTree));
  SearchOption solver{"solver", "--tactics", "Tactics",
                      "Exact tactics: the MCTS-solver backs up proven wins and losses (the mate searches below are "
                      "part of them)",
                      K::kBoolean, 0, 1, kConfig | kMatch | kUsi};
  solver.boolean = &SearchParams::solver;
  all.push_back(solver);
  SearchOption leafMate = integer("leaf_mate_plies", "--leaf-mate-plies", "LeafMatePlies",
                                  "Mate search at every new leaf before the network: 0 off, 1 or 3 plies (less for big "
                                  "variants, where checks are many)",
                                  0, 3, kConfig | kMatch | kUsi, &SearchParams::leafMatePlies);
  leafMate.oddOrZero = true;
  all.push_back(leafMate);
  all.push_back(integer("root_mate_plies", "--root-mate-plies", "RootMatePlies",
                        "Mate search at each root, up to this many plies within root_mate_nodes: 0 off", 0, 31,
                        kConfig | kMatch | kUsi, &SearchParams::rootMatePlies));
  SearchOption rootNodes{"root_mate_nodes", "--root-mate-nodes", "RootMateNodes",
                         "Node budget of the mate search at each root", K::kInteger, 1, 100000000,
                         kConfig | kMatch | kUsi};
  rootNodes.wide = &SearchParams::rootMateNodes;
  all.push_back(rootNodes);
  all.push_back(real("repetition_contempt", "--repetition-contempt", "RepetitionContempt",
                     "A move back to an earlier position scores this much below a draw for its mover in the search "
                     "(0-1; the rules are unchanged): keeps greedy chu play from shuffling",
                     0, 1, kSelfplayConfig | kMatch | kUsi, &SearchParams::repetitionContempt));
  all.push_back(integer("gumbel_actions", "--gumbel-actions", nullptr,
                        "Gumbel's sequential halving at the root over this many sampled moves (0: PUCT); its draw is "
                        "the variety, so a match's --opening-plies then does not apply to model players",
                        0, 1024, kSelfplayConfig | kMatch, &SearchParams::gumbelConsidered));
  return all;
}

// Integers in full; fractions to float's precision (the fields are floats: 3.2f prints "3.2").
std::string number(double v, SearchOption::Kind kind) {
  if (kind != SearchOption::Kind::kReal) return std::to_string(int64_t(std::llround(v)));
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

}  // namespace

double SearchOption::get(const SearchParams& p) const {
  switch (kind) {
    case K::kReal: return double(p.*real);
    case K::kBoolean: return (p.*boolean) ? 1 : 0;
    case K::kInteger: return wide ? double(p.*wide) : double(p.*integer);
  }
  return 0;
}

std::optional<std::string> SearchOption::whyNot(double v) const {
  if (!std::isfinite(v) || v < min || v > max) return "must be " + values();
  if (kind != K::kReal && v != std::floor(v)) return "must be " + values();
  if (oddOrZero && v != 0 && std::fmod(v, 2) == 0) return "must be " + values() + " (mates are odd plies)";
  return std::nullopt;
}

void SearchOption::set(SearchParams& p, double v) const {
  v = std::clamp(v, min, max);
  switch (kind) {
    case K::kReal: p.*real = float(v); break;
    case K::kBoolean: p.*boolean = v != 0; break;
    case K::kInteger:
      if (wide) p.*wide = int64_t(std::llround(v));
      else p.*integer = int(std::lround(v));
      break;
  }
}

std::string SearchOption::values() const {
  if (kind == K::kBoolean) return "true or false";
  if (oddOrZero) {
    std::string out = "0";
    for (int v = 1; v <= int(max); v += 2) out += (v + 2 > int(max) ? " or " : ", ") + std::to_string(v);
    return out;
  }
  return std::string(kind == K::kReal ? "a number" : "a whole number") + " in [" + number(min, kind) + ", " + number(max, kind) +
         "]";
}

std::string SearchOption::text(const SearchParams& p) const {
  if (kind == K::kBoolean) return (p.*boolean) ? "true" : "false";
  return number(get(p), kind);
}

const std::vector<SearchOption>& searchOptions() {
  static const std::vector<SearchOption> all = declare();
  return all;
}

const SearchOption* searchOptionByKey(std::string_view key) {
  for (const SearchOption& o : searchOptions())
    if (key == o.key) return &o;
  return nullptr;
}

const SearchOption* searchOptionByUsiName(std::string_view name) {
  auto same = [](std::string_view a, const char* b) {
    const std::string_view bv(b);
    return a.size() == bv.size() && std::equal(a.begin(), a.end(), bv.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const SearchOption& o : searchOptions())
    if ((o.where & kUsi) && o.usiName && same(name, o.usiName)) return &o;
  return nullptr;
}

}  // namespace poppy::mcts
