// `poppy train --distributed` (distributed/): its messages, and whole runs under mpirun on this
// machine: one learner and two actors, every game recorded once and trained on, the same run
// directory as a run on one machine, and an actor killed mid-run without the run losing more
// than that actor's unfinished games. Open MPI refuses to run as root unless told, and CI runs
// as root: the flag is given here, not set for the whole machine.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/messages.h"
#include "selfplay/game_record.h"
#include "selfplay/replay_file.h"
#include "support/child_process.h"
#include "support/scratch_files.h"

using namespace poppy;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

selfplay::GameRecord someRecord() {
  selfplay::GameRecord r;
  r.id = "7-12";
  r.variant = "micro";
  r.start = "kbgs/p3/4/3P/SGBK b - 1";
  r.moves = {"1c1b", "4b4c"};
  r.result = "draw";
  r.reason = "ply_cap";
  r.plies = 2;
  r.model = "gen-0003";
  r.samples = 2;
  return r;
}

}  // namespace

TEST(DistributedMessages, AGameRoundTripsWithItsChunkBytes) {
  const selfplay::GameRecord record = someRecord();
  const std::vector<uint8_t> chunk = {1, 2, 3, 250, 0, 7};
  const auto bytes = distributed::packGame(record, chunk);
  const distributed::GameMessage m = distributed::unpackGame(bytes, "rank 2");
  EXPECT_EQ(selfplay::gameRecordToJson(m.record), selfplay::gameRecordToJson(record));
  EXPECT_EQ(m.chunk, chunk);
}

