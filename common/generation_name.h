// Names of a training run's model generations, "gen-0007": the files models/gen-0007.model, the
// `best` pointer and the "model" field of self-play records. One spelling for the writer (the
// train loop) and the readers (run report, opening statistics, opening history).
#pragma once
#include <cstdio>
#include <string>

namespace poppy::common {

inline std::string generationName(int generation) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gen-%04d", generation);
  return buf;
}

// "gen-0007" -> 7; -1 for any other shape (a path, a name given to `poppy selfplay`, more digits
// than an int holds).
inline int generationNumber(const std::string& name) {
  if (name.rfind("gen-", 0) != 0 || name.size() == 4 || name.size() > 4 + 9) return -1;
  if (name.find_first_not_of("0123456789", 4) != std::string::npos) return -1;
  return std::stoi(name.substr(4));
}

}  // namespace poppy::common
