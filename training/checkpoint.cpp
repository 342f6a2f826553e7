#include "training/checkpoint.h"

#include <zlib.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.h"
#include "common/json_integer.h"

namespace poppy::training {
namespace {
// Version 2: the CRC covers the header too. Version 1 (CRC of the payloads only) still loads.
constexpr const char* kMagic = "POPPYCKP 2";
constexpr const char* kLegacyMagic = "POPPYCKP 1";

// CRC-32 of h, a and b in a row.
uint32_t crcOf(const std::string& h, const std::string& a, const std::string& b) {
  uLong crc = ::crc32(0L, reinterpret_cast<const Bytef*>(h.data()), uInt(h.size()));
  crc = ::crc32(crc, reinterpret_cast<const Bytef*>(a.data()), uInt(a.size()));
  return uint32_t(::crc32(crc, reinterpret_cast<const Bytef*>(b.data()), uInt(b.size())));
}

// Covers the header (without its crc32 field) and both payloads.
uint32_t crcOf(nlohmann::json header, const std::string& a, const std::string& b) {
  header.erase("crc32");
  return crcOf(header.dump(), a, b);
}
}  // namespace

void saveCheckpoint(const std::string& path, Trainer& trainer, const nn::ModelInfo& info) {
  // Weights are stored from the CPU (moduleToBytes) so a checkpoint loads on any device.
  const std::string model = nn::moduleToBytes(*trainer.net());
  torch::serialize::OutputArchive archive;
  trainer.optimizer().save(archive);
  std::ostringstream opt;
  archive.save_to(opt);
  const std::string optimizer = opt.str();
  nlohmann::json h;
  nn::modelInfoToJson(info, h);
  h["step"] = trainer.steps();
  h["model_bytes"] = model.size();
  h["optimizer_bytes"] = optimizer.size();
  h["crc32"] = crcOf(h, model, optimizer);
  common::writeFileAtomically(path, std::string(kMagic) + "\n" + h.dump() + "\n" + model + optimizer);
}

nn::ModelInfo loadCheckpoint(const std::string& path, Trainer& trainer, const game::Variant* expectedVariant,
                             int expectedEncoder) {
  auto fail = [&](const std::string& what) -> nn::ModelInfo { throw CheckpointError("checkpoint " + path + ": " + what); };
  std::string all;
  try {
    all = common::readWholeFile(path);
  } catch (const common::FileError& e) {
    throw CheckpointError(std::string("checkpoint ") + e.what());
  }
  const size_t line1 = all.find('\n');
  const bool legacy = line1 != std::string::npos && all.substr(0, line1) == kLegacyMagic;
  if (line1 == std::string::npos || (!legacy && all.substr(0, line1) != kMagic))
    return fail("not a Poppy checkpoint (versions 1 and 2 are read)");
  const size_t line2 = all.find('\n', line1 + 1);
  if (line2 == std::string::npos) return fail("truncated header");
  nn::ModelInfo info;
  size_t modelBytes = 0, optimizerBytes = 0;
  uint32_t crc = 0;
  nlohmann::json header;
  try {
    const auto h = nlohmann::json::parse(all.substr(line1 + 1, line2 - line1 - 1));
    header = h;
    info = nn::modelInfoFromJson(h);
    modelBytes = common::integerAt<size_t>(h, "model_bytes");
    optimizerBytes = common::integerAt<size_t>(h, "optimizer_bytes");
    crc = common::integerAt<uint32_t>(h, "crc32");
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("bad header: ") + e.what());
  }
  if (all.size() - (line2 + 1) != modelBytes + optimizerBytes) return fail("truncated (size does not match header)");
  const std::string model = all.substr(line2 + 1, modelBytes);
  const std::string optimizer = all.substr(line2 + 1 + modelBytes);
  const uint32_t expected = legacy ? crcOf(std::string(), model, optimizer) : crcOf(header, model, optimizer);
  if (expected != crc) return fail("checksum mismatch: the file is corrupt");
  try {
    nn::checkModelFits(info, path, expectedVariant, expectedEncoder);
  } catch (const nn::ModelError& e) {
    throw CheckpointError(std::string("checkpoint: ") + e.what());
  }
  const nn::NetworkShape& s = trainer.net()->shape();
  if (s.blocks != info.shape.blocks || s.channels != info.shape.channels || s.valueHidden != info.shape.valueHidden ||
      s.planes != info.shape.planes || s.policySize != info.shape.policySize ||
      s.auxiliaryHeads != info.shape.auxiliaryHeads)
    return fail("network shape differs from the configured one (" + nn::describeNetwork(info.shape) + " in the file)");
  try {
    trainer.net()->to(torch::kCPU);
    nn::moduleFromBytes(*trainer.net(), model);
    trainer.placeNetwork();
    std::istringstream in(optimizer);
    torch::serialize::InputArchive archive;
    archive.load_from(in, trainer.device());
    trainer.optimizer().load(archive);
  } catch (const c10::Error& e) {
    return fail(std::string("does not load: ") + e.what_without_backtrace());
  }
  trainer.setSteps(info.step);
  return info;
}

}  // namespace poppy::training
