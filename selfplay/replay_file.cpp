#include "selfplay/replay_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

namespace poppy::selfplay {
namespace {

using Kind = ReplayError::Kind;

constexpr char kMagic[8] = {'P', 'O', 'P', 'P', 'Y', 'R', 'P', 'L'};
constexpr size_t kFixedHeader = 78;  // up to and including the variant name length
constexpr size_t kMaxVariantName = 255;
constexpr size_t kMaxHeader = kFixedHeader + kMaxVariantName + 16;
constexpr int kMaxNarrowPolicySize = 65536;  // uint16 indices (versions 2 and 4)
constexpr int kMaxPolicySize = 1 << 24;      // uint32 indices (versions 3 and 4): a sanity bound

// Bytes of a policy index: 16 bits up to version 2, 32 in version 3, and from version 4 as many
// as the policy size needs.
int indexBytes(uint64_t version, int policySize) {
  if (version >= 4) return policySize > kMaxNarrowPolicySize ? 4 : 2;
  return version == 3 ? 4 : 2;
}
// Bytes a sample takes besides its planes and policy entries: result, root value, entry count,
// and from version 4 plies left and the reply flag.
uint64_t fixedSampleBytes(uint64_t version) { return 1 + 4 + 4 + (version >= 4 ? 2 + 1 : 0); }

// --- little-endian encoding ------------------------------------------------------------------

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
uint64_t get(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::string errnoText() { return std::strerror(errno); }

std::string shapeText(const ChunkInfo& i) {
  return std::to_string(i.planes) + "x" + std::to_string(i.height) + "x" + std::to_string(i.width);
}

// The rules fingerprint as game/rules_fingerprint.h writes it (this library does not link game/).
std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// --- header ----------------------------------------------------------------------------------

std::vector<uint8_t> encodeHeader(const ChunkInfo& info, uint64_t samples, uint64_t rawSize,
                                  uint64_t packedSize, uint64_t checksum,
                                  uint64_t packedChecksum) {
  std::vector<uint8_t> h(kMagic, kMagic + 8);
  put(h, kReplayFormatVersion, 4);
  put(h, kFixedHeader + info.variant.size() + 16, 4);
  put(h, uint32_t(info.encoderVersion), 4);
  put(h, uint32_t(info.planes), 4);
  put(h, uint32_t(info.height), 4);
  put(h, uint32_t(info.width), 4);
  put(h, uint32_t(info.policySize), 4);
  put(h, samples, 8);
  put(h, rawSize, 8);
  put(h, packedSize, 8);
  put(h, checksum, 8);
  put(h, packedChecksum, 8);
  put(h, info.variant.size(), 2);
  h.insert(h.end(), info.variant.begin(), info.variant.end());
  put(h, info.rules, 8);
  put(h, XXH64(h.data(), h.size(), 0), 8);
  return h;
}

// Parses and checks the header at the start of `data` (`size` bytes available; the whole file or
// at least its first kMaxHeader bytes). Returns the header size.
size_t decodeHeader(const std::string& path, const uint8_t* data, size_t size, ChunkHeader& out) {
  if (size == 0) throw ReplayError(Kind::kNotReplayFile, path, "not a replay file (empty file)");
  if (size < 8 || std::memcmp(data, kMagic, 8) != 0) {
    throw ReplayError(Kind::kNotReplayFile, path, "not a replay file (no POPPYRPL magic)");
  }
  if (size < 12) throw ReplayError(Kind::kTruncated, path, "truncated inside the header");
  const uint64_t version = get(data + 8, 4);
  if (version < 1 || version > kReplayFormatVersion) {
    throw ReplayError(Kind::kVersion, path,
                      "unsupported format version " + std::to_string(version) +
                          " (this build reads versions 1 to " + std::to_string(kReplayFormatVersion) + ")");
  }
  out.version = uint32_t(version);
  const size_t fingerprintBytes = version == 1 ? 0 : 8;  // version 1 has no rules fingerprint
  if (size < kFixedHeader) throw ReplayError(Kind::kTruncated, path, "truncated inside the header");
  const size_t nameLength = size_t(get(data + 76, 2));
  const size_t headerSize = kFixedHeader + nameLength + fingerprintBytes + 8;
  if (nameLength > kMaxVariantName || get(data + 12, 4) != headerSize) {
    throw ReplayError(Kind::kCorrupt, path, "corrupt header (inconsistent header size)");
  }
  if (size < headerSize) throw ReplayError(Kind::kTruncated, path, "truncated inside the header");
  if (XXH64(data, headerSize - 8, 0) != get(data + headerSize - 8, 8)) {
    throw ReplayError(Kind::kCorrupt, path, "corrupt header (header checksum mismatch)");
  }
  auto field = [&](size_t offset) {
    const uint64_t v = get(data + offset, 4);
    if (v > uint64_t(std::numeric_limits<int>::max())) {
      throw ReplayError(Kind::kCorrupt, path, "corrupt header (field out of range)");
    }
    return int(v);
  };
  out.info.encoderVersion = field(16);
  out.info.planes = field(20);
  out.info.height = field(24);
  out.info.width = field(28);
  out.info.policySize = field(32);
  out.samples = get(data + 36, 8);
  out.uncompressedSize = get(data + 44, 8);
  out.compressedSize = get(data + 52, 8);
  out.payloadChecksum = get(data + 60, 8);
  out.compressedChecksum = get(data + 68, 8);
  out.headerSize = headerSize;
  out.info.variant.assign(reinterpret_cast<const char*>(data + kFixedHeader), nameLength);
  out.info.rules = fingerprintBytes ? get(data + kFixedHeader + nameLength, 8) : 0;
  return headerSize;
}

void checkExpected(const std::string& path, const ChunkInfo& got, const ChunkInfo& want) {
  if (got.variant != want.variant) {
    throw ReplayError(Kind::kMismatch, path,
                      "is for variant '" + got.variant + "', expected '" + want.variant + "'");
  }
  if (got.rules && want.rules && got.rules != want.rules) {
    throw ReplayError(Kind::kMismatch, path,
                      "is for variant '" + got.variant + "' with other rules (fingerprint " + hex16(got.rules) +
                          ", expected " + hex16(want.rules) + "): was the variant file edited?");
  }
  if (got.encoderVersion != want.encoderVersion) {
    throw ReplayError(Kind::kMismatch, path,
                      "was written by encoder version " + std::to_string(got.encoderVersion) +
                          ", expected " + std::to_string(want.encoderVersion));
  }
  if (got.planes != want.planes || got.height != want.height || got.width != want.width) {
    throw ReplayError(Kind::kMismatch, path,
                      "has planes x height x width " + shapeText(got) + ", expected " +
                          shapeText(want));
  }
  if (got.policySize != want.policySize) {
    throw ReplayError(Kind::kMismatch, path,
                      "has policy size " + std::to_string(got.policySize) + ", expected " +
                          std::to_string(want.policySize));
  }
}

// --- samples ---------------------------------------------------------------------------------

// What is wrong with a sample for `info`, or "" when nothing is. The writer refuses such a sample
// and the reader calls a chunk holding one malformed: one list of rules, so that the reader
// never hands the trainer a sample the writer would have refused (say, a policy summing to 0.8).
std::string sampleProblem(const ChunkInfo& info, const Sample& s) {
  const size_t inputSize = size_t(info.inputSize());
  if (s.planes.size() != inputSize) {
    return std::to_string(s.planes.size()) + " plane bytes, expected " + std::to_string(inputSize);
  }
  if (info.valueSize == 3 && (s.result < -1 || s.result > 1)) return "result not -1, 0 or +1";
  if (info.valueSize != 3 && (s.result < -1 || s.result > info.valueSize - 2))
    return "result not -1 (a draw) or a winner's place 0.." + std::to_string(info.valueSize - 2);
  if (!std::isfinite(s.rootValue)) return "root value not finite";
  double sum = 0.0;
  for (const auto& [index, p] : s.policy) {
    if (index >= uint32_t(info.policySize)) return "policy index " + std::to_string(index) + " out of range";
    if (!std::isfinite(p) || p < 0.0f) return "policy probability not finite and >= 0";
    sum += p;
  }
  if (std::fabs(sum - 1.0) > 1e-3) return "policy sums to " + std::to_string(sum) + ", not 1";
  return "";
}

// What is wrong with sample i's reply flag: the next sample, the opponent's position, is one ply
// nearer the end of the same game.
std::string replyProblem(const std::vector<Sample>& samples, size_t i) {
  if (!samples[i].replyFollows) return "";
  if (i + 1 == samples.size()) return "a reply flag on the last sample";
  if (samples[i].pliesLeft < 2 || samples[i + 1].pliesLeft + 1 != samples[i].pliesLeft)
    return "a reply flag, but " + std::to_string(samples[i].pliesLeft) + " plies left and " +
           std::to_string(samples[i + 1].pliesLeft) + " in the next sample";
  return "";
}

// --- I/O -------------------------------------------------------------------------------------

std::vector<uint8_t> readWholeFile(const std::string& path, size_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ReplayError(Kind::kIo, path, "cannot open: " + errnoText());
  std::vector<uint8_t> data;
  uint8_t buffer[1 << 16];
  while (data.size() < limit) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, limit - data.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string e = errnoText();
      ::close(fd);
      throw ReplayError(Kind::kIo, path, "cannot read: " + e);
    }
    if (n == 0) break;
    data.insert(data.end(), buffer, buffer + n);
  }
  ::close(fd);
  return data;
}

void syncDirectory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw ReplayError(Kind::kIo, path, "cannot open its directory to sync: " + errnoText());
  const int rc = ::fsync(fd);
  const std::string e = errnoText();
  ::close(fd);
  if (rc != 0) throw ReplayError(Kind::kIo, path, "cannot sync its directory: " + e);
}

