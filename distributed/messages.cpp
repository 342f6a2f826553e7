#include "distributed/messages.h"

namespace poppy::distributed {
namespace {

void putU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

uint32_t getU32(const std::vector<uint8_t>& in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(in[size_t(i)]) << (8 * i);
  return v;
}

}  // namespace

std::vector<uint8_t> packGame(const selfplay::GameRecord& record, const std::vector<uint8_t>& chunk) {
  const std::string json = selfplay::gameRecordToJson(record);
  std::vector<uint8_t> out;
  out.reserve(4 + json.size() + chunk.size());
  putU32(out, uint32_t(json.size()));
  out.insert(out.end(), json.begin(), json.end());
  out.insert(out.end(), chunk.begin(), chunk.end());
  return out;
}

GameMessage unpackGame(const std::vector<uint8_t>& bytes, const std::string& sender) {
  const std::string what = "game message from " + sender + ": ";
  if (bytes.size() < 4) throw MessageError(what + "only " + std::to_string(bytes.size()) + " bytes");
  const uint32_t length = getU32(bytes);
  if (length > bytes.size() - 4)
    throw MessageError(what + "its record is said to have " + std::to_string(length) + " bytes, the message has " +
                       std::to_string(bytes.size() - 4) + " after the length");
  GameMessage m;
  try {
    m.record = selfplay::gameRecordFromJson(std::string(bytes.begin() + 4, bytes.begin() + 4 + length));
  } catch (const std::exception& e) {
    throw MessageError(what + "bad game record: " + e.what());
  }
  m.chunk.assign(bytes.begin() + 4 + length, bytes.end());
  if (m.chunk.empty()) throw MessageError(what + "no replay chunk after the record");
  return m;
}

std::vector<uint8_t> packModel(int generation, const std::vector<uint8_t>& model) {
  std::vector<uint8_t> out;
  out.reserve(4 + model.size());
  putU32(out, uint32_t(generation));
  out.insert(out.end(), model.begin(), model.end());
  return out;
}

ModelMessage unpackModel(const std::vector<uint8_t>& bytes, const std::string& sender) {
  const std::string what = "model message from " + sender + ": ";
  if (bytes.size() <= 4) throw MessageError(what + "only " + std::to_string(bytes.size()) + " bytes");
  ModelMessage m;
  const uint32_t generation = getU32(bytes);
  if (generation > 100000000u) throw MessageError(what + "generation " + std::to_string(generation) + " is not believable");
  m.generation = int(generation);
  m.model.assign(bytes.begin() + 4, bytes.end());
  return m;
}

}  // namespace poppy::distributed
