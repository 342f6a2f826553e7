// Replay chunks: one file holding many self-play samples, written atomically and checked on
// every read. A corrupt, truncated or foreign file raises ReplayError (naming the file and what is
// wrong); it is never silently used and never crashes the reader.
//
// File layout (all integers little-endian):
//   offset  size
//        0     8  magic "POPPYRPL"
//        8     4  format version (kReplayFormatVersion)
//       12     4  header size in bytes, including the header checksum
//       16     4  encoder version
//       20     4  planes
//       24     4  height
//       28     4  width
//       32     4  policy size
//       36     8  sample count
//       44     8  uncompressed payload size
//       52     8  compressed payload size
//       60     8  XXH64 (seed 0) of the uncompressed payload
//       68     8  XXH64 (seed 0) of the compressed payload
//       76     2  variant name length n (at most 255)
//       78     n  variant name (UTF-8, no terminator)
//     78+n     8  rules fingerprint of the variant (game/rules_fingerprint.h; 0: not recorded)
//     86+n     8  XXH64 (seed 0) of header bytes [0, 86+n)
// Version 1 files (no fingerprint: the checksum follows the name) are still read, as fingerprint 0.
// Version 3 is version 2 with 32-bit policy indices. Version 4, the one written, adds two
// columns (plies left, reply flags: the auxiliary targets' data) and takes 32-bit indices for
// policies of more than 65,536 entries (large boards), 16-bit ones otherwise. Versions 1 to 3
// are still read, their samples with 0 plies left and no reply flags.
//   then the payload as one zstd frame (level 3), exactly "compressed size" bytes, nothing after.
// Checksums are XXH64 from libxxhash. The compressed bytes have their own checksum because zstd
// ignores some bit flips (padding bits of its bitstreams): every changed byte is caught before
// decompression, and the checksum of the uncompressed payload then also guards the decompressor.
//
// The uncompressed payload is column-wise, which compresses better than sample by sample
// (S = sample count, P = planes*height*width, E = total policy entries):
//   S*P   uint8   planes (value * 24), sample after sample
//   S     int8    result
//   S     float32 root value (IEEE bits, little-endian)
//   S     uint16  plies left (version 4)
//   S     uint8   reply follows, 0 or 1 (version 4): the next sample is the same game's next ply
//   S     uint32  number of policy entries of each sample
//   E     uint16  policy indices (uint32 in version 3, and in version 4 above 65,536 entries)
//   E     float32 policy probabilities
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "selfplay/sample.h"

namespace poppy::selfplay {

inline constexpr uint32_t kReplayFormatVersion = 4;  // the newest this build reads, and what it writes
inline constexpr int kReplayZstdLevel = 3;

// What a chunk is for. A reader states what it expects; a chunk for anything else is refused.
struct ChunkInfo {
  std::string variant;     // game::Variant::name
  uint64_t rules = 0;      // game::Variant::fingerprint; 0 = not recorded (matches any)
  int encoderVersion = 0;  // nn::Encoder::kVersion
  int planes = 0;
  int height = 0;
  int width = 0;
  int policySize = 0;  // indices up to 65,536 stored as uint16, larger ones as uint32
  // Not stored: the encoder's value size, which says what a sample's result means (3: -1, 0 or
  // +1 from the mover's view; players + 1: the winner's place clockwise from the mover, 0 to
  // players - 1, or -1 for a draw). Set from the expected info when a chunk is read.
  int valueSize = 3;

  int inputSize() const { return planes * height * width; }
  bool operator==(const ChunkInfo& o) const {
    return variant == o.variant && rules == o.rules && encoderVersion == o.encoderVersion && planes == o.planes &&
           height == o.height && width == o.width && policySize == o.policySize;
  }
  bool operator!=(const ChunkInfo& o) const { return !(*this == o); }
};

class ReplayError : public std::runtime_error {
 public:
  enum class Kind {
    kIo,             // cannot open, read, write, sync or rename
    kNotReplayFile,  // empty, or no "POPPYRPL" magic
    kVersion,        // a format version this build does not read
    kMismatch,       // another variant or rules, encoder version, plane shape or policy size
    kTruncated,      // shorter than its header says
    kCorrupt,        // header checksum, trailing bytes, impossible sizes
    kDecompress,     // zstd refused the payload
    kChecksum,       // payload checksum mismatch
    kMalformed,      // checksum fine but contents invalid (a writer bug)
    kInvalidInput,   // writeReplayChunk given samples that do not fit the ChunkInfo
  };
  ReplayError(Kind kind, const std::string& path, const std::string& what)
      : std::runtime_error("replay chunk " + path + ": " + what), kind_(kind), path_(path) {}
  Kind kind() const { return kind_; }
  const std::string& path() const { return path_; }

 private:
  Kind kind_;
  std::string path_;
};

// Writes `samples` to `path` atomically: the bytes go to `path + ".tmp"`, which is flushed,
// fsync'ed and renamed over `path`; then the directory is fsync'ed. A crash leaves either the old
// state or the complete new file (plus possibly a stray .tmp, which readers ignore). Throws
// ReplayError (kInvalidInput for samples that do not match `info`, kIo for I/O failures; no .tmp
// is left behind on a failure it can clean up).
void writeReplayChunk(const std::string& path, const ChunkInfo& info,
                      const std::vector<Sample>& samples);

// Reads and fully checks a chunk; throws ReplayError on any problem.
std::vector<Sample> readReplayChunk(const std::string& path, const ChunkInfo& expected);

// The same chunk as bytes in memory, for sending it elsewhere (distributed self-play): encode
// checks and throws as writeReplayChunk does; decode checks everything readReplayChunk does.
// `name` stands for the path in error messages.
std::vector<uint8_t> encodeReplayChunk(const std::string& name, const ChunkInfo& info,
                                       const std::vector<Sample>& samples);
std::vector<Sample> decodeReplayChunk(const std::string& name, const uint8_t* bytes, size_t size,
                                      const ChunkInfo& expected);
// Writes encoded bytes to `path` atomically, as writeReplayChunk does (no checks of their own:
// they come from encodeReplayChunk, or were checked by decodeReplayChunk).
void writeReplayChunkBytes(const std::string& path, const std::vector<uint8_t>& bytes);

// Just the header fields (checked: magic, version, header checksum), for tools that list chunks.
struct ChunkHeader {
  ChunkInfo info;
  uint64_t samples = 0;
  uint64_t uncompressedSize = 0;
  uint64_t compressedSize = 0;
  uint64_t payloadChecksum = 0;     // of the uncompressed payload
  uint64_t compressedChecksum = 0;  // of the compressed payload
  size_t headerSize = 0;            // bytes before the payload
  uint32_t version = 0;             // the file's format version
};
ChunkHeader readReplayChunkHeader(const std::string& path);

}  // namespace poppy::selfplay
