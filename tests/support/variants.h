// Variants loaded once per test program (loading parses YAML and compiles the move tables), for
// the checks that take a game::Variant* (models, checkpoints).
#pragma once
#include <map>
#include <string>

#include "game/variant_loader.h"

inline const poppy::game::Variant* loadedVariant(const char* name) {
  static std::map<std::string, poppy::game::VariantPtr> cache;
  auto& v = cache[name];
  if (!v) v = poppy::game::loadVariant(name);
  return v.get();
}
inline const poppy::game::Variant* microRules() { return loadedVariant("micro"); }
