// Self-play data files: samples, replay chunks (round trip, atomic write, every kind of
// corruption refused with a ReplayError naming the file), the replay window (skips corrupt chunks,
// keeps the newest up to capacity, dense batches), and JSONL game records.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <set>
#include <random>
#include <string>
#include <vector>

#include "selfplay/game_record.h"
#include "selfplay/replay_file.h"
#include "selfplay/replay_window.h"
#include "selfplay/sample.h"

using namespace poppy::selfplay;
namespace fs = std::filesystem;

namespace {

ChunkInfo microInfo() {
  ChunkInfo info;
  info.variant = "micro";
  info.rules = 0x0123456789abcdefULL;  // any fingerprint: only equality matters here
  info.encoderVersion = 1;
  info.planes = 33;
  info.height = 5;
  info.width = 4;
  info.policySize = 2 * 20 * 20 + 14 * 20;
  return info;
}

// Samples shaped like the encoder's: 0/1 piece planes, hand planes count/8, a repetition plane,
// side and ones planes. Every sample's rootValue is unique (base + i) so tests can tell them apart.
// The samples are one game's positions in order, n - i plies from its end; every fifth one's
// reply was not searched (no reply flag).
std::vector<Sample> makeSamples(const ChunkInfo& info, int n, uint32_t seed, float base = 0.0f) {
  std::mt19937 rng(seed);
  const int squares = info.height * info.width;
  std::vector<Sample> out;
  for (int i = 0; i < n; ++i) {
    std::vector<float> planes(size_t(info.inputSize()), 0.0f);
    for (int p = 0; p < info.planes; ++p) {
      const int kind = p % 6;
      for (int s = 0; s < squares; ++s) {
        float v = 0.0f;
        if (kind < 3) v = (rng() % 7 == 0) ? 1.0f : 0.0f;
        if (kind == 3) v = float(rng() % 19) / 8.0f;
        if (kind == 4) v = float(std::min<int>(rng() % 5, 3)) / 3.0f;
        if (kind == 5) v = 1.0f;
        planes[size_t(p * squares + s)] = v;
      }
    }
    Sample sample;
    sample.planes = quantizePlanes(planes.data(), planes.size());
    const int moves = 1 + int(rng() % 30);
    std::vector<int> all(size_t(info.policySize));
    for (int k = 0; k < info.policySize; ++k) all[size_t(k)] = k;
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<float> visits;
    for (int k = 0; k < moves; ++k) visits.push_back(float(1 + rng() % 100));
    sample.policy = sparsePolicy(all.data(), visits.data(), size_t(moves), info.policySize);
    sample.result = int8_t(int(rng() % 3) - 1);
    sample.rootValue = base + float(i) + 0.25f;
    sample.pliesLeft = uint16_t(n - i);
    sample.replyFollows = i + 1 < n && i % 5 != 4;
    out.push_back(std::move(sample));
  }
  return out;
}

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// `bytes`, a chunk of this build's version, as version `version` (1 to 3) wrote it: the plies
// left and reply flags dropped from the payload, policy indices 16 bits wide (32 in version 3),
// no rules fingerprint in version 1; every size and checksum rewritten. What older builds left.
std::string olderVersion(const std::string& bytes, uint32_t version) {
  const auto get = [&](const std::string& b, size_t at, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(b[at + size_t(i)])) << (8 * i);
    return v;
  };
  const auto put = [](std::string& b, size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b[at + size_t(i)] = char(uint8_t(v >> (8 * i)));
  };
  const size_t planes = get(bytes, 20, 4) * get(bytes, 24, 4) * get(bytes, 28, 4);
  const size_t n = get(bytes, 36, 8), nameEnd = 78 + get(bytes, 76, 2), header = nameEnd + 16;
  std::string raw(get(bytes, 44, 8), '\0');
  if (ZSTD_decompress(raw.data(), raw.size(), bytes.data() + header, bytes.size() - header) != raw.size())
    throw std::runtime_error("olderVersion: not a chunk of this build");
  // Version 4 payload: planes, results, root values, plies left (2n), reply flags (n), counts, ...
  const size_t placed = n * (planes + 1 + 4);
  std::string old = raw.substr(0, placed) + raw.substr(placed + 3 * n);
  const bool wide = get(bytes, 32, 4) > 65536;
  if (version == 3 && !wide) {  // widen the indices
    const size_t counts = placed, indicesAt = counts + 4 * n;
    size_t entries = 0;
    for (size_t i = 0; i < n; ++i) entries += get(old, counts + 4 * i, 4);
    std::string indices(4 * entries, '\0');
    for (size_t e = 0; e < entries; ++e) put(indices, 4 * e, get(old, indicesAt + 2 * e, 2), 4);
    old = old.substr(0, indicesAt) + indices + old.substr(indicesAt + 2 * entries);
  } else if (version != 3 && wide) {
    throw std::runtime_error("olderVersion: versions 1 and 2 hold no policy of more than 65,536 entries");
  }
  std::string packed(ZSTD_compressBound(old.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), old.data(), old.size(), 3));
  std::string head = bytes.substr(0, version == 1 ? nameEnd : nameEnd + 8);  // v1: no fingerprint
  put(head, 8, version, 4);
  put(head, 12, head.size() + 8, 4);
  put(head, 44, old.size(), 8);
  put(head, 52, packed.size(), 8);
  put(head, 60, XXH64(old.data(), old.size(), 0), 8);
  put(head, 68, XXH64(packed.data(), packed.size(), 0), 8);
  const uint64_t checksum = XXH64(head.data(), head.size(), 0);
  head.append(8, '\0');
  put(head, head.size() - 8, checksum, 8);
  return head + packed;
}

// Reading `path` must throw a ReplayError whose message names the file.
::testing::AssertionResult refused(const std::string& path, const ChunkInfo& info,
                                   ReplayError::Kind* kind = nullptr) {
  try {
    readReplayChunk(path, info);
  } catch (const ReplayError& e) {
    if (kind) *kind = e.kind();
    if (std::string(e.what()).find(path) == std::string::npos) {
      return ::testing::AssertionFailure() << "message does not name the file: " << e.what();
    }
    if (e.path() != path) return ::testing::AssertionFailure() << "path() is " << e.path();
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not a ReplayError: " << e.what();
  }
  return ::testing::AssertionFailure() << "accepted";
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::temp_directory_path() /
            ("poppy_test_replay_" + std::to_string(::getpid()) + "_" + test->test_suite_name() +
             "_" + test->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // A new file holding `bytes`. (Rewriting one file over and over is slow on ext4, which flushes
  // a file truncated and rewritten on close.)
  std::string freshFile(const std::string& bytes) {
    const std::string p = path("case-" + std::to_string(++cases_) + ".rpl");
    writeBytes(p, bytes);
    return p;
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir_;
  int cases_ = 0;
};

}  // namespace

// --- samples ---------------------------------------------------------------------------------

TEST(Sample, QuantizeIsExactForEncoderValues) {
  std::vector<float> values;
  for (int count = 0; count <= 40; ++count) values.push_back(count / 8.0f);  // hands
  for (int reps = 0; reps <= 3; ++reps) values.push_back(reps / 3.0f);      // repetitions
  values.push_back(0.0f);
  values.push_back(1.0f);
  values.push_back(8.0f);
  const std::vector<uint8_t> q = quantizePlanes(values.data(), values.size());
  std::vector<float> back(values.size());
  dequantizePlanes(q.data(), q.size(), back.data());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::memcmp(&back[i], &values[i], sizeof(float)), 0) << values[i];
  }
  EXPECT_EQ(q[values.size() - 1], 192);
}

