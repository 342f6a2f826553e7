#include "common/yaml_layers.h"

#include <filesystem>
#include <map>

#include "common/atomic_file.h"
#include "common/yaml_reader.h"

namespace poppy::common {
namespace fs = std::filesystem;
namespace {

std::string lineOf(const YAML::Node& node) {
  return node.Mark().line >= 0 ? " (line " + std::to_string(node.Mark().line + 1) + ")" : "";
}

// A dotted key's names: "training.window" -> {"training", "window"} (an empty name stays empty).
std::vector<std::string> keyParts(const std::string& key) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Merging goes key by key, so every key of a file with a base must be a plain name and appear
// once in its mapping (YamlReader::onlyKeys refuses such keys in a file read alone; here the
// merge would hide one).
void refuseKeyProblems(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (!node.IsMap()) return;
  if (const auto problem = firstKeyProblem(node, key))
    throw ConfigError(path + ": key '" + problem->key + "': " + problem->what + lineOf(problem->at));
  for (const auto& kv : node) refuseKeyProblems(path, kv.second, YamlReader::join(key, kv.first.as<std::string>()));
}

// `over` on top of `base`: mappings merge key by key, anything else in `over` replaces. A new
// tree: neither input is changed (assigning onto an existing yaml-cpp node would rewrite the
// node it shares with its file).
YAML::Node mergedOver(const YAML::Node& base, const YAML::Node& over) {
  if (!base.IsMap() || !over.IsMap()) return over;
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : base) {
    const std::string k = kv.first.as<std::string>();
    const YAML::Node mine = over[k];
    out[k] = mine ? mergedOver(kv.second, mine) : kv.second;
  }
  for (const auto& kv : over) {
    const std::string k = kv.first.as<std::string>();
    if (!base[k]) out[k] = kv.second;
  }
  return out;
}

// The top-level mapping without its `base` key.
YAML::Node withoutBase(const YAML::Node& root) {
  if (!root.IsMap() || !root["base"]) return root;
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : root)
    if (kv.first.as<std::string>() != "base") out[kv.first.as<std::string>()] = kv.second;
  return out;
}

}  // namespace

std::optional<KeyProblem> firstKeyProblem(const YAML::Node& map, const std::string& mapKey) {
  std::map<std::string, int> lines;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar())
      return KeyProblem{mapKey.empty() ? "(top level)" : mapKey, "has a key that is not a plain name", kv.first};
    const std::string k = kv.first.as<std::string>();
    const int line = kv.first.Mark().line + 1;
    if (const auto seen = lines.find(k); seen != lines.end())
      return KeyProblem{YamlReader::join(mapKey, k),
                        "appears twice (lines " + std::to_string(seen->second) + " and " + std::to_string(line) +
                            "); keep one",
                        kv.first};
    lines[k] = line;
  }
  return std::nullopt;
}

std::pair<std::string, YAML::Node> readYamlFile(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ConfigError(path + ": no such file");
  if (!fs::is_regular_file(path, ec)) throw ConfigError(path + ": not a regular file");
  std::string text;
  try {
    text = readWholeFile(path);
  } catch (const std::exception& e) {
    throw ConfigError(std::string(e.what()));
  }
  try {
    return {text, YAML::Load(text)};
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path + ": not valid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": cannot be read: " + e.what());
  }
}

// The command line's settings as one layer: {"training.window=90000"} -> {training: {window: 90000}}.
YamlLayer commandLineLayer(const std::string& file, const std::vector<std::string>& settings) {
  YamlLayer layer{"--set", YAML::Node(YAML::NodeType::Map), true};
  std::vector<std::string> keys;
  for (const std::string& setting : settings) {
    const auto refuse = [&](const std::string& why) {
      throw ConfigError(file + ": --set " + setting + ": " + why);
    };
    const size_t eq = setting.find('=');
    if (eq == std::string::npos) refuse("must be KEY=VALUE, such as training.window=90000");
    const std::string key = setting.substr(0, eq), value = setting.substr(eq + 1);
    const std::vector<std::string> parts = keyParts(key);
    for (const std::string& part : parts)
      if (part.empty() || part.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                              std::string::npos)
        refuse("'" + key + "' is not a key (names of letters, digits and _, joined by dots)");
    if (key == "base") refuse("the base is named in the file (`base:`), not on the command line");
    if (value.empty()) refuse("has no value");
    for (const std::string& k : keys)
      if (k == key || k.rfind(key + ".", 0) == 0 || key.rfind(k + ".", 0) == 0)
        refuse(k == key ? "is set twice" : "sets " + key + " beside " + k + ": set one of them");
    keys.push_back(key);
    YAML::Node parsed;
    try {
      parsed = YAML::Load(value);
    } catch (const YAML::Exception& e) {
      refuse("the value is not valid YAML: " + e.msg);
    }
    YAML::Node at = layer.root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (!at[parts[i]]) at[parts[i]] = YAML::Node(YAML::NodeType::Map);
      at.reset(at[parts[i]]);
    }
    at[parts.back()] = parsed;
  }
  return layer;
}

