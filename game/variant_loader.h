// Loads variants from YAML (configs/variants/NAME.yaml). Errors name the file, the key and
// what is wrong.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "game/variant.h"

namespace poppy::game {

class VariantError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The commands and parts not yet built for more than two players call this: throws a
// VariantError naming `what` for a four-player variant (yonin shogi, which perft, train, match
// and play serve; docs/VARIANTS.md "Yonin shogi").
void requireTwoPlayers(const Variant& v, const std::string& what);

// Loads one YAML file. Throws VariantError.
VariantPtr loadVariantFile(const std::string& path);

// A name ("micro") is looked up as NAME.yaml in variantSearchDirs(); anything with a '/' or
// ending in .yaml/.yml is taken as a path. Throws VariantError listing the known names.
VariantPtr loadVariant(const std::string& nameOrPath);

// Where variant names are looked up, in order: $POPPY_VARIANTS_DIR, ./configs/variants, and the
// source tree's configs/variants.
std::vector<std::string> variantSearchDirs();

// Names of the variants found in the search directories, sorted.
std::vector<std::string> knownVariants();

}  // namespace poppy::game