TEST(Sample, QuantizeRefusesValuesOffTheGrid) {
  for (float bad : {0.5f / 24.0f, -1.0f / 24.0f, 11.0f, std::nanf(""), 0.3f}) {
    EXPECT_THROW(quantizePlanes(&bad, 1), std::invalid_argument) << bad;
  }
}

TEST(Sample, SparsePolicyNormalizesAndChecks) {
  const int idx[] = {5, 9, 2};
  const float visits[] = {3, 0, 1};
  const auto p = sparsePolicy(idx, visits, 3, 10);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].first, 5);
  EXPECT_FLOAT_EQ(p[0].second, 0.75f);
  EXPECT_FLOAT_EQ(p[1].second, 0.25f);
  const int out[] = {10};
  const float one[] = {1};
  EXPECT_THROW(sparsePolicy(out, one, 1, 10), std::invalid_argument);
  const int dup[] = {1, 1};
  const float two[] = {1, 1};
  EXPECT_THROW(sparsePolicy(dup, two, 2, 10), std::invalid_argument);
  const float zero[] = {0};
  EXPECT_THROW(sparsePolicy(idx, zero, 1, 10), std::invalid_argument);
}

TEST(Sample, DenseTargets) {
  Sample s;
  s.planes = {0, 24, 3, 8};
  s.policy = {{1, 0.25f}, {3, 0.75f}};
  float planes[4], policy[5], wdl[3];
  writeDensePlanes(s, planes);
  EXPECT_EQ(planes[1], 1.0f);
  EXPECT_EQ(planes[2], 1.0f / 8.0f);
  EXPECT_EQ(planes[3], 1.0f / 3.0f);
  writeDensePolicy(s, 5, policy);
  EXPECT_EQ(policy[0], 0.0f);
  EXPECT_EQ(policy[1], 0.25f);
  EXPECT_EQ(policy[3], 0.75f);
  writeWdlTarget(1, wdl);
  EXPECT_EQ(std::vector<float>(wdl, wdl + 3), (std::vector<float>{1, 0, 0}));
  writeWdlTarget(0, wdl);
  EXPECT_EQ(std::vector<float>(wdl, wdl + 3), (std::vector<float>{0, 1, 0}));
  writeWdlTarget(-1, wdl);
  EXPECT_EQ(std::vector<float>(wdl, wdl + 3), (std::vector<float>{0, 0, 1}));
}

// One sample written as row 1 of a two-row batch: row 0 of every buffer is left as it was, row 1
// holds the planes, the policy and the value target at their row offsets.
TEST(Sample, DenseRowWritesOneRowOfABatch) {
  Sample s;
  s.planes = {24, 0, 12};
  s.policy = {{2, 1.0f}};
  s.result = 1;  // four players: the winner is one place clockwise from the mover
  std::vector<float> planes(6, -1.0f), policy(8, -1.0f), value(10, -1.0f);
  writeDenseRow(s, 3, 4, 5, 1, planes.data(), policy.data(), value.data());
  EXPECT_EQ(planes, (std::vector<float>{-1, -1, -1, 1, 0, 0.5f}));
  EXPECT_EQ(policy, (std::vector<float>{-1, -1, -1, -1, 0, 0, 1, 0}));
  EXPECT_EQ(value, (std::vector<float>{-1, -1, -1, -1, -1, 0, 1, 0, 0, 0}));
  // A sample from an encoder with another input size is refused, not read past its end.
  EXPECT_THROW(writeDenseRow(s, 4, 4, 5, 0, planes.data(), policy.data(), value.data()), std::invalid_argument);
}

// Four players (value size 5): one-hot of the winner's place clockwise from the mover, or of
// the draw, the last.
TEST(Sample, FourPlayerValueTargets) {
  float v[5];
  writeValueTarget(2, 5, v);
  EXPECT_EQ(std::vector<float>(v, v + 5), (std::vector<float>{0, 0, 1, 0, 0}));
  writeValueTarget(0, 5, v);
  EXPECT_EQ(std::vector<float>(v, v + 5), (std::vector<float>{1, 0, 0, 0, 0}));
  writeValueTarget(-1, 5, v);
  EXPECT_EQ(std::vector<float>(v, v + 5), (std::vector<float>{0, 0, 0, 0, 1}));
  writeValueTarget(-1, 3, v);  // two players: the WDL target, a loss
  EXPECT_EQ(std::vector<float>(v, v + 3), (std::vector<float>{0, 0, 1}));
}

TEST(Sample, RootValueMixesIntoTheValueTarget) {
  // A won game whose search thought -0.5 at this position, weight 1/4 (by hand):
  // win 0.75 * 1 + 0.25 * (1 - 0.5) / 2 = 0.8125, draw 0, loss 0.25 * (1 + 0.5) / 2 = 0.1875.
  float wdl[3];
  writeWdlTarget(1, wdl);
  mixRootValue(wdl, -0.5f, 0.25f);
  EXPECT_FLOAT_EQ(wdl[0], 0.8125f);
  EXPECT_FLOAT_EQ(wdl[1], 0.0f);
  EXPECT_FLOAT_EQ(wdl[2], 0.1875f);
  // A draw keeps (1 - w) of its draw share; weight 0 changes nothing; weight 1 is the root value.
  writeWdlTarget(0, wdl);
  mixRootValue(wdl, 0.5f, 0.5f);
  EXPECT_FLOAT_EQ(wdl[0], 0.375f);
  EXPECT_FLOAT_EQ(wdl[1], 0.5f);
  EXPECT_FLOAT_EQ(wdl[2], 0.125f);
  writeWdlTarget(-1, wdl);
  mixRootValue(wdl, 0.9f, 0.0f);
  EXPECT_EQ(std::vector<float>(wdl, wdl + 3), (std::vector<float>{0, 0, 1}));
  mixRootValue(wdl, 0.2f, 1.0f);
  EXPECT_FLOAT_EQ(wdl[0], 0.6f);
  EXPECT_FLOAT_EQ(wdl[2], 0.4f);
}

// --- replay chunks ---------------------------------------------------------------------------

using ReplayFile = TempDir;

TEST_F(ReplayFile, RoundTripIsExact) {
  const ChunkInfo info = microInfo();
  const std::vector<Sample> samples = makeSamples(info, 200, 1);
  const std::string p = path(chunkFileName(0));
  writeReplayChunk(p, info, samples);
  EXPECT_EQ(readReplayChunk(p, info), samples);
  const ChunkHeader h = readReplayChunkHeader(p);
  EXPECT_EQ(h.info, info);
  EXPECT_EQ(h.samples, 200u);
  // Level 3 zstd on encoder-like planes: far smaller than the raw bytes.
  EXPECT_LT(fs::file_size(p), h.uncompressedSize / 2);
}

// A chunk as bytes (what distributed self-play sends): the same bytes as the file, decoded with
// the same checks; a flipped byte, a cut or another variant is refused naming the given name.
TEST_F(ReplayFile, BytesInMemoryAreTheFilesBytesAndAreChecked) {
  const ChunkInfo info = microInfo();
  const std::vector<Sample> samples = makeSamples(info, 30, 2);
  const std::vector<uint8_t> bytes = encodeReplayChunk("game from rank 2", info, samples);
  const std::string p = path(chunkFileName(0));
  writeReplayChunk(p, info, samples);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), readBytes(p));
  EXPECT_EQ(decodeReplayChunk("game from rank 2", bytes.data(), bytes.size(), info), samples);
  writeReplayChunkBytes(path("copy.rpl"), bytes);
  EXPECT_EQ(readReplayChunk(path("copy.rpl"), info), samples);
  auto refusal = [&](const std::vector<uint8_t>& b, const ChunkInfo& want) {
    try {
      decodeReplayChunk("game from rank 2", b.data(), b.size(), want);
    } catch (const ReplayError& e) {
      EXPECT_NE(std::string(e.what()).find("game from rank 2"), std::string::npos) << e.what();
      return e.kind();
    }
    ADD_FAILURE() << "accepted";
    return ReplayError::Kind::kIo;
  };
  std::vector<uint8_t> flipped = bytes;
  flipped[bytes.size() - 3] ^= 0x10;
  EXPECT_EQ(refusal(flipped, info), ReplayError::Kind::kChecksum);
  EXPECT_EQ(refusal(std::vector<uint8_t>(bytes.begin(), bytes.end() - 1), info), ReplayError::Kind::kTruncated);
  ChunkInfo other = info;
  other.variant = "minishogi";
  EXPECT_EQ(refusal(bytes, other), ReplayError::Kind::kMismatch);
}

