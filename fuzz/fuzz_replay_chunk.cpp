// The replay chunk reader (selfplay/replay_file.h). Promise: a chunk that is not exactly what
// writeReplayChunk wrote raises ReplayError, never a crash, a hang or a huge allocation; a chunk
// it reads writes back to the same bytes.
// Byte 0 picks the mode:
//   even: the rest is the file, as it lies on disk (the header checks, truncation, checksums);
//   odd:  byte 1 is the sample count and the rest the uncompressed payload, which this target
//         wraps in a correct header, zstd frame and checksums (layout in replay_file.h), so that
//         the fuzzer reaches the payload parser behind the checksums.
// The reader expects micro shogi's chunk shape, as the trainer would.
#include <xxhash.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "nn/encoder.h"
#include "selfplay/chunk_info.h"
#include "selfplay/replay_file.h"

using namespace poppy;

namespace {

const selfplay::ChunkInfo& microInfo() {
  static const selfplay::ChunkInfo info = selfplay::chunkInfoFor(nn::Encoder(fuzz::variantFromByte(0)));  // micro
  return info;
}

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

// A whole chunk file around `raw` with every size and checksum right.
std::vector<uint8_t> wrap(uint64_t samples, const uint8_t* raw, size_t rawSize) {
  std::vector<uint8_t> packed(ZSTD_compressBound(rawSize));
  const size_t packedSize = ZSTD_compress(packed.data(), packed.size(), raw, rawSize, 1);
  if (ZSTD_isError(packedSize)) fuzz::fail(std::string("zstd: ") + ZSTD_getErrorName(packedSize));
  packed.resize(packedSize);
  const selfplay::ChunkInfo& info = microInfo();
  const std::string magic = "POPPYRPL";
  std::vector<uint8_t> file(magic.begin(), magic.end());
  put(file, selfplay::kReplayFormatVersion, 4);
  put(file, 78 + info.variant.size() + 8, 4);
  for (int field : {info.encoderVersion, info.planes, info.height, info.width, info.policySize}) put(file, uint32_t(field), 4);
  put(file, samples, 8);
  put(file, rawSize, 8);
  put(file, packedSize, 8);
  put(file, XXH64(raw, rawSize, 0), 8);
  put(file, XXH64(packed.data(), packedSize, 0), 8);
  put(file, info.variant.size(), 2);
  file.insert(file.end(), info.variant.begin(), info.variant.end());
  put(file, XXH64(file.data(), file.size(), 0), 8);
  file.insert(file.end(), packed.begin(), packed.end());
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile file("chunk.rpl");
  static fuzz::ScratchFile rewritten("rewritten.rpl");
  if (size < 1) return 0;
  std::vector<uint8_t> bytes;
  if (data[0] % 2 == 0) {
    bytes.assign(data + 1, data + size);
  } else {
    if (size < 2) return 0;
    bytes = wrap(data[1], data + 2, size - 2);
  }
  file.write(bytes.data(), bytes.size());

  try {
    selfplay::readReplayChunkHeader(file.path());
  } catch (const selfplay::ReplayError&) {
  }
  std::vector<selfplay::Sample> samples;
  try {
    samples = selfplay::readReplayChunk(file.path(), microInfo());
  } catch (const selfplay::ReplayError&) {
    return 0;  // refused with the documented error
  }
  // What was read is a valid chunk: writing it again gives it back.
  selfplay::writeReplayChunk(rewritten.path(), microInfo(), samples);
  fuzz::check(selfplay::readReplayChunk(rewritten.path(), microInfo()) == samples,
              "a chunk read and written again reads differently");
  return 0;
}
