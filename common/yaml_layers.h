// Settings files that build on another: `base: FILE` at a file's top level names a file (its path
// relative to this file's folder) whose settings this one starts from. The file's own keys then
// replace the base's mapping by mapping: `training: {window: 90000}` replaces training.window and
// keeps the base's other training keys; a list or a single value replaces the base's whole. A
// base may have a base of its own; a loop is refused. Configs that differ from another in a few
// keys (configs/train/micro-continue.yaml from micro.yaml) say just those keys.
#pragma once
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace poppy::common {

// One file of a chain: the file named first, then its base, then the base's base.
struct YamlLayer {
  std::string path;
  YAML::Node root;  // as read, `base` key included
};

struct LayeredYaml {
  YAML::Node merged;             // the settings: every layer's keys, nearer files first; no `base` key
  std::vector<YamlLayer> layers;  // layers[0] is the file named; a file without a base has one layer
  std::string ownText;            // the file named, as it reads
  bool hasBase() const { return layers.size() > 1; }
  // The settings as one self-contained YAML text (what a run directory keeps): the file's own
  // text when it has no base, else the merged settings with a comment naming the chain.
  std::string text() const;
};

// One YAML file, and its text; throws ConfigError naming the file for a missing or unreadable
// file, or invalid YAML (with the line).
std::pair<std::string, YAML::Node> readYamlFile(const std::string& path);

// Reads `path` and its bases; throws ConfigError naming the file (and the line) for a missing or
// invalid file, a `base` that is not a file name, a loop of bases, or a key given twice in one file.
LayeredYaml loadLayeredYaml(const std::string& path);

// The node of `root` at `key` (a dotted path such as training.window; a trailing [i] index is
// ignored), or nothing when `root` does not set it.
std::optional<YAML::Node> settingAt(const YAML::Node& root, const std::string& key);

// The nearest layer whose file sets `key`, or nullptr when none does.
const YamlLayer* layerSetting(const std::vector<YamlLayer>& layers, const std::string& key);

}  // namespace poppy::common