// Version 4 takes 16-bit policy indices for small policies and 32-bit ones for a policy of more
// than 65,536 entries (a large board, mitsugumi-sized), which reads back exactly, indices above
// 65,535 included. The payload's size tells the width: per sample its planes, 1 + 4 + 2 + 1 + 4
// bytes (result, root value, plies left, reply flag, entry count), and per entry an index and a
// 4-byte probability (replay_file.h's layout).
TEST_F(ReplayFile, LargePoliciesTakeWideIndicesAndRoundTrip) {
  const ChunkInfo small = microInfo();
  const std::vector<Sample> few = makeSamples(small, 3, 5);
  writeReplayChunk(path("small.rpl"), small, few);
  const ChunkHeader smallHeader = readReplayChunkHeader(path("small.rpl"));
  EXPECT_EQ(smallHeader.version, 4u);
  EXPECT_EQ(readBytes(path("small.rpl"))[8], 4);
  size_t fewEntries = 0;
  for (const Sample& s : few) fewEntries += s.policy.size();
  EXPECT_EQ(smallHeader.uncompressedSize, 3 * (size_t(small.inputSize()) + 12) + fewEntries * (2 + 4));

  ChunkInfo large = microInfo();
  large.variant = "large";
  large.height = large.width = 13;
  large.policySize = 400 * 169;  // 67,600 entries
  std::vector<Sample> samples = makeSamples(large, 20, 9);
  samples[0].policy = {{uint32_t(large.policySize - 1), 0.75f}, {66000u, 0.25f}};
  writeReplayChunk(path("large.rpl"), large, samples);
  const ChunkHeader h = readReplayChunkHeader(path("large.rpl"));
  EXPECT_EQ(h.version, 4u);
  EXPECT_EQ(h.info, large);
  size_t entries = 0;
  for (const Sample& s : samples) entries += s.policy.size();
  EXPECT_EQ(h.uncompressedSize, 20 * (size_t(large.inputSize()) + 12) + entries * (4 + 4));
  EXPECT_EQ(readReplayChunk(path("large.rpl"), large), samples);
}

// Chunks of versions 2 and 3 (older builds: no plies left, no reply flags) are still read, their
// samples the same but for those two fields, 0 and false.
TEST_F(ReplayFile, OlderVersionsAreReadWithoutTheGamePlacement) {
  ChunkInfo large = microInfo();
  large.variant = "large";
  large.height = large.width = 13;
  large.policySize = 400 * 169;
  for (const auto& [info, version] : {std::pair{microInfo(), 2u}, std::pair{microInfo(), 3u}, std::pair{large, 3u}}) {
    SCOPED_TRACE(info.variant + " version " + std::to_string(version));
    std::vector<Sample> samples = makeSamples(info, 7, 31);
    writeReplayChunk(path("new.rpl"), info, samples);
    const std::string p = freshFile(olderVersion(readBytes(path("new.rpl")), version));
    EXPECT_EQ(readReplayChunkHeader(p).version, version);
    for (Sample& s : samples) {
      s.pliesLeft = 0;
      s.replyFollows = false;
    }
    EXPECT_EQ(readReplayChunk(p, info), samples);
  }
}

