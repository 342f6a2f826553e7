// Running lishogi's rules library shogiops (npm package shogiops 0.18.0, installed in
// tests/reference/shogiops by scripts/setup.sh) from tests: its scripts there (perft.mjs,
// chu_perft.mjs) are run with node, and what they print comes back as lines.
#pragma once
#include <string>
#include <vector>

#include "node_script.h"

namespace poppy::testing {

inline const std::filesystem::path& shogiopsDir() {
  static const std::filesystem::path dir = std::filesystem::path(POPPY_SOURCE_DIR) / "tests" / "reference" / "shogiops";
  return dir;
}

// runNodeScript on shogiops' scripts.
inline std::vector<std::string> runShogiopsScript(const std::string& script, const std::string& args,
                                                  const std::string& input = "") {
  return runNodeScript(NodeReference{"shogiops", "shogiops", "0.18.0"}, script, args, input);
}

}  // namespace poppy::testing
