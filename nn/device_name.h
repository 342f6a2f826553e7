// Where a network runs: the `device` setting (`--device`, `device:` in run configs, the USI
// Device option). Only the spelling is checked here, without LibTorch; whether the device is
// there is known when a model loads on it.
#pragma once
#include <string>

namespace poppy::nn {

// "cpu", "cuda" or "cuda:N".
inline bool isDeviceName(const std::string& device) {
  if (device == "cpu" || device == "cuda") return true;
  return device.rfind("cuda:", 0) == 0 && device.size() > 5 &&
         device.find_first_not_of("0123456789", 5) == std::string::npos;
}

}  // namespace poppy::nn