// Plies left and reply flags round-trip; the writer refuses a reply flag that cannot be true (on
// the last sample, or when the next sample is not one ply nearer the end), naming the sample.
TEST_F(ReplayFile, GamePlacementRoundTripsAndAReplyFlagIsChecked) {
  const ChunkInfo info = microInfo();
  std::vector<Sample> samples = makeSamples(info, 9, 17);
  samples[3].pliesLeft = 65535;  // the largest count the column holds: no reply on either side
  samples[2].replyFollows = samples[3].replyFollows = false;
  writeReplayChunk(path("placed.rpl"), info, samples);
  const std::vector<Sample> back = readReplayChunk(path("placed.rpl"), info);
  ASSERT_EQ(back.size(), samples.size());
  EXPECT_EQ(back[3].pliesLeft, 65535);
  EXPECT_TRUE(back[0].replyFollows);
  EXPECT_FALSE(back[2].replyFollows);
  EXPECT_FALSE(back[8].replyFollows);
  EXPECT_EQ(back, samples);

  std::vector<Sample> last = makeSamples(info, 3, 18);
  last[2].replyFollows = true;
  std::vector<Sample> gap = makeSamples(info, 3, 19);
  gap[1].pliesLeft = 5;  // sample 0 has 3 plies left and a reply flag
  for (const auto& [bad, what] : {std::pair{last, std::string("sample 2: a reply flag on the last sample")},
                                  std::pair{gap, std::string("sample 0: a reply flag, but 3 plies left and 5")}}) {
    try {
      writeReplayChunk(path("bad.rpl"), info, bad);
      ADD_FAILURE() << what << ": written";
    } catch (const ReplayError& e) {
      EXPECT_EQ(e.kind(), ReplayError::Kind::kInvalidInput);
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(path("bad.rpl")));
}

// A four-player chunk's results are winners' places (0-3) or -1: they round-trip, and a place
// beyond the players is refused; the same result 3 is no two-player result.
TEST_F(ReplayFile, FourPlayerResultsRoundTrip) {
  ChunkInfo four = microInfo();
  four.variant = "four";
  four.valueSize = 5;
  std::vector<Sample> samples = makeSamples(four, 8, 6);
  for (size_t i = 0; i < samples.size(); ++i) samples[i].result = int8_t(int(i % 5) - 1);
  writeReplayChunk(path("four.rpl"), four, samples);
  EXPECT_EQ(readReplayChunk(path("four.rpl"), four), samples);
  samples[0].result = 4;
  EXPECT_THROW(writeReplayChunk(path("bad.rpl"), four, samples), ReplayError);
  samples[0].result = 3;
  ChunkInfo two = four;
  two.valueSize = 3;
  EXPECT_THROW(writeReplayChunk(path("bad.rpl"), two, samples), ReplayError);
  // Read as a two-player chunk, the same file's results are malformed.
  EXPECT_THROW(readReplayChunk(path("four.rpl"), two), ReplayError);
}

TEST_F(ReplayFile, EmptyChunkRoundTrips) {
  const ChunkInfo info = microInfo();
  writeReplayChunk(path("e.rpl"), info, {});
  EXPECT_TRUE(readReplayChunk(path("e.rpl"), info).empty());
}

TEST_F(ReplayFile, AtomicWriteLeavesNoTmp) {
  const ChunkInfo info = microInfo();
  const std::string name = chunkFileName(7);
  writeReplayChunk(path(name), info, makeSamples(info, 10, 2));
  EXPECT_EQ(files(), std::vector<std::string>{name});
  // Replacing an existing chunk: still one file, holding the new contents.
  const std::vector<Sample> second = makeSamples(info, 5, 3);
  writeReplayChunk(path(name), info, second);
  EXPECT_EQ(files(), std::vector<std::string>{name});
  EXPECT_EQ(readReplayChunk(path(name), info), second);
}

TEST_F(ReplayFile, InvalidSamplesAreRefusedBeforeWriting) {
  const ChunkInfo info = microInfo();
  std::vector<Sample> bad = makeSamples(info, 3, 4);
  bad[1].planes.pop_back();
  EXPECT_THROW(writeReplayChunk(path("a.rpl"), info, bad), ReplayError);
  bad = makeSamples(info, 3, 4);
  bad[2].policy[0].first = uint32_t(info.policySize);
  EXPECT_THROW(writeReplayChunk(path("a.rpl"), info, bad), ReplayError);
  bad = makeSamples(info, 3, 4);
  bad[0].policy[0].second += 0.5f;  // no longer sums to 1
  EXPECT_THROW(writeReplayChunk(path("a.rpl"), info, bad), ReplayError);
  bad = makeSamples(info, 3, 4);
  bad[0].result = 2;
  EXPECT_THROW(writeReplayChunk(path("a.rpl"), info, bad), ReplayError);
  ChunkInfo huge = info;
  huge.policySize = (1 << 24) + 1;  // beyond the format's bound
  EXPECT_THROW(writeReplayChunk(path("a.rpl"), huge, {}), ReplayError);
  EXPECT_TRUE(files().empty());
}

TEST_F(ReplayFile, MissingFileIsAnIoError) {
  ReplayError::Kind kind{};
  EXPECT_TRUE(refused(path("nothing.rpl"), microInfo(), &kind));
  EXPECT_EQ(kind, ReplayError::Kind::kIo);
}

TEST_F(ReplayFile, EveryTruncationIsRefused) {
  const ChunkInfo info = microInfo();
  const std::string good = path("good.rpl");
  writeReplayChunk(good, info, makeSamples(info, 50, 5));
  const std::string bytes = readBytes(good);
  const size_t header = readReplayChunkHeader(good).headerSize;
  std::vector<size_t> lengths = {0, 1, 7, 8, 11, 12, 40, 77, 78, header - 1, header,
                                 header + 1, header + 10, bytes.size() / 2, bytes.size() - 1};
  for (size_t length : lengths) {
    const std::string p = path("cut-" + std::to_string(length) + ".rpl");
    writeBytes(p, bytes.substr(0, length));
    ReplayError::Kind kind{};
    EXPECT_TRUE(refused(p, info, &kind)) << "length " << length;
    if (length == 0) {
      EXPECT_EQ(kind, ReplayError::Kind::kNotReplayFile);
    }
    if (length >= header) {
      EXPECT_EQ(kind, ReplayError::Kind::kTruncated) << length;
    }
  }
  // And bytes after the end.
  writeBytes(path("long.rpl"), bytes + "x");
  EXPECT_TRUE(refused(path("long.rpl"), info));
}

TEST_F(ReplayFile, EveryFlippedPayloadByteIsRefused) {
  const ChunkInfo info = microInfo();
  const std::string good = path("good.rpl");
  writeReplayChunk(good, info, makeSamples(info, 20, 6));
  const std::string bytes = readBytes(good);
  const size_t header = readReplayChunkHeader(good).headerSize;
  for (size_t i = header; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = char(bad[i] ^ 0x40);
    const std::string p = freshFile(bad);
    ReplayError::Kind kind{};
    ASSERT_TRUE(refused(p, info, &kind)) << "byte " << i;
    EXPECT_TRUE(kind == ReplayError::Kind::kChecksum || kind == ReplayError::Kind::kDecompress)
        << "byte " << i;
  }
}

// A corrupt payload whose checksums were recomputed (as a buggy or hostile writer would): zstd
// and the checksum of the uncompressed payload must still refuse it, without crashing. (A few
// flips land in padding bits zstd ignores; those decode to the original samples.)
TEST_F(ReplayFile, CorruptPayloadBehindValidChecksumsIsRefused) {
  const ChunkInfo info = microInfo();
  const std::string good = path("good.rpl");
  const std::vector<Sample> samples = makeSamples(info, 20, 6);
  writeReplayChunk(good, info, samples);
  const std::string bytes = readBytes(good);
  const size_t header = readReplayChunkHeader(good).headerSize;
  auto put64 = [](std::string& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + size_t(i)] = char(uint8_t(v >> (8 * i)));
  };
  std::mt19937 rng(12);
  int decompress = 0, checksum = 0, harmless = 0;
  for (size_t i = header; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = char(bad[i] ^ (1 << (rng() % 8)));
    put64(bad, 68, XXH64(bad.data() + header, bad.size() - header, 0));  // compressed checksum
    put64(bad, header - 8, XXH64(bad.data(), header - 8, 0));            // header checksum
    const std::string p = freshFile(bad);
    try {
      EXPECT_EQ(readReplayChunk(p, info), samples) << "byte " << i;
      ++harmless;
    } catch (const ReplayError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos);
      decompress += e.kind() == ReplayError::Kind::kDecompress;
      checksum += e.kind() == ReplayError::Kind::kChecksum;
      EXPECT_TRUE(e.kind() == ReplayError::Kind::kDecompress ||
                  e.kind() == ReplayError::Kind::kChecksum)
          << "byte " << i << ": " << e.what();
    }
  }
  EXPECT_GT(decompress, 0);
  EXPECT_GT(checksum, 0);
  EXPECT_LT(harmless, int(bytes.size() - header) / 10);
}

// Payloads with every size and checksum right but samples the writer refuses (as a buggy writer
// would leave them): the reader calls them malformed instead of handing them to the trainer.
// Found by fuzz/fuzz_replay_chunk: a policy summing to 0.8 was read without complaint.
TEST_F(ReplayFile, SamplesTheWriterRefusesAreMalformedWhenRead) {
  const ChunkInfo info = microInfo();
  const std::string good = path("good.rpl");
  writeReplayChunk(good, info, makeSamples(info, 1, 3));
  const std::string bytes = readBytes(good);
  const size_t header = readReplayChunkHeader(good).headerSize;
  std::string raw(size_t(readReplayChunkHeader(good).uncompressedSize), '\0');
  ASSERT_EQ(ZSTD_decompress(raw.data(), raw.size(), bytes.data() + header, bytes.size() - header), raw.size());
  // Layout (replay_file.h): planes, result, root value, plies left, reply flag, entry count,
  // indices, probabilities.
  const size_t resultAt = size_t(info.inputSize()), valueAt = resultAt + 1, flagAt = valueAt + 4 + 2,
               countAt = flagAt + 1;
  const size_t entries = size_t(uint8_t(raw[countAt])), firstProbAt = countAt + 4 + 2 * entries;
  auto withFloat = [](std::string r, size_t at, float f) {
    std::memcpy(&r[at], &f, 4);
    return r;
  };
  float first;
  std::memcpy(&first, &raw[firstProbAt], 4);
  auto rewrapped = [&](const std::string& payload) {
    std::string packed(ZSTD_compressBound(payload.size()), '\0');
    packed.resize(ZSTD_compress(packed.data(), packed.size(), payload.data(), payload.size(), 3));
    std::string file = bytes.substr(0, header) + packed;
    auto put64 = [&](size_t at, uint64_t v) {
      for (int i = 0; i < 8; ++i) file[at + size_t(i)] = char(uint8_t(v >> (8 * i)));
    };
    put64(52, packed.size());
    put64(60, XXH64(payload.data(), payload.size(), 0));
    put64(68, XXH64(packed.data(), packed.size(), 0));
    put64(header - 8, XXH64(file.data(), header - 8, 0));
    return freshFile(file);
  };
  ASSERT_EQ(readReplayChunk(rewrapped(raw), info).size(), 1u);  // the rewrapping itself is sound

  const std::map<std::string, std::string> cases = {
      {"policy sums to", withFloat(raw, firstProbAt, first + 0.2f)},
      {"policy probability", withFloat(raw, firstProbAt, -first)},
      {"root value", withFloat(raw, valueAt, NAN)},
      {"result", std::string(raw).replace(resultAt, 1, 1, char(2))},
      {"reply flag 2", std::string(raw).replace(flagAt, 1, 1, char(2))},
      {"a reply flag on the last sample", std::string(raw).replace(flagAt, 1, 1, char(1))},
  };
  for (const auto& [what, payload] : cases) {
    try {
      readReplayChunk(rewrapped(payload), info);
      ADD_FAILURE() << what << ": accepted";
    } catch (const ReplayError& e) {
      EXPECT_EQ(e.kind(), ReplayError::Kind::kMalformed) << e.what();
      EXPECT_NE(std::string(e.what()).find("malformed payload: sample 0: " + what), std::string::npos) << e.what();
    }
  }
}