// The file size a checked header promises (header + compressed payload), after refusing sizes
// no honest chunk has, so that a corrupt header cannot make a reader allocate without bound.
uint64_t checkedFileSize(const std::string& path, const ChunkHeader& h, size_t headerSize) {
  const uint64_t inputSize = uint64_t(h.info.inputSize());
  const uint64_t perSample = inputSize + fixedSampleBytes(h.version);
  const uint64_t maxPerSample =
      perSample + uint64_t(h.info.policySize) * uint64_t(indexBytes(h.version, h.info.policySize) + 4);
  constexpr uint64_t kMaxChunkBytes = uint64_t(1) << 36;  // 64 GiB: no honest chunk comes close
  if (h.samples > kMaxChunkBytes / std::max<uint64_t>(maxPerSample, 1) ||
      h.uncompressedSize < h.samples * perSample || h.uncompressedSize > h.samples * maxPerSample ||
      h.compressedSize > kMaxChunkBytes) {
    throw ReplayError(Kind::kCorrupt, path, "corrupt header (impossible sizes)");
  }
  return headerSize + h.compressedSize;
}

}  // namespace

std::vector<uint8_t> encodeReplayChunk(const std::string& path, const ChunkInfo& info,
                                       const std::vector<Sample>& samples) {
  // Check everything first: a chunk that cannot be read back must never be written.
  auto invalid = [&](const std::string& what) {
    throw ReplayError(Kind::kInvalidInput, path, "cannot write: " + what);
  };
  if (info.variant.empty() || info.variant.size() > kMaxVariantName) {
    invalid("variant name must have 1 to 255 bytes");
  }
  if (info.planes <= 0 || info.height <= 0 || info.width <= 0 || info.encoderVersion < 0) {
    invalid("bad shape " + shapeText(info));
  }
  if (info.policySize <= 0 || info.policySize > kMaxPolicySize) {
    invalid("policy size " + std::to_string(info.policySize) + " outside 1.." + std::to_string(kMaxPolicySize));
  }
  const int wide = indexBytes(kReplayFormatVersion, info.policySize);
  const size_t inputSize = size_t(info.inputSize());
  size_t entries = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string problem = sampleProblem(info, samples[i]);
    if (problem.empty()) problem = replyProblem(samples, i);
    if (!problem.empty()) invalid("sample " + std::to_string(i) + ": " + problem);
    entries += samples[i].policy.size();
  }

  // Payload, column by column.
  const size_t n = samples.size();
  std::vector<uint8_t> raw;
  raw.reserve(n * (inputSize + fixedSampleBytes(kReplayFormatVersion)) + entries * size_t(wide + 4));
  for (const Sample& s : samples) raw.insert(raw.end(), s.planes.begin(), s.planes.end());
  for (const Sample& s : samples) raw.push_back(uint8_t(s.result));
  for (const Sample& s : samples) put(raw, floatBits(s.rootValue), 4);
  for (const Sample& s : samples) put(raw, s.pliesLeft, 2);
  for (const Sample& s : samples) raw.push_back(s.replyFollows ? 1 : 0);
  for (const Sample& s : samples) put(raw, s.policy.size(), 4);
  for (const Sample& s : samples)
    for (const auto& entry : s.policy) put(raw, entry.first, wide);
  for (const Sample& s : samples)
    for (const auto& entry : s.policy) put(raw, floatBits(entry.second), 4);

  std::vector<uint8_t> packed(ZSTD_compressBound(raw.size()));
  const size_t packedSize =
      ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), kReplayZstdLevel);
  if (ZSTD_isError(packedSize)) {
    throw ReplayError(Kind::kIo, path, std::string("zstd compression failed: ") +
                                           ZSTD_getErrorName(packedSize));
  }
  std::vector<uint8_t> header =
      encodeHeader(info, n, raw.size(), packedSize, XXH64(raw.data(), raw.size(), 0),
                   XXH64(packed.data(), packedSize, 0));
  std::vector<uint8_t> bytes = header;
  bytes.insert(bytes.end(), packed.begin(), packed.begin() + std::ptrdiff_t(packedSize));
  return bytes;
}

