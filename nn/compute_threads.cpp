#include "nn/compute_threads.h"

#include <dlfcn.h>

#include <ATen/Parallel.h>

namespace poppy::nn {
namespace {

// OpenBLAS is found among the libraries already loaded (it comes in with LibTorch), never loaded
// here, so a LibTorch built on another BLAS is left alone.
void* openblasSymbol(const char* name) {
  for (const char* library : {"libopenblas.so.0", "libopenblasp.so.0", "libblas.so.3"}) {
    void* handle = ::dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    if (!handle) continue;
    void* symbol = ::dlsym(handle, name);
    ::dlclose(handle);  // drops the reference NOLOAD added; the library stays loaded
    if (symbol) return symbol;
  }
  return nullptr;
}

}  // namespace

void setComputeThreads(int threads) {
  at::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(openblasSymbol("openblas_set_num_threads"))) set(threads);
}

int blasThreads() {
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(openblasSymbol("openblas_get_num_threads"));
  return get ? get() : 0;
}

}  // namespace poppy::nn