TEST_F(ReplayFile, EveryFlippedHeaderByteIsRefused) {
  const ChunkInfo info = microInfo();
  const std::string good = path("good.rpl");
  writeReplayChunk(good, info, makeSamples(info, 20, 7));
  const std::string bytes = readBytes(good);
  const size_t header = readReplayChunkHeader(good).headerSize;
  for (size_t i = 0; i < header; ++i) {
    for (int bit : {0x01, 0x80}) {
      std::string bad = bytes;
      bad[i] = char(bad[i] ^ bit);
      const std::string p = freshFile(bad);
      EXPECT_TRUE(refused(p, info)) << "byte " << i << " bit " << bit;
    }
  }
}

TEST_F(ReplayFile, WrongMagicEmptyAndRandomBytesAreNotReplayFiles) {
  const ChunkInfo info = microInfo();
  const std::string good = path("good.rpl");
  writeReplayChunk(good, info, makeSamples(info, 5, 8));
  std::string bytes = readBytes(good);
  bytes[7] = 'X';
  writeBytes(path("magic.rpl"), bytes);
  writeBytes(path("empty.rpl"), "");
  std::mt19937 rng(9);
  std::string noise(5000, '\0');
  for (char& c : noise) c = char(rng());
  writeBytes(path("noise.rpl"), noise);
  for (const char* name : {"magic.rpl", "empty.rpl", "noise.rpl"}) {
    ReplayError::Kind kind{};
    EXPECT_TRUE(refused(path(name), info, &kind)) << name;
    EXPECT_EQ(kind, ReplayError::Kind::kNotReplayFile) << name;
  }
  // Random bytes behind a valid magic, and behind a valid magic and version.
  for (const std::string& prefix : {std::string("POPPYRPL"), std::string("POPPYRPL\x01\0\0\0", 12)}) {
    for (size_t length : {size_t(10), size_t(80), size_t(5000)}) {
      writeBytes(path("noise2.rpl"), prefix + noise.substr(0, length));
      EXPECT_TRUE(refused(path("noise2.rpl"), info)) << length;
    }
  }
}

TEST_F(ReplayFile, FutureVersionIsUnsupported) {
  const ChunkInfo info = microInfo();
  writeReplayChunk(path("v.rpl"), info, makeSamples(info, 2, 10));
  std::string bytes = readBytes(path("v.rpl"));
  bytes[8] = 5;
  writeBytes(path("v.rpl"), bytes);
  ReplayError::Kind kind{};
  EXPECT_TRUE(refused(path("v.rpl"), info, &kind));
  EXPECT_EQ(kind, ReplayError::Kind::kVersion);
  try {
    readReplayChunk(path("v.rpl"), info);
  } catch (const ReplayError& e) {
    EXPECT_NE(std::string(e.what()).find("version 5"), std::string::npos) << e.what();
  }
}

// Version 1 chunks (written before rules fingerprints) are still read, as "rules not recorded",
// which no expected fingerprint refuses. The file is made by hand (olderVersion): the
// fingerprint's 8 bytes cut out of the header, version, header size and checksum rewritten.
TEST_F(ReplayFile, VersionOneChunkWithoutFingerprintIsStillRead) {
  const ChunkInfo info = microInfo();
  const std::vector<Sample> samples = makeSamples(info, 4, 12);
  writeReplayChunk(path("v4.rpl"), info, samples);
  const std::string v1 = olderVersion(readBytes(path("v4.rpl")), 1);
  writeBytes(path("v1.rpl"), v1);
  const ChunkHeader h = readReplayChunkHeader(path("v1.rpl"));
  EXPECT_EQ(h.info.rules, 0u);
  EXPECT_EQ(h.info.variant, "micro");
  const std::vector<Sample> back = readReplayChunk(path("v1.rpl"), info);
  ASSERT_EQ(back.size(), samples.size());
  EXPECT_EQ(back[3].rootValue, samples[3].rootValue);
}

