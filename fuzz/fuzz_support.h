// Shared by the libFuzzer targets of fuzz/: the shipped variants (loaded once), a scratch file
// for readers that take a path, and the check that turns a broken promise into a crash that
// libFuzzer saves (an exception a reader documents is not a finding; a wrong answer is).
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "game/variant_loader.h"

namespace poppy::fuzz {

// Prints what went wrong and aborts: libFuzzer saves the input as crash-<sha1>.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// configs/variants/*.yaml, loaded once per process (the loader reads YAML: too slow per input).
inline const std::vector<game::VariantPtr>& shippedVariants() {
  static const std::vector<game::VariantPtr> variants = [] {
    std::vector<game::VariantPtr> v;
    // New variants last: corpus files pick a variant by their first byte, 0-6 as before chu came.
    for (const char* name :
         {"micro", "minishogi", "kyoto", "judkins", "gorogoro", "tori", "shogi", "chu", "yari", "whale", "yonin"})
      v.push_back(game::loadVariant(name));
    return v;
  }();
  return variants;
}

// One of the shipped variants, picked by a byte of the input (so the fuzzer can vary it).
inline const game::VariantPtr& variantFromByte(uint8_t b) {
  const auto& v = shippedVariants();
  return v[b % v.size()];
}

// A file holding the input, for readers that only take a path. One per process, rewritten for
// every input and removed at exit; in /dev/shm when there is one (no disk writes per input).
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path();
    path_ = (dir / ("poppy_fuzz_" + std::to_string(::getpid()) + "_" + name)).string();
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& write(const uint8_t* data, size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    if (!out.flush()) fail("cannot write the scratch file " + path_);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace poppy::fuzz
