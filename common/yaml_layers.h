// Settings files that build on another: `base: FILE` at a file's top level names a file (its path
// relative to this file's folder) whose settings this one starts from. The file's own keys then
// replace the base's mapping by mapping: `training: {window: 90000}` replaces training.window and
// keeps the base's other training keys; a list or a single value replaces the base's whole. A
// base may have a base of its own; a loop is refused. Configs that differ from another in a few
// keys (configs/train/micro-continue.yaml from micro.yaml) say just those keys. Settings given on
// the command line (`poppy train --set training.window=90000`) are one more layer, over the file.
#pragma once
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace poppy::common {

// One layer of settings: the command line's (if any), then the file named, its base, the base's base.
struct YamlLayer {
  std::string path;  // the file; for the command line's settings, "--set"
  YAML::Node root;   // as read, `base` key included
  bool fromCommandLine = false;
};

struct LayeredYaml {
  YAML::Node merged;              // the settings: every layer's keys, nearer layers first; no `base` key
  std::vector<YamlLayer> layers;  // nearest first; a file without a base and no --set: one layer
  std::string ownText;            // the file named, as it reads
  std::vector<std::string> commandLine;  // the --set settings, as given
  bool merges() const { return layers.size() > 1; }
  // The settings as one self-contained YAML text (what a run directory keeps): the file's own
  // text when it is the only layer, else the merged settings with a comment naming the layers.
  std::string text() const;
};

// One YAML file, and its text; throws ConfigError naming the file for a missing or unreadable
// file, or invalid YAML (with the line).
std::pair<std::string, YAML::Node> readYamlFile(const std::string& path);

// Reads `path` and its bases, with `commandLine` settings ("training.window=90000": a dotted key,
// `=`, a YAML value) over them; throws ConfigError naming the file (and the line) for a missing or
// invalid file, a `base` that is not a file name, a loop of bases, a key given twice in one file,
// or a setting that is not KEY=VALUE.
LayeredYaml loadLayeredYaml(const std::string& path, const std::vector<std::string>& commandLine = {});

// The node of `root` at `key` (a dotted path such as training.window; a trailing [i] index is
// ignored), or nothing when `root` does not set it.
std::optional<YAML::Node> settingAt(const YAML::Node& root, const std::string& key);

// The nearest layer whose file sets `key`, or nullptr when none does.
const YamlLayer* layerSetting(const std::vector<YamlLayer>& layers, const std::string& key);

// The first key of the mapping `map` (at dotted key `mapKey`) that yaml-cpp would misread: one
// that is not a plain name, or one that appears twice (yaml-cpp keeps both and answers a lookup
// with the first). `key` is the dotted key to name in the error, `what` what is wrong, `at` the
// offending key's node (its line). Shared by YamlReader::onlyKeys and the merging of bases.
struct KeyProblem {
  std::string key;
  std::string what;
  YAML::Node at;
};
std::optional<KeyProblem> firstKeyProblem(const YAML::Node& map, const std::string& mapKey);

}  // namespace poppy::common