TEST_F(ReplayFile, OtherVariantEncoderOrShapeIsAMismatch) {
  const ChunkInfo info = microInfo();
  std::vector<std::pair<std::string, std::function<void(ChunkInfo&)>>> changes = {
      {"tori", [](ChunkInfo& i) { i.variant = "tori"; }},
      {"other rules", [](ChunkInfo& i) { i.rules = 0xfedcba9876543210ULL; }},
      {"encoder version 2", [](ChunkInfo& i) { i.encoderVersion = 2; }},
      {"34x5x4", [](ChunkInfo& i) { i.planes = 34; }},
      {"33x5x5", [](ChunkInfo& i) { i.width = 5; }},
      {"policy size 1", [](ChunkInfo& i) { i.policySize = 1000; }},
  };
  for (auto& [word, change] : changes) {
    ChunkInfo other = info;
    change(other);
    const std::string p = path("other.rpl");
    writeReplayChunk(p, other, makeSamples(other, 3, 11));
    ReplayError::Kind kind{};
    EXPECT_TRUE(refused(p, info, &kind)) << word;
    EXPECT_EQ(kind, ReplayError::Kind::kMismatch) << word;
    try {
      readReplayChunk(p, info);
    } catch (const ReplayError& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  }
}

// --- replay window ---------------------------------------------------------------------------

using Window = TempDir;

TEST(ChunkNames, FormatParseAndNext) {
  EXPECT_EQ(chunkFileName(123), "chunk-000000123.rpl");
  EXPECT_EQ(parseChunkFileName("chunk-000000123.rpl"), 123u);
  EXPECT_EQ(parseChunkFileName("chunk-1234567890.rpl"), 1234567890u);  // past the padding
  EXPECT_FALSE(parseChunkFileName("chunk-000000123.rpl.tmp"));
  EXPECT_FALSE(parseChunkFileName("chunk-00000012x.rpl"));
  EXPECT_FALSE(parseChunkFileName("chunk-1.rpl"));
  EXPECT_FALSE(parseChunkFileName("games.jsonl"));
  EXPECT_EQ(nextChunkSequence("/nonexistent/poppy/dir"), 0u);
}

// Writes chunks 0..count-1 of `each` samples; sample j of chunk c has rootValue 1000c + j + 0.25.
void writeChunks(const std::string& dir, const ChunkInfo& info, int from, int count, int each) {
  for (int c = from; c < from + count; ++c) {
    writeReplayChunk(dir + "/" + chunkFileName(uint64_t(c)), info,
                     makeSamples(info, each, uint32_t(100 + c), 1000.0f * float(c)));
  }
}

TEST_F(Window, SkipsACorruptChunkAndKeepsTheGoodOnes) {
  const ChunkInfo info = microInfo();
  writeChunks(dir_, info, 0, 5, 10);
  EXPECT_EQ(nextChunkSequence(dir_), 5u);
  const std::string bad = path(chunkFileName(2));
  std::string bytes = readBytes(bad);
  bytes[bytes.size() - 5] ^= 0x10;
  writeBytes(bad, bytes);
  ChunkInfo other = info;
  other.variant = "tori";
  writeReplayChunk(path(chunkFileName(3)) , other, makeSamples(other, 10, 1));
  writeBytes(path(chunkFileName(9) + ".tmp"), "half-written");  // ignored: not a chunk name
  writeBytes(path("notes.txt"), "hello");

  ::testing::internal::CaptureStderr();
  ReplayWindow window(dir_, info, 1000);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(bad), std::string::npos) << err;
  EXPECT_NE(err.find(path(chunkFileName(3))), std::string::npos) << err;
  EXPECT_EQ(window.size(), 30u);
  EXPECT_EQ(window.chunkSequences(), (std::vector<uint64_t>{0, 1, 4}));
  EXPECT_EQ(window.skipped().size(), 2u);
  for (size_t i = 0; i < window.size(); ++i) {
    const int chunk = int(window.at(i).rootValue / 1000.0f);
    EXPECT_TRUE(chunk == 0 || chunk == 1 || chunk == 4) << chunk;
  }
  // A refresh does not read (or warn about) the bad chunks again.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(window.refresh(), 0u);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(Window, RespectsCapacityAndTakesTheNewest) {
  const ChunkInfo info = microInfo();
  writeChunks(dir_, info, 0, 5, 10);
  ReplayWindow window(dir_, info, 25);
  EXPECT_EQ(window.size(), 25u);
  EXPECT_EQ(window.chunkSequences(), (std::vector<uint64_t>{2, 3, 4}));
  // Oldest kept: chunk 2's sample 5 (its first five fell out); newest: chunk 4's sample 9.
  EXPECT_EQ(window.at(0).rootValue, 2000.0f + 5.25f);
  EXPECT_EQ(window.at(24).rootValue, 4000.0f + 9.25f);

  // New chunks come in, the oldest samples go.
  writeChunks(dir_, info, 5, 1, 10);
  EXPECT_EQ(window.refresh(), 10u);
  EXPECT_EQ(window.size(), 25u);
  EXPECT_EQ(window.chunkSequences(), (std::vector<uint64_t>{3, 4, 5}));
  EXPECT_EQ(window.at(0).rootValue, 3000.0f + 5.25f);
  EXPECT_EQ(window.at(24).rootValue, 5000.0f + 9.25f);
  EXPECT_EQ(window.refresh(), 0u);

  // A chunk bigger than the whole window: only its newest samples.
  writeChunks(dir_, info, 6, 1, 40);
  EXPECT_EQ(window.refresh(), 25u);
  EXPECT_EQ(window.chunkSequences(), (std::vector<uint64_t>{6}));
  EXPECT_EQ(window.at(0).rootValue, 6000.0f + 15.25f);

  // A corrupt new chunk is skipped on refresh and the window is unchanged.
  writeBytes(path(chunkFileName(7)), "garbage");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(window.refresh(), 0u);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(chunkFileName(7)), std::string::npos);
  EXPECT_EQ(window.size(), 25u);
}

TEST_F(Window, GrowsUntilCapacity) {
  const ChunkInfo info = microInfo();
  ReplayWindow window(dir_, info, 100);
  EXPECT_EQ(window.size(), 0u);
  std::mt19937 rng(1);
  std::vector<float> planes(size_t(info.inputSize())), policy(size_t(info.policySize)), wdl(3);
  EXPECT_THROW(window.sampleBatch(1, rng, planes.data(), policy.data(), wdl.data()),
               std::logic_error);
  writeChunks(dir_, info, 0, 3, 20);
  EXPECT_EQ(window.refresh(), 60u);
  EXPECT_EQ(window.size(), 60u);
  writeChunks(dir_, info, 3, 3, 20);
  EXPECT_EQ(window.refresh(), 60u);
  EXPECT_EQ(window.size(), 100u);
  EXPECT_EQ(window.chunkSequences(), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
}

TEST_F(Window, MissingDirectoryIsEmpty) {
  ReplayWindow window(path("absent"), microInfo(), 10);
  EXPECT_EQ(window.size(), 0u);
  EXPECT_EQ(window.refresh(), 0u);
}

TEST_F(Window, SampleBatchFillsValidDistributions) {
  const ChunkInfo info = microInfo();
  writeChunks(dir_, info, 0, 4, 30);
  ReplayWindow window(dir_, info, 1000);
  const int batch = 64;
  const size_t in = size_t(info.inputSize()), ps = size_t(info.policySize);
  std::vector<float> planes(batch * in, -1.0f), policy(batch * ps, -1.0f), wdl(batch * 3, -1.0f),
      values(batch, -1.0f);
  std::mt19937 rng(42);
  window.sampleBatch(batch, rng, planes.data(), policy.data(), wdl.data(), values.data());

  // Index the window by rootValue to find each drawn sample.
  std::map<float, const Sample*> byValue;
  for (size_t i = 0; i < window.size(); ++i) byValue[window.at(i).rootValue] = &window.at(i);
  std::set<float> distinct;
  for (int b = 0; b < batch; ++b) {
    ASSERT_TRUE(byValue.count(values[size_t(b)])) << values[size_t(b)];
    const Sample& s = *byValue[values[size_t(b)]];
    distinct.insert(s.rootValue);
    std::vector<float> expect(in);
    writeDensePlanes(s, expect.data());
    EXPECT_TRUE(std::equal(expect.begin(), expect.end(), planes.begin() + long(b * in)));
    double sum = 0.0;
    for (size_t k = 0; k < ps; ++k) {
      const float p = policy[b * ps + k];
      ASSERT_GE(p, 0.0f);
      sum += p;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
    for (const auto& [index, p] : s.policy) EXPECT_EQ(policy[b * ps + index], p);
    const float* w = &wdl[size_t(b) * 3];
    EXPECT_EQ(w[0] + w[1] + w[2], 1.0f);
    EXPECT_EQ(w[0], s.result == 1 ? 1.0f : 0.0f);
    EXPECT_EQ(w[1], s.result == 0 ? 1.0f : 0.0f);
    EXPECT_EQ(w[2], s.result == -1 ? 1.0f : 0.0f);
  }
  EXPECT_GT(distinct.size(), 40u);  // uniform over 120 samples, not stuck on a few

  // The same seed draws the same batch.
  std::vector<float> planes2(batch * in), policy2(batch * ps), wdl2(batch * 3);
  std::mt19937 rng2(42);
  window.sampleBatch(batch, rng2, planes2.data(), policy2.data(), wdl2.data());
  EXPECT_EQ(planes, planes2);
  EXPECT_EQ(policy, policy2);
  EXPECT_EQ(wdl, wdl2);
}

// The auxiliary targets come with the samples sampleBatch draws (the same draws as without
// them): a row's reply policy is the dense policy of the chunk's next sample where the drawn one
// has a reply flag, zero (and hasReply 0) where it has none; plies left are the sample's. A
// window whose capacity cut its oldest chunk still finds every kept sample's reply.
TEST_F(Window, SampleBatchGivesTheAuxiliaryTargets) {
  const ChunkInfo info = microInfo();
  writeChunks(dir_, info, 0, 3, 30);
  ReplayWindow window(dir_, info, 75);  // the oldest chunk keeps its newest 15 samples
  ASSERT_EQ(window.size(), 75u);
  const int batch = 200;
  const size_t in = size_t(info.inputSize()), ps = size_t(info.policySize);
  std::vector<float> planes(batch * in), policy(batch * ps), wdl(batch * 3), values(batch);
  std::vector<float> reply(batch * ps, -1.0f), hasReply(batch, -1.0f), pliesLeft(batch, -1.0f);
  const AuxiliaryTargets aux{reply.data(), hasReply.data(), pliesLeft.data()};
  std::mt19937 rng(5);
  window.sampleBatch(batch, rng, planes.data(), policy.data(), wdl.data(), values.data(), &aux);

  // makeSamples: chunk c's sample i has root value 1000 c + i + 0.25, 30 - i plies left, and a
  // reply flag unless i is 29 or i % 5 is 4.
  std::vector<std::vector<Sample>> written;
  for (int c = 0; c < 3; ++c) written.push_back(makeSamples(info, 30, uint32_t(100 + c), 1000.0f * float(c)));
  int replies = 0, none = 0;
  for (int b = 0; b < batch; ++b) {
    const int c = int(values[size_t(b)] / 1000.0f), i = int(values[size_t(b)] - 1000.0f * float(c));
    ASSERT_TRUE(c >= 0 && c < 3 && i >= 0 && i < 30) << values[size_t(b)];
    EXPECT_EQ(pliesLeft[size_t(b)], float(30 - i));
    const bool expectReply = i != 29 && i % 5 != 4;
    EXPECT_EQ(hasReply[size_t(b)], expectReply ? 1.0f : 0.0f) << c << " " << i;
    std::vector<float> want(ps, 0.0f);
    if (expectReply) writeDensePolicy(written[size_t(c)][size_t(i + 1)], int(ps), want.data());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), reply.begin() + long(size_t(b) * ps))) << c << " " << i;
    (expectReply ? replies : none)++;
  }
  EXPECT_GT(replies, 100);
  EXPECT_GT(none, 10);

  // The same draws without the auxiliary targets.
  std::vector<float> values2(batch);
  std::mt19937 rng2(5);
  window.sampleBatch(batch, rng2, planes.data(), policy.data(), wdl.data(), values2.data());
  EXPECT_EQ(values, values2);
}

