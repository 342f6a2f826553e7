#include "nn/model_file.h"

#include <zlib.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.h"

namespace poppy::nn {
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

struct Parsed {
  ModelInfo info;
  std::string payload;
};

Parsed parse(const std::string& path, bool withPayload) {
  std::string all;
  try {
    all = common::readWholeFile(path);
  } catch (const common::FileError& e) {
    throw ModelError(std::string("model ") + e.what());
  }
  auto fail = [&](const std::string& what) { throw ModelError("model " + path + ": " + what); };
  const size_t line1 = all.find('\n');
  if (line1 == std::string::npos || all.compare(0, 8, kMagic) != 0) fail("not a Poppy model file");
  const std::string magicLine = all.substr(0, line1);
  const bool legacy = magicLine == std::string(kMagic) + " 1";
  if (!legacy && magicLine != std::string(kMagic) + " " + std::to_string(kFormatVersion))
    fail("unsupported model format '" + magicLine + "' (this build reads versions 1 and " +
         std::to_string(kFormatVersion) + ")");
  const size_t line2 = all.find('\n', line1 + 1);
  if (line2 == std::string::npos) fail("truncated header");
  Parsed out;
  size_t payloadBytes = 0;
  uint32_t crc = 0;
  nlohmann::json header;
  try {
    const auto h = nlohmann::json::parse(all.substr(line1 + 1, line2 - line1 - 1));
    header = h;
    out.info = modelInfoFromJson(h);
    payloadBytes = h.at("payload_bytes").get<size_t>();
    crc = h.at("crc32").get<uint32_t>();
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("bad header: ") + e.what());
  }
  const ModelInfo& i = out.info;
  if (i.shape.planes < 1 || i.shape.height < 1 || i.shape.width < 1 || i.shape.policySize < 1 || i.shape.blocks < 0 ||
      i.shape.blocks > 256 || i.shape.channels < 1 || i.shape.channels > 4096 || i.shape.valueHidden < 1)
    fail("implausible architecture in the header");
  if (!withPayload) return out;
  if (all.size() - (line2 + 1) != payloadBytes)
    fail("truncated or padded: header promises " + std::to_string(payloadBytes) + " bytes of weights, file has " +
         std::to_string(all.size() - (line2 + 1)));
  out.payload = all.substr(line2 + 1);
  if ((legacy ? crc32Of(out.payload) : crcOf(header, out.payload)) != crc) fail("checksum mismatch: the file is corrupt");
  return out;
}

}  // namespace

void modelInfoToJson(const ModelInfo& info, nlohmann::json& h) {
  h["variant"] = info.variant;
  h["encoder_version"] = info.encoderVersion;
  h["planes"] = info.shape.planes;
  h["height"] = info.shape.height;
  h["width"] = info.shape.width;
  h["policy_size"] = info.shape.policySize;
  h["blocks"] = info.shape.blocks;
  h["channels"] = info.shape.channels;
  h["value_hidden"] = info.shape.valueHidden;
  h["step"] = info.step;
  h["id"] = info.id;
}

ModelInfo modelInfoFromJson(const nlohmann::json& h) {
  ModelInfo i;
  i.variant = h.at("variant").get<std::string>();
  i.encoderVersion = h.at("encoder_version").get<int>();
  i.shape.planes = h.at("planes").get<int>();
  i.shape.height = h.at("height").get<int>();
  i.shape.width = h.at("width").get<int>();
  i.shape.policySize = h.at("policy_size").get<int>();
  i.shape.blocks = h.at("blocks").get<int>();
  i.shape.channels = h.at("channels").get<int>();
  i.shape.valueHidden = h.at("value_hidden").get<int>();
  i.step = h.at("step").get<int64_t>();
  i.id = h.at("id").get<std::string>();
  return i;
}

std::string moduleToBytes(torch::nn::Module& module) {
  torch::serialize::OutputArchive archive;
  module.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void moduleFromBytes(torch::nn::Module& module, const std::string& bytes) {
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in, torch::kCPU);
  module.load(archive);
}

void saveModel(const std::string& path, PolicyValueNet& net, const ModelInfo& info) {
  const std::string payload = moduleToBytes(*net);
  nlohmann::json h;
  modelInfoToJson(info, h);
  h["payload_bytes"] = payload.size();
  h["crc32"] = crcOf(h, payload);
  common::writeFileAtomically(path, std::string(kMagic) + " " + std::to_string(kFormatVersion) + "\n" + h.dump() +
                                        "\n" + payload);
}

ModelInfo readModelInfo(const std::string& path) { return parse(path, false).info; }

PolicyValueNet loadModel(const std::string& path, ModelInfo* info, const std::string& expectedVariant,
                         int expectedEncoder) {
  Parsed p = parse(path, true);
  if (!expectedVariant.empty() && p.info.variant != expectedVariant)
    throw ModelError("model " + path + " was trained for " + p.info.variant + ", not " + expectedVariant);
  if (expectedEncoder && p.info.encoderVersion != expectedEncoder)
    throw ModelError("model " + path + " uses encoder version " + std::to_string(p.info.encoderVersion) +
                     "; this build has version " + std::to_string(expectedEncoder));
  PolicyValueNet net(p.info.shape);
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& t : net->named_parameters()) shapes.push_back(t.value().sizes().vec());
  try {
    moduleFromBytes(*net, p.payload);
  } catch (const c10::Error& e) {
    throw ModelError("model " + path + ": weights do not load: " + std::string(e.what_without_backtrace()));
  }
  // LibTorch replaces tensors whatever their size: check them against the header's architecture.
  size_t i = 0;
  for (const auto& t : net->named_parameters())
    if (t.value().sizes().vec() != shapes[i++])
      throw ModelError("model " + path + ": weight " + t.key() + " does not fit the architecture in the header");
  if (info) *info = p.info;
  return net;
}

}  // namespace poppy::nn
