#include "nn/model_header.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/json_integer.h"
#include "game/rules_fingerprint.h"

namespace poppy::nn {

std::string describeNetwork(const NetworkShape& s) {
  return std::to_string(s.blocks) + " blocks x " + std::to_string(s.channels) + " channels, value head " +
         std::to_string(s.valueHidden) + " wide" + (s.auxiliaryHeads ? ", auxiliary heads" : "");
}

bool sameNetwork(const NetworkShape& a, const NetworkShape& b) {
  return a.blocks == b.blocks && a.channels == b.channels && a.valueHidden == b.valueHidden && a.planes == b.planes &&
         a.height == b.height && a.width == b.width && a.policySize == b.policySize &&
         a.policyPlanes == b.policyPlanes && a.valueOutputs == b.valueOutputs && a.auxiliaryHeads == b.auxiliaryHeads;
}
namespace {

constexpr const char* kMagic = "POPPYNET";
// Version 2: the CRC covers the header too. Version 1 files (CRC of the weights only) still load.
constexpr int kFormatVersion = 2;

uint32_t crc32Of(const std::string& bytes) {
  return uint32_t(::crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size())));
}

// The checksum covers the header (without its crc32 field) and the weights, so an edited
// architecture field is caught like a flipped weight byte.
uint32_t crcOf(nlohmann::json header, const std::string& payload) {
  header.erase("crc32");
  return crc32Of(header.dump() + payload);
}

}  // namespace

void modelInfoToJson(const ModelInfo& info, nlohmann::json& h) {
  h["variant"] = info.variant;
  if (info.rules) h["rules"] = game::fingerprintHex(info.rules);
  h["encoder_version"] = info.encoderVersion;
  h["planes"] = info.shape.planes;
  h["height"] = info.shape.height;
  h["width"] = info.shape.width;
  h["policy_size"] = info.shape.policySize;
  if (info.shape.policyPlanes) h["policy_planes"] = info.shape.policyPlanes;  // spatial head only: older files lack it
  h["blocks"] = info.shape.blocks;
  h["channels"] = info.shape.channels;
  h["value_hidden"] = info.shape.valueHidden;
  if (info.shape.valueOutputs != 3) h["value_outputs"] = info.shape.valueOutputs;  // four players: older files lack it
  if (info.shape.auxiliaryHeads) h["auxiliary_heads"] = true;  // older files lack it: none
  h["step"] = info.step;
  h["id"] = info.id;
}

ModelInfo modelInfoFromJson(const nlohmann::json& h) {
  ModelInfo i;
  i.variant = h.at("variant").get<std::string>();
  // Files written before fingerprints have no "rules": they are checked by name only.
  if (h.contains("rules") && !game::parseFingerprintHex(h.at("rules").get<std::string>(), i.rules))
    throw nlohmann::json::other_error::create(501, "\"rules\" is not 16 hex digits", &h);
  i.encoderVersion = common::integerAt<int>(h, "encoder_version");
  i.shape.planes = common::integerAt<int>(h, "planes");
  i.shape.height = common::integerAt<int>(h, "height");
  i.shape.width = common::integerAt<int>(h, "width");
  i.shape.policySize = common::integerAt<int>(h, "policy_size");
  if (h.contains("policy_planes")) i.shape.policyPlanes = common::integerAt<int>(h, "policy_planes");
  i.shape.blocks = common::integerAt<int>(h, "blocks");
  i.shape.channels = common::integerAt<int>(h, "channels");
  i.shape.valueHidden = common::integerAt<int>(h, "value_hidden");
  if (h.contains("value_outputs")) i.shape.valueOutputs = common::integerAt<int>(h, "value_outputs");
  if (h.contains("auxiliary_heads")) i.shape.auxiliaryHeads = h.at("auxiliary_heads").get<bool>();
  i.step = common::integerAt<int64_t>(h, "step");
  i.id = h.at("id").get<std::string>();
  return i;
}

