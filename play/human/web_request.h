// The fields of a web API request body (play/human/web_api.h): a clear 400 (ApiError) when one is
// missing or of the wrong type, naming the field.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace poppy::play {

std::string stringField(const nlohmann::json& request, const char* key, bool required,
                        const std::string& fallback = "");
int intField(const nlohmann::json& request, const char* key, int fallback);

}  // namespace poppy::play
