#include "play/human/web_request.h"

#include "common/json_integer.h"
#include "play/human/web_api.h"

namespace poppy::play {

std::string stringField(const nlohmann::json& request, const char* key, bool required, const std::string& fallback) {
  if (!request.is_object()) throw ApiError(400, "the request body must be a JSON object");
  const auto it = request.find(key);
  if (it == request.end() || it->is_null()) {
    if (required) throw ApiError(400, std::string("the request needs \"") + key + "\"");
    return fallback;
  }
  if (!it->is_string()) throw ApiError(400, std::string("\"") + key + "\" must be a string");
  return it->get<std::string>();
}

int intField(const nlohmann::json& request, const char* key, int fallback) {
  const auto it = request.find(key);
  if (it == request.end() || it->is_null()) return fallback;
  int value = 0;
  if (!common::jsonToInteger(*it, value))
    throw ApiError(400, std::string("\"") + key + "\" must be an integer" +
                            (it->is_number_integer() ? " below 2^31" : ""));
  return value;
}

}  // namespace poppy::play
