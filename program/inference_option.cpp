#include "program/inference_option.h"

#include <string>

namespace poppy::program {

CLI::Option* addInferenceOption(CLI::App* cmd, nn::Inference& inference) {
  const CLI::Validator known(
      [](std::string& text) {
        try {
          nn::parseInference(text);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "auto|torch|eigen|int8");
  return cmd
      ->add_option_function<std::string>(
          "--inference", [&inference](const std::string& text) { inference = nn::parseInference(text); },
          "What runs the network on the CPU: auto (Eigen for small batches, LibTorch for large ones), torch, "
          "eigen, or int8 (Eigen with the residual tower in 8-bit integers, where the CPU has AVX-512 VNNI)")
      ->check(known)
      ->default_str(nn::inferenceName(inference));
}

}  // namespace poppy::program