void writeReplayChunk(const std::string& path, const ChunkInfo& info,
                      const std::vector<Sample>& samples) {
  writeReplayChunkBytes(path, encodeReplayChunk(path, info, samples));
}

void writeReplayChunkBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  // Atomic replacement: temporary file, flush, fsync, rename, fsync the directory.
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw ReplayError(Kind::kIo, path, "cannot create " + tmp + ": " + errnoText());
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0 &&
            ::fsync(fileno(f)) == 0;
  std::string e = ok ? "" : errnoText();
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    e = errnoText();
  }
  if (!ok) {
    std::remove(tmp.c_str());
    throw ReplayError(Kind::kIo, path, "cannot write " + tmp + ": " + e);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    e = errnoText();
    std::remove(tmp.c_str());
    throw ReplayError(Kind::kIo, path, "cannot rename " + tmp + " into place: " + e);
  }
  syncDirectory(path);
}

ChunkHeader readReplayChunkHeader(const std::string& path) {
  const std::vector<uint8_t> data = readWholeFile(path, kMaxHeader);
  ChunkHeader header;
  decodeHeader(path, data.data(), data.size(), header);
  return header;
}

std::vector<Sample> readReplayChunk(const std::string& path, const ChunkInfo& expected) {
  // The header says how long the file must be; read no more than that plus one byte (to notice
  // trailing garbage), so a huge stray file cannot exhaust memory.
  std::vector<uint8_t> head = readWholeFile(path, kMaxHeader);
  ChunkHeader h;
  const size_t headerSize = decodeHeader(path, head.data(), head.size(), h);
  checkExpected(path, h.info, expected);
  const uint64_t fileSize = checkedFileSize(path, h, headerSize);
  const std::vector<uint8_t> data = readWholeFile(path, size_t(fileSize) + 1);
  if (data.size() >= headerSize && std::memcmp(data.data(), head.data(), headerSize) != 0) {
    throw ReplayError(Kind::kIo, path, "changed while being read");
  }
  return decodeReplayChunk(path, data.data(), data.size(), expected);
}

