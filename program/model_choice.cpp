#include "program/model_choice.h"

#include <iostream>

#include "nn/model_header.h"
#include "play/shipped_models.h"

namespace poppy::program {

bool namesNoModel(const std::string& option) { return option == play::kNoModel; }

std::string defaultModelFor(const game::Variant& variant, const std::string& command) {
  const std::string path = play::shippedModel(variant.name);
  if (path.empty()) {
    std::cerr << command << ": " << variant.name
              << " has no shipped model: the search plays without a network (--model FILE names one)\n";
    return "";
  }
  const nn::ModelInfo info = nn::readModelInfo(path);  // an unreadable file stops here, named
  try {
    nn::checkModelFits(info, path, &variant, 0);
  } catch (const nn::ModelError& e) {
    // Other rules under a shipped name: the variant was given as a file of its own.
    std::cerr << command << ": the shipped model does not fit this " << variant.name << " (" << e.what()
              << "): the search plays without a network\n";
    return "";
  }
  std::cerr << command << ": " << variant.name << " plays the shipped model " << path
            << " (--model FILE names another, --model none plays without a network)\n";
  return path;
}

}  // namespace poppy::program