TEST(DistributedMessages, ABrokenGameMessageIsRefusedNamingItsSender) {
  const auto good = distributed::packGame(someRecord(), {9, 9, 9});
  auto refusal = [](const std::vector<uint8_t>& bytes) {
    try {
      distributed::unpackGame(bytes, "rank 5");
    } catch (const distributed::MessageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal({1, 2}).find("rank 5"), std::string::npos);
  // A record length past the end, a record that is not JSON, nothing after the record.
  std::vector<uint8_t> longLength = good;
  longLength[3] = 0x7f;
  EXPECT_NE(refusal(longLength).find("record is said to have"), std::string::npos);
  std::vector<uint8_t> notJson = good;
  notJson[4] = '#';
  EXPECT_NE(refusal(notJson).find("bad game record"), std::string::npos);
  const std::vector<uint8_t> noChunk(good.begin(), good.end() - 3);
  EXPECT_NE(refusal(noChunk).find("no replay chunk"), std::string::npos);
}

TEST(DistributedMessages, AModelRoundTripsWithItsGeneration) {
  const std::vector<uint8_t> model = {'P', 'O', 'P', 0, 1};
  const distributed::ModelMessage m = distributed::unpackModel(distributed::packModel(12, model), "the learner");
  EXPECT_EQ(m.generation, 12);
  EXPECT_EQ(m.model, model);
  EXPECT_THROW(distributed::unpackModel({1, 0, 0}, "the learner"), distributed::MessageError);
}

#if defined(POPPY_BINARY) && defined(POPPY_MPIRUN)
namespace {

const std::string kScratch = "poppy_test_distributed_";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup = poppy::testing::removeScratchRootAtExit(kScratch);

fs::path testRoot() {
  return poppy::testing::freshTempDir(kScratch, ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

// A tiny micro run: iterations of 5 steps of 32 samples; each sample trained on at most once
// (train_ratio 1), so the learner waits for games between steps. Actors give a silent learner
// 10 s. At its end the learner waits `actorTimeout` seconds for each actor's goodbye: a killed
// actor never says it, so the test that kills one waits less.
std::string tinyConfig(int iterations, int actorTimeout = 20) {
  return "variant: micro\ndevice: cpu\nseed: 3\n"
         "network: {blocks: 1, channels: 8, value_hidden: 8}\n"
         "selfplay: {parallel_games: 4, playouts: 8, threads: 1, workers: 1, ply_cap: 60, leaf_mate_plies: 0, "
         "root_mate_plies: 0}\n"
         "training: {batch_size: 32, steps_per_iteration: 5, min_samples: 40, window: 100000, threads: 1}\n"
         "gate: {games: 2, playouts: 4, parallel_games: 2, threshold: 0.0, leaf_mate_plies: 0, root_mate_plies: 0}\n"
         "distributed: {train_ratio: 1, actor_timeout: " +
         std::to_string(actorTimeout) + ", learner_timeout: 10}\n"
         "run: {iterations: " +
         std::to_string(iterations) + "}\n";
}

// mpirun -np `ranks` poppy train --distributed ..., as a child of this process; output to files.
// --enable-recovery: a rank that dies does not end the job (Open MPI 4's default would kill
// every other rank).
pid_t startMpirun(int ranks, const fs::path& config, const fs::path& runDir, const fs::path& out) {
  return poppy::testing::startChild(POPPY_MPIRUN,
                                    {"--allow-run-as-root", "--oversubscribe", "--enable-recovery", "-np",
                                     std::to_string(ranks), POPPY_BINARY, "train", "--distributed", "--config",
                                     config.string(), "--run-dir", runDir.string()},
                                    out, out);
}

// Waits for the child, at most `seconds`; its exit code (128 + N for signal N, -1 on timeout,
// after which it is killed).
int waitFor(pid_t pid, int seconds) {
  for (int i = 0; i < seconds * 10; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

// The pid of the process of MPI rank `rank` whose command line names `runDir` (0: none).
pid_t rankProcess(int rank, const fs::path& runDir) {
  const std::string wantRank = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  DIR* proc = ::opendir("/proc");
  pid_t found = 0;
  while (dirent* e = proc ? ::readdir(proc) : nullptr) {
    const pid_t pid = pid_t(std::atoi(e->d_name));
    if (pid <= 0) continue;
    const std::string cmdline = poppy::testing::slurp(fs::path("/proc") / e->d_name / "cmdline");
    if (cmdline.find(runDir.string()) == std::string::npos || cmdline.find("--distributed") == std::string::npos ||
        cmdline.rfind(POPPY_MPIRUN, 0) == 0)
      continue;
    std::string environ = poppy::testing::slurp(fs::path("/proc") / e->d_name / "environ");
    for (char& c : environ)
      if (c == '\0') c = '\n';
    if (("\n" + environ).find("\n" + wantRank + "\n") != std::string::npos) found = pid;
  }
  if (proc) ::closedir(proc);
  return found;
}

std::vector<std::string> lines(const fs::path& p) { return poppy::testing::completeLines(p); }

// What the run directory says: every record names a chunk of its own that holds its samples;
// every chunk has its record; state.json counts them all; the trainer's steps are all done.
void expectEveryGameRecordedOnceAndTrainedOn(const fs::path& dir, int iterations) {
  const auto records = selfplay::readGameRecords((dir / "games.jsonl").string());
  ASSERT_GT(records.size(), 0u);
  std::set<std::string> ids;
  int64_t samples = 0;
  for (const auto& r : records) {
    EXPECT_TRUE(ids.insert(r.id).second) << "game " << r.id << " recorded twice";
    const fs::path chunk = dir / "replay" / (r.id + ".rpl");
    ASSERT_TRUE(fs::exists(chunk)) << r.id;
    EXPECT_EQ(int(selfplay::readReplayChunkHeader(chunk.string()).samples), r.samples) << r.id;
    samples += r.samples;
  }
  int chunks = 0;
  for (const auto& e : fs::directory_iterator(dir / "replay")) chunks += e.path().extension() == ".rpl";
  EXPECT_EQ(chunks, int(records.size())) << "a chunk without its record";
  const json state = json::parse(poppy::testing::slurp(dir / "state.json"));
  EXPECT_EQ(state.at("iteration").get<int>(), iterations);
  EXPECT_EQ(state.at("total_games").get<int64_t>(), int64_t(records.size()));
  EXPECT_EQ(state.at("total_samples").get<int64_t>(), samples);
  // Trained on: every iteration's 5 steps of 32, within the ratio of 1 (the window holds every
  // sample: window 100,000), so at least 32 x 5 x iterations samples came in.
  int trainSteps = 0;
  for (const std::string& line : lines(dir / "metrics.jsonl")) {
    const json m = json::parse(line);
    if (m.at("event") == "train") trainSteps += m.at("steps").get<int>();
  }
  EXPECT_EQ(trainSteps, 5 * iterations);
  EXPECT_GE(samples, 32 * 5 * iterations);
}

}  // namespace

TEST(DistributedTraining, OneLearnerAndTwoActorsRunTheLoopIntoAnOrdinaryRunDirectory) {
  const fs::path root = testRoot(), dir = root / "run", log = root / "mpirun.log";
  poppy::testing::spit(root / "tiny.yaml", tinyConfig(2));
  const int code = waitFor(startMpirun(3, root / "tiny.yaml", dir, log), 240);
  const std::string out = poppy::testing::slurp(log);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("learner (rank 0 of 3): 2 actors"), std::string::npos) << out;
  for (const char* rank : {"actor rank 1", "actor rank 2"})
    EXPECT_NE(out.find(std::string(rank) + ": playing with gen-0000"), std::string::npos) << out;
  ASSERT_NO_FATAL_FAILURE(expectEveryGameRecordedOnceAndTrainedOn(dir, 2));
  // The same files as a run on one machine: models, best, candidate, and a self-play event per
  // iteration (from both actors), which `poppy report` reads.
  EXPECT_TRUE(fs::exists(dir / "models" / "gen-0002.model"));
  int selfplayEvents = 0;
  for (const std::string& line : lines(dir / "metrics.jsonl")) {
    const json m = json::parse(line);
    if (m.at("event") != "selfplay") continue;
    ++selfplayEvents;
    EXPECT_EQ(m.at("distributed"), true);
    EXPECT_EQ(m.at("actors"), 2);
    EXPECT_GT(m.at("games").get<int>(), 0);
  }
  EXPECT_EQ(selfplayEvents, 2);
  const std::string report = "timeout 60 " + poppy::testing::shellQuote(POPPY_BINARY) + " report " +
                             poppy::testing::shellQuote(dir.string()) + " --out " +
                             poppy::testing::shellQuote((root / "report").string()) + " > /dev/null 2>&1";
  EXPECT_EQ(poppy::testing::exitCodeOf(std::system(report.c_str())), 0);
  fs::remove_all(root);
}

TEST(DistributedTraining, AKilledActorLosesOnlyItsUnfinishedGames) {
  const fs::path root = testRoot(), dir = root / "run", log = root / "mpirun.log";
  // The live actor's goodbye takes a move of 8 playouts: 5 s is ample, and the dead one costs 5.
  poppy::testing::spit(root / "tiny.yaml", tinyConfig(4, 5));
  const pid_t mpirun = startMpirun(3, root / "tiny.yaml", dir, log);
  // Once rank 2 has sent a few games (each game's record reaches games.jsonl), kill it.
  pid_t actor = 0;
  for (int i = 0; i < 600 && !actor; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (lines(dir / "games.jsonl").size() >= 6) actor = rankProcess(2, dir);
  }
  ASSERT_GT(actor, 0) << poppy::testing::slurp(log);
  ASSERT_EQ(::kill(actor, SIGKILL), 0);
  const int code = waitFor(mpirun, 240);
  const std::string out = poppy::testing::slurp(log);
  // The learner and rank 1 finish the run; mpirun reports the killed rank in its exit code.
  EXPECT_NE(out.find("stopped at iteration 4"), std::string::npos) << out;
  EXPECT_NE(code, -1) << out;
  ASSERT_NO_FATAL_FAILURE(expectEveryGameRecordedOnceAndTrainedOn(dir, 4));
  fs::remove_all(root);
}

// Killed with -9, the learner takes nothing with it: the actors notice its silence and stop, the
// job ends, and mpirun again with the same run directory finishes the run with every game saved
// before the kill still there once, as a run on one machine resumes.
TEST(DistributedTraining, AKilledLearnerEndsTheJobAndTheRunResumes) {
  const fs::path root = testRoot(), dir = root / "run", log = root / "mpirun.log", log2 = root / "mpirun2.log";
  poppy::testing::spit(root / "tiny.yaml", tinyConfig(4));
  const pid_t mpirun = startMpirun(3, root / "tiny.yaml", dir, log);
  pid_t learner = 0;
  for (int i = 0; i < 600 && !learner; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (lines(dir / "games.jsonl").size() >= 10) learner = rankProcess(0, dir);
  }
  ASSERT_GT(learner, 0) << poppy::testing::slurp(log);
  ASSERT_EQ(::kill(learner, SIGKILL), 0);
  const int code = waitFor(mpirun, 120);
  const std::string out = poppy::testing::slurp(log);
  EXPECT_NE(code, -1) << "the job did not end after its learner was killed:\n" << out;
  // (Its exit code says nothing: under --enable-recovery mpirun exits 0 whatever its ranks did.)
  EXPECT_NE(out.find("nothing heard from the learner"), std::string::npos) << out;
  const auto before = selfplay::readGameRecords((dir / "games.jsonl").string());
  ASSERT_GT(before.size(), 0u);

  ASSERT_EQ(waitFor(startMpirun(3, root / "tiny.yaml", dir, log2), 240), 0) << poppy::testing::slurp(log2);
  ASSERT_NO_FATAL_FAILURE(expectEveryGameRecordedOnceAndTrainedOn(dir, 4));
  const auto after = selfplay::readGameRecords((dir / "games.jsonl").string());
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(selfplay::gameRecordToJson(after[i]), selfplay::gameRecordToJson(before[i])) << "record " << i;
  fs::remove_all(root);
}
#endif
