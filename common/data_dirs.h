// Where Poppy's data is found (configs/variants, configs/openings, models/, web/, scripts/): an
// installed copy, share/poppy beside the executable's bin/ (`cmake --install`), then the source
// tree this build came from. Each user looks first at its own environment variable
// (POPPY_VARIANTS_DIR, POPPY_MODELS_DIR, POPPY_WEB_DIR) and the current directory, then here.
#pragma once
#include <filesystem>
#include <vector>

namespace poppy::common {

// The folder of the running program (read from /proc/self/exe); empty when it cannot be read.
// The network module (nn/network_backend.h) lies beside it, the installed data one level up.
std::filesystem::path executableDirectory();

// The roots that exist, in that order (the installed copy only when there is one).
std::vector<std::filesystem::path> dataRoots();

// `relative` (e.g. "configs/variants") under each root, in order.
std::vector<std::filesystem::path> dataPaths(const std::filesystem::path& relative);

}  // namespace poppy::common
