#include "common/data_dirs.h"

namespace poppy::common {

std::filesystem::path executableDirectory() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : self.parent_path();
}

std::vector<std::filesystem::path> dataRoots() {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  std::error_code ec;
  // PREFIX/bin/poppy reads PREFIX/share/poppy; build/poppy would read ./share/poppy of the source
  // tree, which does not exist, and goes on to the source tree itself.
  if (const fs::path bin = executableDirectory(); !bin.empty()) {
    const fs::path installed = bin.parent_path() / "share" / "poppy";
    if (fs::is_directory(installed, ec)) roots.push_back(installed);
  }
  const fs::path source = POPPY_SOURCE_DIR;
  if (fs::is_directory(source, ec)) roots.push_back(source);
  return roots;
}

std::vector<std::filesystem::path> dataPaths(const std::filesystem::path& relative) {
  std::vector<std::filesystem::path> out;
  for (const auto& root : dataRoots()) out.push_back(root / relative);
  return out;
}

}  // namespace poppy::common
