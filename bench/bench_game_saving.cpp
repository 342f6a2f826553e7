// How fast a `--distributed` learner can take in games (prints figures, never fails): the work
// its feed thread does for each game an actor sends (training/train_loop.cpp, saveFedGame), on
// real games. Reads the chunks and records of an existing run directory, then for `games`
// games, cycling through them: decode and check the chunk, write it atomically (fsync'ed, as
// every chunk is), append its record to games.jsonl (fsync'ed). MPI's own cost is not in it.
// Usage: bench_game_saving RUN_DIR [games=300] [out=a temporary directory]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "selfplay/game_record.h"
#include "selfplay/replay_file.h"
#include "selfplay/replay_window.h"

using namespace poppy;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_game_saving RUN_DIR [games=300] [out=a temporary directory]\n");
    return 2;
  }
  const fs::path run = argv[1];
  const int games = argc > 2 ? std::stoi(argv[2]) : 300;
  try {
    const auto records = selfplay::readGameRecords((run / "games.jsonl").string());
    std::vector<std::vector<uint8_t>> chunks;
    std::vector<selfplay::GameRecord> kept;
    for (const auto& r : records) {
      const fs::path chunk = run / "replay" / (r.id + ".rpl");
      if (!fs::exists(chunk)) continue;
      const std::string bytes = common::readWholeFile(chunk.string());
      chunks.emplace_back(bytes.begin(), bytes.end());
      kept.push_back(r);
      if (chunks.size() >= 200) break;
    }
    if (chunks.empty()) {
      std::fprintf(stderr, "bench_game_saving: %s has no recorded chunks\n", run.c_str());
      return 2;
    }
    const selfplay::ChunkInfo info = selfplay::readReplayChunkHeader((run / "replay" / (kept[0].id + ".rpl")).string()).info;
    fs::path out = argc > 3 ? fs::path(argv[3]) : fs::temp_directory_path() / ("bench_game_saving_" + std::to_string(::getpid()));
    fs::create_directories(out / "replay");
    size_t bytes = 0, samples = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < games; ++i) {
      const auto& chunk = chunks[size_t(i) % chunks.size()];
      selfplay::GameRecord record = kept[size_t(i) % kept.size()];
      samples += selfplay::decodeReplayChunk("game", chunk.data(), chunk.size(), info).size();
      const std::string name = selfplay::chunkFileName(uint64_t(i));
      selfplay::writeReplayChunkBytes((out / "replay" / name).string(), chunk);
      record.id = name.substr(0, name.find('.'));
      selfplay::appendGameRecords((out / "games.jsonl").string(), {record});
      bytes += chunk.size();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %d games (%zu distinct), %.0f bytes of chunk and %.1f samples a game\n", run.c_str(), games,
                chunks.size(), double(bytes) / games, double(samples) / games);
    std::printf("saved %.0f games/s, %.0f samples/s, %.2f ms a game, into %s\n", games / seconds, samples / seconds,
                1000 * seconds / games, out.c_str());
    if (argc <= 3) fs::remove_all(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_game_saving: %s\n", e.what());
    return 1;
  }
  return 0;
}
