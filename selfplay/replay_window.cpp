#include "selfplay/replay_window.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace poppy::selfplay {
namespace fs = std::filesystem;

namespace {
constexpr const char* kPrefix = "chunk-";
constexpr const char* kSuffix = ".rpl";
constexpr size_t kDigits = 9;

// Sequence number -> path of every chunk file in `dir` (empty if `dir` cannot be listed).
std::map<uint64_t, std::string> listChunks(const std::string& dir) {
  std::map<uint64_t, std::string> found;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::optional<uint64_t> seq = parseChunkFileName(it->path().filename().string());
    if (seq) found.emplace(*seq, it->path().string());
  }
  return found;
}
}  // namespace

std::string chunkFileName(uint64_t sequence) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%s%0*llu%s", kPrefix, int(kDigits),
                static_cast<unsigned long long>(sequence), kSuffix);
  return buffer;
}

std::optional<uint64_t> parseChunkFileName(const std::string& name) {
  const std::string prefix = kPrefix, suffix = kSuffix;
  if (name.size() < prefix.size() + kDigits + suffix.size()) return std::nullopt;
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 19) return std::nullopt;  // beyond uint64
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
  }
  return value;
}

uint64_t nextChunkSequence(const std::string& dir) {
  const auto chunks = listChunks(dir);
  return chunks.empty() ? 0 : chunks.rbegin()->first + 1;
}

ReplayWindow::ReplayWindow(std::string dir, ChunkInfo expected, size_t capacity)
    : dir_(std::move(dir)), expected_(std::move(expected)), capacity_(capacity) {
  load();
}

size_t ReplayWindow::refresh() { return load(); }

size_t ReplayWindow::load() {
  const std::map<uint64_t, std::string> onDisk = listChunks(dir_);
  std::vector<uint64_t> loaded;
  // Newest first; stop once the chunks newer than a candidate already fill the window (that
  // candidate and everything older would be dropped at once).
  for (auto it = onDisk.rbegin(); it != onDisk.rend(); ++it) {
    const uint64_t seq = it->first;
    if (seen_.count(seq)) continue;
    size_t newer = 0;
    for (auto c = chunks_.upper_bound(seq); c != chunks_.end(); ++c) newer += c->second.samples.size();
    if (newer >= capacity_) break;
    seen_.insert(seq);
    Chunk chunk;
    try {
      chunk.samples = readReplayChunk(it->second, expected_);
    } catch (const ReplayError& e) {
      std::cerr << "poppy: warning: skipping replay chunk " << it->second << ": " << e.what()
                << std::endl;
      skippedPaths_.push_back(it->second);
      continue;
    } catch (const std::bad_alloc&) {
      std::cerr << "poppy: warning: skipping replay chunk " << it->second
                << ": out of memory reading it" << std::endl;
      skippedPaths_.push_back(it->second);
      continue;
    }
    loaded.push_back(seq);
    chunks_.emplace(seq, std::move(chunk));
  }
  trim();
  reindex();
  // Count what stayed: an old chunk that only partly fits adds only that part.
  size_t added = 0;
  for (uint64_t seq : loaded) {
    const auto c = chunks_.find(seq);
    if (c != chunks_.end()) added += c->second.samples.size();
  }
  return added;
}

void ReplayWindow::trim() {
  size_t total = 0;
  for (auto it = chunks_.rbegin(); it != chunks_.rend(); ++it) {
    Chunk& c = it->second;
    if (total >= capacity_) {
      // Everything from here on is older than a full window: drop it.
      chunks_.erase(chunks_.begin(), it.base());
      break;
    }
    const size_t room = capacity_ - total;
    if (c.samples.size() > room) {
      // The oldest samples of this chunk are the first written: they go.
      c.samples.erase(c.samples.begin(), c.samples.begin() + (c.samples.size() - room));
    }
    total += c.samples.size();
  }
  // Empty chunks hold nothing to sample.
  for (auto it = chunks_.begin(); it != chunks_.end();) {
    it = it->second.samples.empty() ? chunks_.erase(it) : std::next(it);
  }
}

void ReplayWindow::reindex() {
  ends_.clear();
  order_.clear();
  size_ = 0;
  for (const auto& [seq, chunk] : chunks_) {
    size_ += chunk.samples.size();
    ends_.push_back(size_);
    order_.push_back(&chunk);
  }
}

std::vector<uint64_t> ReplayWindow::chunkSequences() const {
  std::vector<uint64_t> out;
  for (const auto& entry : chunks_) out.push_back(entry.first);
  return out;
}

std::pair<const ReplayWindow::Chunk*, size_t> ReplayWindow::locate(size_t i) const {
  if (i >= size_) throw std::out_of_range("ReplayWindow::at: index beyond the window");
  const size_t k = size_t(std::upper_bound(ends_.begin(), ends_.end(), i) - ends_.begin());
  const size_t start = k == 0 ? 0 : ends_[k - 1];
  return {order_[k], i - start};
}

const Sample& ReplayWindow::at(size_t i) const {
  const auto [chunk, offset] = locate(i);
  return chunk->samples[offset];
}

void ReplayWindow::writeRow(const Sample& s, int row, float* planes, float* policy, float* wdlTarget,
                            float* rootValues) const {
  writeDenseRow(s, expected_.inputSize(), expected_.policySize, expected_.valueSize, row, planes, policy, wdlTarget);
  if (rootValues) rootValues[row] = s.rootValue;
}

void ReplayWindow::sampleBatch(int batch, std::mt19937& rng, float* planes, float* policy,
                               float* wdlTarget, float* rootValues, const AuxiliaryTargets* aux) const {
  if (size_ == 0) throw std::logic_error("ReplayWindow::sampleBatch: the window is empty");
  std::uniform_int_distribution<size_t> pick(0, size_ - 1);
  const size_t policySize = size_t(expected_.policySize);
  for (int b = 0; b < batch; ++b) {
    const auto [chunk, offset] = locate(pick(rng));
    const Sample& s = chunk->samples[offset];
    writeRow(s, b, planes, policy, wdlTarget, rootValues);
    if (!aux) continue;
    // The reply is the chunk's next sample (a trimmed chunk lost its oldest samples, never the
    // next one of a sample it kept).
    const bool reply = s.replyFollows && offset + 1 < chunk->samples.size();
    float* replyRow = aux->replyPolicy + size_t(b) * policySize;
    if (reply) writeDensePolicy(chunk->samples[offset + 1], int(policySize), replyRow);
    else std::fill(replyRow, replyRow + policySize, 0.0f);
    aux->hasReply[b] = reply ? 1.0f : 0.0f;
    aux->pliesLeft[b] = float(s.pliesLeft);
  }
}

}  // namespace poppy::selfplay
