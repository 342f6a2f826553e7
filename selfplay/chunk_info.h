// The ChunkInfo of an encoder: what replay chunks written or read with it must match. Kept apart
// from replay_file.h so that the replay I/O itself needs neither game/ nor nn/ (everything used
// here is inline in nn/encoder.h, so poppy_selfplay_io needs no extra library for it).
#pragma once
#include "nn/encoder.h"
#include "selfplay/replay_file.h"

namespace poppy::selfplay {

inline ChunkInfo chunkInfoFor(const nn::Encoder& encoder) {
  ChunkInfo info;
  info.variant = encoder.variant().name;
  info.rules = encoder.variant().fingerprint;
  info.encoderVersion = nn::Encoder::kVersion;
  info.planes = encoder.planes();
  info.height = encoder.height();
  info.width = encoder.width();
  info.policySize = encoder.policySize();
  info.valueSize = encoder.valueSize();
  return info;
}

}  // namespace poppy::selfplay