std::string LayeredYaml::text() const {
  if (!merges()) return ownText;
  std::string chain;
  for (const YamlLayer& l : layers)
    if (!l.fromCommandLine) chain += (chain.empty() ? "" : ", based on ") + l.path;
  for (const std::string& setting : commandLine) chain += " --set " + setting;
  YAML::Emitter out;
  out << merged;
  return "# " + chain + ": the settings, the bases merged in\n" + out.c_str() + "\n";
}

LayeredYaml loadLayeredYaml(const std::string& path, const std::vector<std::string>& commandLine) {
  LayeredYaml result;
  result.commandLine = commandLine;
  if (!commandLine.empty()) result.layers.push_back(commandLineLayer(path, commandLine));
  std::vector<std::string> seen;  // the chain's files, for loops
  std::string next = path;
  for (;;) {
    auto [text, read] = readYamlFile(next);
    const YAML::Node& root = read;  // const: a non-const operator[] adds the key it looks up
    if (seen.empty()) result.ownText = text;  // the file named
    std::error_code ec;
    seen.push_back(fs::weakly_canonical(next, ec).string());
    result.layers.push_back({next, root});
    if (!root.IsMap() || !root["base"]) break;  // (a Node() would count as set: it is a null value)
    const YAML::Node base = root["base"];
    if (!base.IsScalar() || base.as<std::string>().empty())
      throw ConfigError(next + ": key 'base': must be the name of a settings file" + lineOf(base));
    const fs::path named = base.as<std::string>();
    const std::string basePath = (named.is_absolute() ? named : fs::path(next).parent_path() / named).string();
    const std::string canonical = fs::weakly_canonical(basePath, ec).string();
    for (const std::string& s : seen)
      if (s == canonical) throw ConfigError(next + ": key 'base': " + basePath + " is already in the chain of bases (a loop)" + lineOf(base));
    if (!fs::exists(basePath, ec))
      throw ConfigError(next + ": key 'base': " + basePath + ": no such file" + lineOf(base));
    next = basePath;
  }
  if (!result.merges()) {
    result.merged.reset(result.layers[0].root);
    return result;
  }
  for (const YamlLayer& l : result.layers) {
    refuseKeyProblems(l.path, l.root, "");
    if (!l.root.IsMap()) throw ConfigError(l.path + ": key '(top level)': must be a mapping" + lineOf(l.root));
  }
  YAML::Node merged = withoutBase(result.layers.back().root);
  for (size_t i = result.layers.size() - 1; i-- > 0;) merged.reset(mergedOver(merged, withoutBase(result.layers[i].root)));
  result.merged.reset(merged);
  return result;
}

std::optional<YAML::Node> settingAt(const YAML::Node& root, const std::string& key) {
  YAML::Node at = root;
  for (const std::string& part : keyParts(key.substr(0, key.find('[')))) {
    const YAML::Node& here = at;  // looked up through const: a non-const operator[] adds the key
    if (!here.IsMap() || !here[part]) return std::nullopt;
    at.reset(here[part]);  // reset, not =: assigning to a node rewrites the node it refers to
  }
  return at;
}

const YamlLayer* layerSetting(const std::vector<YamlLayer>& layers, const std::string& key) {
  for (const YamlLayer& l : layers)
    if (settingAt(l.root, key)) return &l;
  return nullptr;
}

}  // namespace poppy::common
