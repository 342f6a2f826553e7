// A USI engine written in sh, for tests of the programs that drive engines (`poppy match`,
// `poppy ladder`, the USI client): it shakes hands correctly and runs shell code for every go.
#pragma once
#include <filesystem>
#include <string>

#include "scratch_files.h"

namespace poppy::testing {

// Writes the executable script `dir`/`name`: "id name NAME", one string option Foo, usiok;
// readyok to isready; `onGo` (shell code, `$rest` holding go's arguments) for every go; exit on quit.
inline std::filesystem::path scriptEngine(const std::filesystem::path& dir, const std::string& name,
                                          const std::string& onGo) {
  const std::filesystem::path p = dir / name;
  spit(p,
       "#!/bin/sh\n"
       "while read -r cmd rest; do\n"
       "  case \"$cmd\" in\n"
       "    usi) echo 'id name " + name + "'; echo 'option name Foo type string default x'; echo usiok ;;\n"
       "    isready) echo readyok ;;\n"
       "    go) " + onGo + " ;;\n"
       "    quit) exit 0 ;;\n"
       "  esac\n"
       "done\n");
  std::filesystem::permissions(p, std::filesystem::perms::owner_all);
  return p;
}

}  // namespace poppy::testing