std::vector<Sample> decodeReplayChunk(const std::string& path, const uint8_t* bytes, size_t size,
                                      const ChunkInfo& expected) {
  ChunkHeader h;
  const size_t headerSize = decodeHeader(path, bytes, size, h);
  checkExpected(path, h.info, expected);
  h.info.valueSize = expected.valueSize;
  const uint64_t fileSize = checkedFileSize(path, h, headerSize);
  if (size < fileSize) {
    throw ReplayError(Kind::kTruncated, path,
                      "truncated: " + std::to_string(size) + " bytes, header says " + std::to_string(fileSize));
  }
  if (size > fileSize) {
    throw ReplayError(Kind::kCorrupt, path,
                      "has bytes after the payload (header says " + std::to_string(fileSize) + " bytes)");
  }
  const uint64_t inputSize = uint64_t(h.info.inputSize());
  const uint64_t perSample = inputSize + fixedSampleBytes(h.version);
  const uint8_t* packed = bytes + headerSize;
  if (XXH64(packed, size_t(h.compressedSize), 0) != h.compressedChecksum) {
    throw ReplayError(Kind::kChecksum, path, "checksum mismatch (compressed payload corrupt)");
  }
  const unsigned long long frameSize = ZSTD_getFrameContentSize(packed, h.compressedSize);
  if (frameSize == ZSTD_CONTENTSIZE_ERROR || frameSize == ZSTD_CONTENTSIZE_UNKNOWN) {
    throw ReplayError(Kind::kDecompress, path, "decompression failed: not a zstd frame");
  }
  if (frameSize != h.uncompressedSize) {
    throw ReplayError(Kind::kDecompress, path,
                      "decompression failed: frame holds " + std::to_string(frameSize) +
                          " bytes, header says " + std::to_string(h.uncompressedSize));
  }
  std::vector<uint8_t> raw(size_t(h.uncompressedSize));
  const size_t got = ZSTD_decompress(raw.data(), raw.size(), packed, size_t(h.compressedSize));
  if (ZSTD_isError(got)) {
    throw ReplayError(Kind::kDecompress, path,
                      std::string("decompression failed: ") + ZSTD_getErrorName(got));
  }
  if (got != raw.size()) {
    throw ReplayError(Kind::kDecompress, path, "decompression failed: short payload");
  }
  if (XXH64(raw.data(), raw.size(), 0) != h.payloadChecksum) {
    throw ReplayError(Kind::kChecksum, path, "checksum mismatch (payload corrupt)");
  }

  // The checksum matched, so anything wrong from here on was written that way.
  auto malformed = [&](const std::string& what) {
    throw ReplayError(Kind::kMalformed, path, "malformed payload: " + what);
  };
  const size_t n = size_t(h.samples);
  const uint8_t* planes = raw.data();
  const uint8_t* results = planes + n * inputSize;
  const uint8_t* values = results + n;
  const bool placed = h.version >= 4;  // plies left and reply flags
  const uint8_t* pliesLeft = values + 4 * n;
  const uint8_t* replyFlags = pliesLeft + (placed ? 2 * n : 0);
  const uint8_t* counts = replyFlags + (placed ? n : 0);
  uint64_t entries = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t count = get(counts + 4 * i, 4);
    if (count > uint64_t(h.info.policySize)) malformed("sample " + std::to_string(i) + " policy count");
    entries += count;
  }
  const int wide = indexBytes(h.version, h.info.policySize);
  if (raw.size() != n * perSample + entries * uint64_t(wide + 4)) malformed("policy entry count does not match size");
  const uint8_t* indices = counts + 4 * n;
  const uint8_t* probs = indices + size_t(wide) * entries;

  std::vector<Sample> samples(n);
  size_t e = 0;
  for (size_t i = 0; i < n; ++i) {
    Sample& s = samples[i];
    s.planes.assign(planes + i * inputSize, planes + (i + 1) * inputSize);
    s.result = int8_t(results[i]);
    s.rootValue = bitsFloat(uint32_t(get(values + 4 * i, 4)));
    if (placed) {
      s.pliesLeft = uint16_t(get(pliesLeft + 2 * i, 2));
      if (replyFlags[i] > 1)
        malformed("sample " + std::to_string(i) + ": reply flag " + std::to_string(replyFlags[i]) + " (not 0 or 1)");
      s.replyFollows = replyFlags[i] == 1;
    }
    const size_t count = size_t(get(counts + 4 * i, 4));
    s.policy.resize(count);
    for (size_t k = 0; k < count; ++k, ++e) {
      s.policy[k] = {uint32_t(get(indices + size_t(wide) * e, wide)), bitsFloat(uint32_t(get(probs + 4 * e, 4)))};
    }
    const std::string problem = sampleProblem(h.info, s);
    if (!problem.empty()) malformed("sample " + std::to_string(i) + ": " + problem);
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string problem = replyProblem(samples, i);
    if (!problem.empty()) malformed("sample " + std::to_string(i) + ": " + problem);
  }
  return samples;
}

}  // namespace poppy::selfplay
