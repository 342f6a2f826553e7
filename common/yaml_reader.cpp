#include "common/yaml_reader.h"

#include <cstdio>
#include <filesystem>
#include <map>

namespace poppy::common {

YAML::Node YamlReader::loadFile() const { return readYamlFile(path_).second; }

YAML::Node YamlReader::loadWithBases(const std::vector<std::string>& commandLine) {
  layered_ = loadLayeredYaml(path_, commandLine);
  return layered_.merged;
}

void YamlReader::fail(const std::string& key, const std::string& what, const YAML::Node& node) const {
  // A key set in a base or on the command line: say where it was set.
  const YamlLayer* layer = layered_.merges() ? layerSetting(layered_.layers, key) : nullptr;
  if (layer && layer->fromCommandLine) throw ConfigError(path_ + ": key '" + key + "' (from --set): " + what);
  const bool fromBase = layer && layer->path != path_;
  int line = node.Mark().line;
  if (line < 0 && layer)  // a mapping merged from several files has no line of its own: the nearest file's
    if (const auto set = settingAt(layer->root, key)) line = set->Mark().line;
  const std::string at = line >= 0 ? " (line " + std::to_string(line + 1) + ")" : "";
  if (fromBase)
    throw ConfigError(layer->path + ": key '" + key + "': " + what + at + "; " + layer->path + " is the base of " + path_);
  throw ConfigError(path_ + ": key '" + key + "': " + what + at);
}

void YamlReader::onlyKeys(const YAML::Node& map, const std::string& key, const std::set<std::string>& allowed) const {
  if (!map.IsMap()) fail(key.empty() ? "(top level)" : key, "must be a mapping", map);
  if (const auto problem = firstKeyProblem(map, key)) fail(problem->key, problem->what, problem->at);
  for (const auto& kv : map) {
    const std::string k = kv.first.as<std::string>();
    if (allowed.count(k)) continue;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(join(key, k), "unknown key (known here: " + list + ")", kv.first);
  }
}

int YamlReader::integer(const YAML::Node& map, const std::string& parent, const char* name, long lo, long hi, int dflt,
                        bool required) const {
  const std::string key = join(parent, name);
  if (!map[name]) {
    if (required) fail(key, "is required");
    return dflt;
  }
  const long value = as<long>(map[name], key, "a whole number");
  if (value < lo || value > hi)
    fail(key, std::to_string(value) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi), map[name]);
  return int(value);
}

double YamlReader::real(const YAML::Node& map, const std::string& parent, const char* name, double lo, double hi,
                        double dflt) const {
  const std::string key = join(parent, name);
  if (!map[name]) return dflt;
  const double value = as<double>(map[name], key, "a number");
  if (!(value >= lo && value <= hi)) {
    char range[160];  // %g: "-1 is out of range 0..10", not "-1.000000 ... 0.000000..10.000000"
    std::snprintf(range, sizeof range, "%g is out of range %g..%g", value, lo, hi);
    fail(key, range, map[name]);
  }
  return value;
}

bool YamlReader::boolean(const YAML::Node& map, const std::string& parent, const char* name, bool dflt) const {
  if (!map[name]) return dflt;
  return as<bool>(map[name], join(parent, name), "true or false");
}

std::string YamlReader::text(const YAML::Node& map, const std::string& parent, const char* name,
                             const std::string& dflt, bool required) const {
  const std::string key = join(parent, name);
  if (!map[name]) {
    if (required) fail(key, "is required");
    return dflt;
  }
  return as<std::string>(map[name], key, "a string");
}

std::string YamlReader::choice(const YAML::Node& map, const std::string& parent, const char* name,
                               const std::vector<std::string>& options, const std::string& dflt) const {
  const std::string value = text(map, parent, name, dflt);
  for (const auto& o : options)
    if (o == value) return value;
  std::string list;
  for (const auto& o : options) list += (list.empty() ? "" : ", ") + o;
  fail(join(parent, name), "'" + value + "' is not one of " + list, map[name]);
}

}  // namespace poppy::common