namespace {

// The header is two short lines; more than this before the second newline is not a model file.
constexpr size_t kMaxHeaderBytes = 64 * 1024;

// The first bytes of a file, up to kMaxHeaderBytes (the header, without reading the weights).
std::string readFileHead(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ModelError("model " + path + ": is a directory, not a model file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError("model " + path + ": cannot open: " + std::strerror(errno));
  std::string head(kMaxHeaderBytes, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  return head;
}

}  // namespace

ModelFileContents readModelFile(const std::string& path, bool withPayload) {
  if (!withPayload) return parseModelFile(readFileHead(path), path, false);
  std::string all;
  try {
    all = common::readWholeFile(path);
  } catch (const common::FileError& e) {
    throw ModelError(std::string("model ") + e.what());
  }
  return parseModelFile(all, path, true);
}

ModelFileContents parseModelFile(const std::string& all, const std::string& path, bool withPayload) {
  auto fail = [&](const std::string& what) { throw ModelError("model " + path + ": " + what); };
  const size_t line1 = all.find('\n');
  if (line1 == std::string::npos || all.compare(0, 8, kMagic) != 0) fail("not a Poppy model file");
  const std::string magicLine = all.substr(0, line1);
  const bool legacy = magicLine == std::string(kMagic) + " 1";
  if (!legacy && magicLine != std::string(kMagic) + " " + std::to_string(kFormatVersion))
    fail("unsupported model format '" + magicLine.substr(0, 40) + "' (this build reads versions 1 and " +
         std::to_string(kFormatVersion) + ")");
  // The same limit with and without the weights, so the header reads alone wherever the whole file does.
  const size_t line2 = all.find('\n', line1 + 1);
  if (line2 != std::string::npos && line2 >= kMaxHeaderBytes)
    fail("header longer than " + std::to_string(kMaxHeaderBytes) + " bytes");
  if (line2 == std::string::npos)
    fail(all.size() >= kMaxHeaderBytes ? "header longer than " + std::to_string(kMaxHeaderBytes) + " bytes" : "truncated header");
  ModelFileContents out;
  size_t payloadBytes = 0;
  uint32_t crc = 0;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(all.substr(line1 + 1, line2 - line1 - 1));
    out.info = modelInfoFromJson(header);
    payloadBytes = common::integerAt<size_t>(header, "payload_bytes");
    crc = common::integerAt<uint32_t>(header, "crc32");
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("bad header: ") + e.what());
  }
  const ModelInfo& i = out.info;
  if (i.shape.planes < 1 || i.shape.height < 1 || i.shape.width < 1 || i.shape.policySize < 1 || i.shape.blocks < 0 ||
      i.shape.blocks > 256 || i.shape.channels < 1 || i.shape.channels > 4096 || i.shape.valueHidden < 1 || i.shape.policyPlanes < 0 ||
      i.shape.valueOutputs < 3 || i.shape.valueOutputs > 5 ||
      (i.shape.policyPlanes > 0 && i.shape.policySize != i.shape.policyPlanes * i.shape.height * i.shape.width))
    fail("implausible architecture in the header");
  if (!withPayload) return out;
  if (all.size() - (line2 + 1) != payloadBytes)
    fail("truncated or padded: header promises " + std::to_string(payloadBytes) + " bytes of weights, file has " +
         std::to_string(all.size() - (line2 + 1)));
  out.payload = all.substr(line2 + 1);
  if ((legacy ? crc32Of(out.payload) : crcOf(header, out.payload)) != crc) fail("checksum mismatch: the file is corrupt");
  return out;
}

std::string modelFileBytes(const ModelInfo& info, const std::string& payload) {
  nlohmann::json h;
  modelInfoToJson(info, h);
  h["payload_bytes"] = payload.size();
  h["crc32"] = crcOf(h, payload);
  return std::string(kMagic) + " " + std::to_string(kFormatVersion) + "\n" + h.dump() + "\n" + payload;
}

ModelInfo readModelInfo(const std::string& path) { return readModelFile(path, false).info; }

void checkModelFits(const ModelInfo& info, const std::string& path, const game::Variant* expected,
                    int expectedEncoder) {
  if (expected && info.variant != expected->name)
    throw ModelError("model " + path + " was trained for " + info.variant + ", not " + expected->name);
  if (expected && info.rules && expected->fingerprint && info.rules != expected->fingerprint)
    throw ModelError("model " + path + " was trained for " + info.variant + " with other rules (fingerprint " +
                     game::fingerprintHex(info.rules) + "); this " + expected->name + " (" + expected->sourcePath +
                     ") has fingerprint " + game::fingerprintHex(expected->fingerprint) +
                     ": was its variant file edited?");
  if (expectedEncoder && info.encoderVersion != expectedEncoder)
    throw ModelError("model " + path + " uses encoder version " + std::to_string(info.encoderVersion) +
                     "; this build has version " + std::to_string(expectedEncoder));
}

}  // namespace poppy::nn
