// The shipped models: models/shipped.yaml names the strongest trained model of each variant, which
// `poppy play`, `serve`, `usi` and the `shipped` player of `match` load when no model is named.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace poppy::play {

// The value of a --model option (or the USI ModelFile option) that asks for no network.
inline constexpr const char* kNoModel = "none";
// The USI ModelFile value that follows UCI_Variant: the variant's shipped model.
inline constexpr const char* kShippedModel = "shipped";

// The models/shipped.yaml in use: $POPPY_MODELS_DIR/shipped.yaml, else models/shipped.yaml of the
// working directory, else of the source tree; "" where none exists.
std::string shippedModelsFile();

// Each variant with a shipped model and the model's path (the folder of shipped.yaml prefixed).
// Throws std::runtime_error naming the file when shipped.yaml is not a map of names to files.
std::vector<std::pair<std::string, std::string>> shippedModels();

// The shipped model of `variant` (a variant's name), or "" where it has none.
std::string shippedModel(const std::string& variant);

}  // namespace poppy::play
