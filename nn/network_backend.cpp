#include "nn/network_backend.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "common/data_dirs.h"
#include "nn/device_name.h"

namespace poppy::nn {
namespace {

std::mutex gMutex;
const NetworkBackend* gBackend = nullptr;
int gPendingThreads = 0;  // set before the module loaded: applied when it does

}  // namespace

std::string networkModulePath() {
  if (const char* env = std::getenv("POPPY_NETWORK_MODULE"); env && *env) return env;
  const std::filesystem::path dir = common::executableDirectory();
  return (dir.empty() ? std::string(".") : dir.string()) + "/libpoppy_network.so";
}

const NetworkBackend& networkBackend() {
  std::lock_guard lock(gMutex);
  if (gBackend) return *gBackend;
  const std::string path = networkModulePath();
  // RTLD_LOCAL: the module keeps its own copies of Poppy's libraries to itself.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw std::runtime_error("this command needs the network module (LibTorch), which did not load: " +
                             std::string(why ? why : path) +
                             "; it is built beside the poppy executable (cmake --build build), or set "
                             "POPPY_NETWORK_MODULE to its path");
  }
  using Entry = const NetworkBackend* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, kNetworkBackendSymbol));
  if (!entry)
    throw std::runtime_error("network module " + path + " has no " + kNetworkBackendSymbol +
                             " (not a Poppy network module, or one from another build)");
  gBackend = entry();  // the module stays loaded for the life of the process
  if (gPendingThreads > 0) gBackend->setThreads(gPendingThreads);
  return *gBackend;
}

bool networkBackendLoaded() {
  std::lock_guard lock(gMutex);
  return gBackend != nullptr;
}

void setNetworkThreads(int threads) {
  {
    std::lock_guard lock(gMutex);
    if (!gBackend) {
      gPendingThreads = threads;
      return;
    }
  }
  gBackend->setThreads(threads);
}

std::unique_ptr<mcts::Evaluator> loadModelEvaluator(const std::string& path, const game::Variant* expected,
                                                    const std::string& device, Inference inference, ModelInfo* info) {
  // A missing or damaged file is reported from its header before LibTorch is loaded for it.
  checkModelFits(readModelInfo(path), path, expected, 0);
  return networkBackend().loadEvaluator(path, expected, device, inference, info);
}

void checkDeviceName(const std::string& device) {
  if (isDeviceName(device)) return;
  throw std::runtime_error("unknown device '" + device + "' (use cpu, cuda or cuda:N)");
}

}  // namespace poppy::nn
