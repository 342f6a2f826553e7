// Whole numbers from the JSON that Poppy reads (model and checkpoint headers, run state, web
// requests). nlohmann's get<int>() converts a float or an out-of-range integer anyway (a float
// too large for int is undefined behaviour, found by fuzz/fuzz_model_header), so these check the
// type and the range first.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace poppy::common {

// v as an Int, or false when v is not an integer (a float, a string, ...) or is out of Int's range.
template <class Int>
bool jsonToInteger(const nlohmann::json& v, Int& out) {
  using Limits = std::numeric_limits<Int>;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > uint64_t(Limits::max())) return false;
    out = Int(u);
    return true;
  }
  if (v.is_number_integer()) {
    const int64_t s = v.get<int64_t>();
    if (s < 0 && !Limits::is_signed) return false;
    if (Limits::is_signed && (s < int64_t(Limits::min()) || s > int64_t(Limits::max()))) return false;
    if (!Limits::is_signed && uint64_t(s) > uint64_t(Limits::max())) return false;
    out = Int(s);
    return true;
  }
  return false;
}

// obj[key] as an Int. Throws nlohmann::json::out_of_range when the key is missing and
// nlohmann::json::type_error when the value is not an integer that fits.
template <class Int>
Int integerAt(const nlohmann::json& obj, const char* key) {
  const nlohmann::json& v = obj.at(key);
  Int out{};
  if (!jsonToInteger(v, out))
    throw nlohmann::json::type_error::create(
        302, std::string("\"") + key + "\" must be an integer from " + std::to_string(std::numeric_limits<Int>::min()) +
                 " to " + std::to_string(std::numeric_limits<Int>::max()) + ", not " + v.dump().substr(0, 40),
        &v);
  return out;
}

}  // namespace poppy::common
