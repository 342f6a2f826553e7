// A line without the spaces, tabs and line ends around it: what the terminal games read and the
// study board's pasted text. (KIF has its own, which also strips full-width spaces.)
#pragma once
#include <string>

namespace poppy::common {

inline std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

}  // namespace poppy::common
