#include "play/shipped_models.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "common/data_dirs.h"

namespace poppy::play {

namespace fs = std::filesystem;

std::string shippedModelsFile() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("POPPY_MODELS_DIR")) dirs.push_back(env);
  dirs.push_back("models");
  for (const auto& d : common::dataPaths("models")) dirs.push_back(d.string());
  for (const auto& dir : dirs) {
    const std::string path = dir + "/shipped.yaml";
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return path;
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> shippedModels() {
  const std::string file = shippedModelsFile();
  if (file.empty()) return {};
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(file + ": not valid YAML: " + e.what());
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) throw std::runtime_error(file + ": must map variant names to model files (micro: micro/micro-v4.model)");
  const fs::path dir = fs::path(file).parent_path();
  std::vector<std::pair<std::string, std::string>> models;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar() || !entry.second.IsScalar() || entry.second.Scalar().empty())
      throw std::runtime_error(file + ": line " + std::to_string(entry.first.Mark().line + 1) +
                               ": expected 'VARIANT: FILE' (a variant's name and its model's path)");
    models.emplace_back(entry.first.Scalar(), (dir / entry.second.Scalar()).string());
  }
  return models;
}

std::string shippedModel(const std::string& variant) {
  for (const auto& [name, path] : shippedModels())
    if (name == variant) return path;
  return "";
}

}  // namespace poppy::play
