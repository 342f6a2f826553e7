// The model file reader (nn/model_header.h), without LibTorch: the header line, its JSON, the
// architecture checks, the payload size and the checksum. Promise: bytes that are not a model
// file raise ModelError, never a crash, a hang or a huge allocation; what it accepts is
// consistent (the header alone reads the same as the whole file, and the file written again
// from what was read reads back the same).
// Byte 0 picks the mode:
//   even: the rest is the file, as it lies on disk;
//   odd:  the rest is a header JSON line and the weights after it: this target completes the
//         header with a correct payload_bytes and crc32 and puts the magic line before it, so
//         the fuzzer reaches the field checks behind the checksum.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "nn/model_header.h"

using namespace poppy;

namespace {

// The header a model file gives, as JSON (ModelInfo has no ==).
nlohmann::json headerOf(const nn::ModelInfo& info) {
  nlohmann::json j;
  nn::modelInfoToJson(info, j);
  return j;
}

// `header` completed with the right size and checksum, as saveModel would write it; empty when
// the line is not a JSON object or its fields do not make a ModelInfo.
std::string completedFile(const std::string& headerLine, const std::string& payload) {
  const nlohmann::json h = nlohmann::json::parse(headerLine, nullptr, false);
  if (!h.is_object()) return {};
  try {
    return nn::modelFileBytes(nn::modelInfoFromJson(h), payload);
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("model.model");
  static fuzz::ScratchFile rewritten("rewritten.model");
  if (size < 1) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 1) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string::npos) return 0;
    bytes = completedFile(bytes.substr(0, newline), bytes.substr(newline + 1));
    if (bytes.empty()) return 0;
  }
  file.write(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());

  nn::ModelFileContents whole;
  try {
    whole = nn::readModelFile(file.path(), true);
  } catch (const nn::ModelError&) {
    // Refused with the documented error. The header alone may still read (it does not check the
    // weights), and must not fail any other way.
    try {
      nn::readModelInfo(file.path());
    } catch (const nn::ModelError&) {
    }
    return 0;
  }
  // A file that reads whole has a header that reads alone, to the same fields.
  fuzz::check(headerOf(nn::readModelInfo(file.path())) == headerOf(whole.info),
              "the header read alone differs from the header of the whole file");
  // What was read, written again, reads back the same.
  const std::string again = nn::modelFileBytes(whole.info, whole.payload);
  rewritten.write(reinterpret_cast<const uint8_t*>(again.data()), again.size());
  const nn::ModelFileContents back = nn::readModelFile(rewritten.path(), true);
  fuzz::check(headerOf(back.info) == headerOf(whole.info) && back.payload == whole.payload,
              "a model file read and written again reads differently");
  // Checking it against a variant either passes or refuses with ModelError.
  try {
    nn::checkModelFits(whole.info, file.path(), fuzz::variantFromByte(0).get(), 1);
  } catch (const nn::ModelError&) {
  }
  return 0;
}