// --- game records ----------------------------------------------------------------------------

using GameRecords = TempDir;

namespace {
GameRecord record(int i) {
  GameRecord r;
  r.id = "g" + std::to_string(i);
  r.variant = "micro";
  r.start = "sgbrk/4p/5/P4/KRBGS b - 1";
  r.moves = {"1d1c", "5b5c", "2d2c+"};
  r.result = i % 3 == 0 ? "sente" : i % 3 == 1 ? "gote" : "draw";
  r.reason = i % 2 ? "checkmate" : "ply_cap";
  r.plies = 3;
  r.model = "models/micro/best.pt";
  return r;
}
}  // namespace

TEST_F(GameRecords, RoundTrip) {
  const std::string p = path("games.jsonl");
  std::vector<GameRecord> all = {record(0), record(1), record(2)};
  all[1].model = "odd \"name\"\nwith a newline and ünïcode";
  all[2].moves.clear();
  all[2].plies = 0;
  appendGameRecords(p, all);
  appendGameRecords(p, {record(3), record(4)});
  all.push_back(record(3));
  all.push_back(record(4));
  const GameRecordFile file = readGameRecordFile(p);
  EXPECT_EQ(file.records, all);
  EXPECT_TRUE(file.errors.empty());
  EXPECT_FALSE(file.truncatedTail);
  const std::string text = readBytes(p);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_EQ(text.rfind("{\"id\":\"g0\",\"variant\":\"micro\",\"start\":", 0), 0u) << text;
  EXPECT_EQ(readGameRecords(p), all);
}

TEST_F(GameRecords, PlayedGamesMayBeResignedOrUnfinished) {
  // `poppy play` records a resignation (the winner as result) and a game left unfinished.
  const std::string p = path("games.jsonl");
  GameRecord resigned = record(0);
  resigned.result = "gote";
  resigned.reason = "resign";
  GameRecord unfinished = record(1);
  unfinished.result = "draw";
  unfinished.reason = "unfinished";
  appendGameRecords(p, {resigned, unfinished});
  const GameRecordFile file = readGameRecordFile(p);
  EXPECT_TRUE(file.errors.empty());
  EXPECT_EQ(file.records, (std::vector<GameRecord>{resigned, unfinished}));
}

TEST_F(GameRecords, SelfPlaySampleCountRoundTripsAndIsChecked) {
  // With playout cap randomisation a game trains on fewer positions than it has plies.
  const std::string p = path("games.jsonl");
  GameRecord r = record(0);
  r.samples = 1;
  appendGameRecords(p, {r, record(1)});
  const auto records = readGameRecords(p);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].samples, 1);
  EXPECT_EQ(records[0].trainedPositions(), 1);
  EXPECT_EQ(records[1].samples, -1);  // not written: every ply was trained on
  EXPECT_EQ(records[1].trainedPositions(), 3);
  EXPECT_EQ(readBytes(p).find("\"samples\":1"), readBytes(p).rfind("\"samples\""));
  GameRecord tooMany = record(2);
  tooMany.samples = 4;  // more samples than the 3 plies
  EXPECT_THROW(appendGameRecords(p, {tooMany}), GameRecordError);
  std::string line = gameRecordToJson(record(3));
  line.insert(line.size() - 1, ",\"samples\":-2");
  EXPECT_THROW(gameRecordFromJson(line), GameRecordError);
}

TEST_F(GameRecords, IntegerIdIsAccepted) {
  const std::string p = path("games.jsonl");
  writeBytes(p, R"({"id":17,"variant":"micro","start":"x","moves":[],"result":"draw",)"
                R"("reason":"repetition","plies":0,"model":"m"})"
                "\n");
  const auto records = readGameRecords(p);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].id, "17");
}

TEST_F(GameRecords, TruncatedLastLineIsToleratedAndRepaired) {
  const std::string p = path("games.jsonl");
  appendGameRecords(p, {record(0), record(1), record(2)});
  const std::string whole = gameRecordToJson(record(3));
  for (size_t cut : {size_t(1), size_t(20), whole.size() - 1}) {
    const std::string before = readBytes(p);
    writeBytes(p, before + whole.substr(0, cut));  // a crash mid-append
    GameRecordFile file = readGameRecordFile(p);
    EXPECT_EQ(file.records.size(), 3u);
    EXPECT_TRUE(file.errors.empty());
    EXPECT_TRUE(file.truncatedTail);
    // The next append cuts the partial line off instead of gluing onto it.
    ::testing::internal::CaptureStderr();
    appendGameRecords(p, {record(4)});
    ::testing::internal::GetCapturedStderr();
    file = readGameRecordFile(p);
    EXPECT_EQ(file.records, (std::vector<GameRecord>{record(0), record(1), record(2), record(4)}));
    EXPECT_TRUE(file.errors.empty());
    EXPECT_FALSE(file.truncatedTail);
    writeBytes(p, before);
  }
  // A last line that lost only its newline is a whole record: kept, and kept by the next append.
  writeBytes(p, readBytes(p) + whole);
  EXPECT_EQ(readGameRecordFile(p).records.size(), 4u);
  appendGameRecords(p, {record(5)});
  EXPECT_EQ(readGameRecordFile(p).records,
            (std::vector<GameRecord>{record(0), record(1), record(2), record(3), record(5)}));
}

