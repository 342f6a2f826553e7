// Strict reading of YAML settings: every key must be known, every value of the right type and
// in range; errors name the file, the key (dotted path) and the line.
#pragma once
#include <yaml-cpp/yaml.h>

#include "common/yaml_layers.h"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace poppy::common {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class YamlReader {
 public:
  explicit YamlReader(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  // Parses the file; throws ConfigError for a missing file or invalid YAML.
  YAML::Node loadFile() const;
  // Parses the file and the bases it names (`base: FILE`, common/yaml_layers.h), with the command
  // line's KEY=VALUE settings over them, and returns the merged settings; from then on an error
  // about a key the file takes from a base names that base's file (and line) and the file it is
  // the base of, and one about a key set on the command line says so.
  YAML::Node loadWithBases(const std::vector<std::string>& commandLine = {});
  // The settings as one self-contained YAML text (after loadWithBases).
  std::string settingsText() const { return layered_.text(); }

  [[noreturn]] void fail(const std::string& key, const std::string& what, const YAML::Node& node = YAML::Node()) const;
  void onlyKeys(const YAML::Node& map, const std::string& key, const std::set<std::string>& allowed) const;

  // Optional values with defaults; `parent` is the dotted path of `map`.
  int integer(const YAML::Node& map, const std::string& parent, const char* name, long lo, long hi, int dflt,
              bool required = false) const;
  double real(const YAML::Node& map, const std::string& parent, const char* name, double lo, double hi,
              double dflt) const;
  bool boolean(const YAML::Node& map, const std::string& parent, const char* name, bool dflt) const;
  std::string text(const YAML::Node& map, const std::string& parent, const char* name, const std::string& dflt,
                   bool required = false) const;
  std::string choice(const YAML::Node& map, const std::string& parent, const char* name,
                     const std::vector<std::string>& options, const std::string& dflt) const;

  template <typename T>
  T as(const YAML::Node& node, const std::string& key, const char* typeName) const {
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      fail(key, std::string("must be ") + typeName, node);
    }
  }

  static std::string join(const std::string& parent, const std::string& name) {
    return parent.empty() ? name : parent + "." + name;
  }

 private:
  std::string path_;
  LayeredYaml layered_;  // empty until loadWithBases
};

}  // namespace poppy::common