TEST_F(GameRecords, MalformedMiddleLinesAreReportedByLine) {
  const std::string p = path("games.jsonl");
  GameRecord badResult = record(0);
  std::string badResultLine = gameRecordToJson(badResult);
  badResultLine.replace(badResultLine.find("\"sente\""), 7, "\"black\"");
  writeBytes(p, gameRecordToJson(record(0)) + "\n" + "{not json\n" + gameRecordToJson(record(1)) +
                    "\n" + badResultLine + "\n" + "\n" + "[1,2]\n" +
                    R"({"id":"x","variant":"micro"})" + "\n" + gameRecordToJson(record(2)) + "\n");
  const GameRecordFile file = readGameRecordFile(p);
  EXPECT_EQ(file.records, (std::vector<GameRecord>{record(0), record(1), record(2)}));
  ASSERT_EQ(file.errors.size(), 4u);
  EXPECT_EQ(file.errors[0].rfind(p + ":2: ", 0), 0u) << file.errors[0];
  EXPECT_EQ(file.errors[1].rfind(p + ":4: ", 0), 0u) << file.errors[1];
  EXPECT_NE(file.errors[1].find("black"), std::string::npos) << file.errors[1];
  EXPECT_EQ(file.errors[2].rfind(p + ":6: ", 0), 0u) << file.errors[2];
  EXPECT_EQ(file.errors[3].rfind(p + ":7: ", 0), 0u) << file.errors[3];
  EXPECT_NE(file.errors[3].find("start"), std::string::npos) << file.errors[3];
  EXPECT_FALSE(file.truncatedTail);

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(readGameRecords(p).size(), 3u);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(p + ":2:"), std::string::npos) << err;
}

TEST_F(GameRecords, BadRecordsAreNotAppendedAndMissingFileIsAnError) {
  const std::string p = path("games.jsonl");
  appendGameRecords(p, {record(0)});
  GameRecord bad = record(1);
  bad.reason = "adjourned";  // not a reason (resign is one since matches record forfeits)
  EXPECT_THROW(appendGameRecords(p, {record(2), bad}), GameRecordError);
  EXPECT_EQ(readGameRecords(p).size(), 1u);
  bad = record(1);
  bad.result = "unfinished";  // an unfinished game's result is "draw", its reason "unfinished"
  EXPECT_THROW(appendGameRecords(p, {bad}), GameRecordError);
  EXPECT_EQ(readGameRecords(p).size(), 1u);
  EXPECT_THROW(readGameRecords(path("absent.jsonl")), GameRecordError);
}

// scripts/poppy_replay.py, the Python reader of chunks: every sample of a chunk written here (a
// version 4 one with 16-bit indices and one with 32-bit ones) comes back as numpy arrays with the
// same planes (value / 24), policy, result, root value, plies left and reply flag; a flipped byte is refused naming the file. The expected values
// are the samples given to the writer, not the reader's own output.
namespace {

std::string python() { return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

// Runs `code` with `argument`; its stdout and stderr, and the exit code.
std::pair<int, std::string> runPython(const std::string& dir, const std::string& code, const std::string& argument) {
  const std::string script = dir + "/snippet.py", out = dir + "/snippet.out";
  std::ofstream(script) << code;
  const std::string cmd = python() + " '" + script + "' '" + argument + "' > '" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

}  // namespace

TEST_F(ReplayFile, ThePythonReaderGivesTheSamplesBack) {
  if (runPython(dir_, "import numpy, zstandard, xxhash\n", "").first != 0)
    GTEST_SKIP() << "python3-numpy, python3-zstandard or python3-xxhash is not installed (scripts/setup.sh installs them)";
  // The reader prints, per sample: result, root value, the sum of its planes x 24 (an integer),
  // and its policy's nonzero (index, probability) pairs.
  const std::string code =
      "import sys\n"
      "sys.path.insert(0, '" + std::string(POPPY_SOURCE_DIR) + "/scripts')\n"
      "import poppy_replay, numpy as np\n"
      "c = poppy_replay.read(sys.argv[1])\n"
      "print(c.variant, c.rules, c.encoder_version, list(c.planes.shape), c.policy.shape[1])\n"
      "for i in range(len(c)):\n"
      "    nz = np.nonzero(c.policy[i])[0]\n"
      "    print(int(c.result[i]), repr(float(c.root_value[i])), int(c.plies_left[i]), int(c.reply_follows[i]),\n"
      "          int(round(float(c.planes[i].sum()) * 24)),\n"
      "          ' '.join('%d:%r' % (k, float(c.policy[i][k])) for k in nz))\n";
  ChunkInfo large = microInfo();
  large.variant = "large";
  large.height = large.width = 13;
  large.policySize = 400 * 169;  // 32-bit indices
  for (const ChunkInfo& info : {microInfo(), large}) {
    SCOPED_TRACE(info.variant);
    std::vector<Sample> samples = makeSamples(info, 12, 21);
    if (info.policySize > 65536) samples[0].policy = {{uint32_t(info.policySize - 1), 0.75f}, {66000u, 0.25f}};
    const std::string p = path(info.variant + ".rpl");
    writeReplayChunk(p, info, samples);
    const auto [exitCode, text] = runPython(dir_, code, p);
    ASSERT_EQ(exitCode, 0) << text;
    std::ostringstream want;
    want << info.variant << " " << info.rules << " " << info.encoderVersion << " [12, " << info.planes << ", "
         << info.height << ", " << info.width << "] " << info.policySize << "\n";
    for (const Sample& s : samples) {
      int64_t planeSum = 0;
      for (uint8_t q : s.planes) planeSum += q;
      std::vector<std::pair<uint32_t, float>> policy = s.policy;
      std::sort(policy.begin(), policy.end());
      char root[64];
      std::snprintf(root, sizeof root, "%.17g", double(s.rootValue));
      want << int(s.result) << " " << root << " " << s.pliesLeft << " " << int(s.replyFollows) << " " << planeSum
           << " ";
      for (size_t k = 0; k < policy.size(); ++k) {
        char entry[64];
        std::snprintf(entry, sizeof entry, "%s%u:%.17g", k ? " " : "", policy[k].first, double(policy[k].second));
        want << entry;
      }
      want << "\n";
    }
    // Python's repr of a float is its shortest exact text; %.17g may add digits. Compare numbers
    // by parsing both sides.
    std::istringstream got(text), expected(want.str());
    std::string gotLine, wantLine;
    std::getline(got, gotLine);
    std::getline(expected, wantLine);
    EXPECT_EQ(gotLine, wantLine);
    for (int i = 0; std::getline(expected, wantLine); ++i) {
      ASSERT_TRUE(std::getline(got, gotLine)) << "sample " << i << " missing:\n" << text;
      std::istringstream g(gotLine), w(wantLine);
      int gr, wr;
      double gv, wv;
      int64_t gs, ws;
      g >> gr >> gv >> gs;
      w >> wr >> wv >> ws;
      EXPECT_EQ(gr, wr) << "sample " << i;
      EXPECT_EQ(gv, wv) << "sample " << i;
      EXPECT_EQ(gs, ws) << "sample " << i;
      std::string ge, we;
      std::vector<std::pair<long, double>> gp, wp;
      while (g >> ge) gp.emplace_back(std::stol(ge.substr(0, ge.find(':'))), std::stod(ge.substr(ge.find(':') + 1)));
      while (w >> we) wp.emplace_back(std::stol(we.substr(0, we.find(':'))), std::stod(we.substr(we.find(':') + 1)));
      EXPECT_EQ(gp, wp) << "sample " << i;
    }
  }
  // A flipped byte in the payload: refused with the file named.
  std::string bytes = readBytes(path("micro.rpl"));
  bytes[bytes.size() - 10] ^= 0x20;
  writeBytes(path("flipped.rpl"), bytes);
  const auto [status, text] =
      runPython(dir_, "import sys\nsys.path.insert(0, '" + std::string(POPPY_SOURCE_DIR) +
                                  "/scripts')\nimport poppy_replay\nsys.exit(poppy_replay.main(sys.argv[1:]))\n",
                path("flipped.rpl"));
  EXPECT_EQ(status, 2) << text;
  EXPECT_NE(text.find("flipped.rpl: payload checksum mismatch"), std::string::npos) << text;
}
