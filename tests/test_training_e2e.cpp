// `poppy train` end to end on tiny settings (a 1x8 network, a few games of 16-48 playouts):
// a short run leaves the documented run directory; a run killed with SIGKILL in the middle of
// self-play resumes without losing or double-counting a game; a damaged run file stops the resume
// with an error naming it and leaves the directory as it was; a bad config is refused before
// anything is written. Every foreground command runs under `timeout`; the background run that is
// killed is the test's own child (killed by the test at a deadline, and by the kernel if the test
// dies first).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/run_lock.h"
#include "game/position.h"
#include "game/rules_fingerprint.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/load_evaluator.h"
#include "nn/model_file.h"
#include "selfplay/chunk_info.h"
#include "selfplay/game_record.h"
#include "selfplay/replay_file.h"
#include "selfplay/replay_window.h"
#include "training/checkpoint.h"
#include "training/trainer.h"

#include "support/child_process.h"
#include "support/scratch_files.h"
#include "support/variants.h"

using namespace poppy;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kScratch = "poppy_test_train_e2e_";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup = poppy::testing::removeScratchRootAtExit(kScratch);
fs::path scratchRoot() { return poppy::testing::scratchRoot(kScratch); }
using poppy::testing::slurp;
using poppy::testing::spit;
std::string quote(const std::string& s) { return poppy::testing::shellQuote(s); }

// ---------------------------------------------------------------------------------------------
// Helpers

struct CmdResult {
  int code = -1;  // exit status; 128 + N for signal N; 124/137 when `timeout` stopped it
  std::string out, err, command;
  std::string describe() const {
    return "command: " + command + "\nexit: " + std::to_string(code) + "\nstdout:\n" + out + "\nstderr:\n" + err;
  }
};




fs::path testRoot() {
  const fs::path dir = scratchRoot() / ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// `poppy ARGS` in the foreground under `timeout -k 5 SECONDS`.
CmdResult poppy(const std::vector<std::string>& args, const fs::path& scratch, int seconds = 60) {
  static int serial = 0;
  const fs::path out = scratch / ("stdout-" + std::to_string(serial));
  const fs::path err = scratch / ("stderr-" + std::to_string(serial++));
  CmdResult r;
  std::string cmd = "timeout -k 5 " + std::to_string(seconds) + " " + quote(POPPY_BINARY);
  r.command = "poppy";
  for (const auto& a : args) {
    cmd += " " + quote(a);
    r.command += " " + a;
  }
  cmd += " </dev/null >" + quote(out.string()) + " 2>" + quote(err.string());
  r.code = poppy::testing::exitCodeOf(std::system(cmd.c_str()));
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// `poppy ARGS` as a child of this process (so it can be SIGKILLed and reaped); stderr to a file.
pid_t startPoppy(const std::vector<std::string>& args, const fs::path& errFile) {
  return poppy::testing::startChild(POPPY_BINARY, args, "", errFile);
}

std::vector<std::string> lines(const fs::path& p) { return poppy::testing::completeLines(p); }

json readJson(const fs::path& p) { return json::parse(slurp(p)); }

std::string tinyConfig(int iterations, int games = 8, int parallel = 8, int playouts = 16, int channels = 8,
                       const std::string& extra = "") {
  std::ostringstream y;
  y << "# test_training_e2e\n"
    << "variant: micro\ndevice: cpu\nseed: 7\n"
    << "network: {blocks: 1, channels: " << channels << ", value_hidden: 8}\n"
    << "selfplay: {games_per_iteration: " << games << ", parallel_games: " << parallel << ", playouts: " << playouts
    << ", threads: 1}\n"
    << "training: {batch_size: 32, steps_per_iteration: 10, min_samples: 50, window: 20000, threads: 1}\n"
    << "gate: {games: 4, playouts: 8, parallel_games: 4}\n"
    << "run: {iterations: " << iterations << "}\n"
    << extra;
  return y.str();
}

// `text` with the first occurrence of `from` replaced by `to` (a config line edited); a test
// failure when `from` is not there.
std::string replacedOnce(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::vector<fs::path> chunkFiles(const fs::path& runDir) {
  std::vector<fs::path> out;
  if (!fs::exists(runDir / "replay")) return out;
  for (const auto& e : fs::directory_iterator(runDir / "replay"))
    if (selfplay::parseChunkFileName(e.path().filename().string())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> tmpFiles(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".tmp") out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

struct FileState {
  std::string content;
  fs::file_time_type mtime;
};
std::map<std::string, FileState> snapshot(const fs::path& dir) {
  std::map<std::string, FileState> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    // run.lock names the trainer holding the directory: every start rewrites it.
    if (e.is_regular_file() && e.path().filename() != "run.lock")
      out[fs::relative(e.path(), dir).string()] = {slurp(e.path()), fs::last_write_time(e.path())};
  return out;
}

// `after` has the same files with the same bytes as `before`; only config.yaml (documented to be
// copied at every start) may have been rewritten with the same bytes.
void expectUntouched(const std::map<std::string, FileState>& before, const std::map<std::string, FileState>& after,
                     const std::string& what) {
  std::set<std::string> a, b;
  for (const auto& [k, v] : before) a.insert(k);
  for (const auto& [k, v] : after) b.insert(k);
  EXPECT_EQ(a, b) << what << ": the set of files in the run directory changed";
  for (const auto& [name, st] : before) {
    auto it = after.find(name);
    if (it == after.end()) continue;
    EXPECT_TRUE(it->second.content == st.content) << what << ": " << name << " was changed";
    if (name != "config.yaml") {
      EXPECT_TRUE(it->second.mtime == st.mtime) << what << ": " << name << " was rewritten";
    }
  }
}

int chunkSamples(const fs::path& chunk) { return int(selfplay::readReplayChunkHeader(chunk.string()).samples); }

std::vector<selfplay::GameRecord> records(const fs::path& runDir) {
  std::vector<selfplay::GameRecord> out;
  for (const std::string& l : lines(runDir / "games.jsonl")) out.push_back(selfplay::gameRecordFromJson(l));
  return out;
}

// Plays a record's moves from its start into `pos`; each must be legal (a fatal failure naming
// the record and the move otherwise: call under ASSERT_NO_FATAL_FAILURE).
void replayRecord(const selfplay::GameRecord& rec, const game::VariantPtr& variant, game::Position& pos) {
  pos = game::Position::fromSfen(variant, rec.start);
  for (const std::string& mv : rec.moves) ASSERT_NO_THROW(pos.makeMove(pos.parseUsi(mv))) << rec.id << " " << mv;
}

struct MicroTrainer {
  game::VariantPtr variant = game::loadVariant("micro");
  nn::Encoder encoder{variant};
  nn::NetworkShape shape(int channels = 8) const { return nn::networkShapeFor(encoder, 1, channels, 8); }
  // The step stored in a run's candidate.ckpt (loads it fully: checksums, shape, optimizer).
  int64_t checkpointStep(const fs::path& ckpt) const {
    training::Trainer t(nn::PolicyValueNet(shape()), training::OptimizerConfig{}, torch::kCPU);
    training::loadCheckpoint(ckpt.string(), t, microRules(), nn::Encoder::kVersion);
    return t.steps();
  }
};

// The invariants that must hold in a run directory at any moment, even right after a SIGKILL:
// state.json parses; every game it counts is in games.jsonl, and game i has replay chunk i with one
// sample per ply; at most the one game being saved is ahead of the state.
void expectConsistentAfterKill(const fs::path& dir) {
  SCOPED_TRACE("run directory " + dir.string());
  json state;
  ASSERT_NO_THROW(state = readJson(dir / "state.json")) << slurp(dir / "state.json");
  const int64_t counted = state.at("total_games").get<int64_t>();
  const auto recs = records(dir);
  const auto chunks = chunkFiles(dir);
  EXPECT_GE(int64_t(recs.size()), counted) << "a game counted in state.json is missing from games.jsonl";
  EXPECT_LE(int64_t(recs.size()), counted + 1) << "more than one finished game is not counted in state.json";
  EXPECT_GE(chunks.size(), recs.size()) << "a game record without its replay chunk";
  EXPECT_LE(chunks.size(), recs.size() + 1);
  int64_t samples = 0;
  for (size_t i = 0; i < recs.size() && i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].filename().string(), selfplay::chunkFileName(i));
    EXPECT_EQ(chunkSamples(chunks[i]), recs[i].plies) << "game " << i << " and " << chunks[i];
    if (int64_t(i) < counted) samples += recs[i].plies;
  }
  EXPECT_EQ(state.at("total_samples").get<int64_t>(), samples);
}

// ---------------------------------------------------------------------------------------------
// Tests

TEST(TrainE2E, TinyRunLeavesTheDocumentedRunDirectory) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(2));
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("new run"), std::string::npos) << r.err;

  // state.json: two full iterations of 8 games.
  const json state = readJson(dir / "state.json");
  EXPECT_EQ(state.at("iteration"), 2);
  EXPECT_EQ(state.at("phase"), "selfplay");
  EXPECT_EQ(state.at("games_at_iteration_start"), 16);  // the next iteration starts after 16 games
  EXPECT_EQ(state.at("total_games"), 16);

  // games.jsonl: exactly one record per counted game, each a legal micro game.
  const auto recs = records(dir);
  EXPECT_EQ(lines(dir / "games.jsonl").size(), 16u);
  ASSERT_EQ(recs.size(), 16u);
  const game::VariantPtr micro = game::loadVariant("micro");
  int64_t plies = 0;
  for (const auto& rec : recs) {
    EXPECT_EQ(rec.variant, "micro");
    EXPECT_EQ(int(rec.moves.size()), rec.plies);
    EXPECT_TRUE(rec.result == "sente" || rec.result == "gote" || rec.result == "draw") << rec.result;
    game::Position pos(micro);
    ASSERT_NO_FATAL_FAILURE(replayRecord(rec, micro, pos));
    if (rec.reason == "checkmate") {
      EXPECT_FALSE(pos.hasLegalMove()) << rec.id;
    }
    plies += rec.plies;
  }
  EXPECT_EQ(state.at("total_samples").get<int64_t>(), plies);

  // replay/: one readable chunk per game, in order, one sample per ply.
  const MicroTrainer mt;
  const auto chunks = chunkFiles(dir);
  ASSERT_EQ(chunks.size(), 16u);
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].filename().string(), selfplay::chunkFileName(i));
    const auto samples = selfplay::readReplayChunk(chunks[i].string(), selfplay::chunkInfoFor(mt.encoder));
    EXPECT_EQ(int(samples.size()), recs[i].plies) << chunks[i];
    // Sample j of a game of n plies (every ply a sample): n - j plies left, and the next sample
    // is the reply but for the last one.
    for (size_t j = 0; j < samples.size(); ++j) {
      EXPECT_EQ(int(samples[j].pliesLeft), recs[i].plies - int(j)) << chunks[i] << " sample " << j;
      EXPECT_EQ(samples[j].replyFollows, j + 1 < samples.size()) << chunks[i] << " sample " << j;
    }
  }

  // metrics.jsonl: selfplay, train, gate for each iteration, in order.
  std::vector<std::string> events;
  int promotions = 0, trainSteps = 0;
  for (const std::string& l : lines(dir / "metrics.jsonl")) {
    const json m = json::parse(l);
    events.push_back(m.at("event").get<std::string>() + "@" + std::to_string(m.at("iteration").get<int>()));
    if (m.at("event") == "train") trainSteps += m.at("steps").get<int>();
    if (m.at("event") == "fresh") {
      // The newest iteration's samples, before training on them: every sample of its 8 games.
      EXPECT_GT(m.at("samples").get<int>(), 8) << l;
      EXPECT_LE(m.at("samples").get<int>(), 4096) << l;
      for (const char* key : {"fresh_policy_loss", "fresh_value_loss", "constant_value_loss"})
        EXPECT_TRUE(std::isfinite(m.at(key).get<double>()) && m.at(key).get<double>() >= 0) << key << ": " << l;
      EXPECT_LE(m.at("constant_value_loss").get<double>(), std::log(3.0) + 1e-9) << l;
    }
    if (m.at("event") == "gate" && m.at("promoted").get<bool>()) {
      ++promotions;
      EXPECT_TRUE(fs::exists(dir / "models" / (m.at("new_best").get<std::string>() + ".model"))) << l;
    }
  }
  EXPECT_EQ(events, (std::vector<std::string>{"selfplay@0", "fresh@0", "train@0", "gate@0", "selfplay@1", "fresh@1",
                                              "train@1", "gate@1"}));
  EXPECT_EQ(trainSteps, 20);

  // Models: gen-0000 is the initial network; `best` names the current best, which loads.
  const nn::ModelInfo gen0 = nn::readModelInfo((dir / "models/gen-0000.model").string());
  EXPECT_EQ(gen0.variant, "micro");
  EXPECT_EQ(gen0.id, "gen-0000");
  EXPECT_EQ(gen0.step, 0);
  EXPECT_EQ(gen0.shape.blocks, 1);
  EXPECT_EQ(gen0.shape.channels, 8);
  EXPECT_EQ(state.at("generation").get<int>(), promotions);
  char bestName[32];
  std::snprintf(bestName, sizeof bestName, "gen-%04d", promotions);
  EXPECT_EQ(slurp(dir / "best"), std::string(bestName) + "\n");
  nn::ModelInfo bestInfo;
  EXPECT_NO_THROW(nn::loadModel((dir / "models" / (std::string(bestName) + ".model")).string(), &bestInfo, microRules(),
                                nn::Encoder::kVersion));
  EXPECT_EQ(bestInfo.id, bestName);

  // candidate.ckpt: loads, and holds every training step of the run.
  EXPECT_EQ(mt.checkpointStep(dir / "candidate.ckpt"), 20);
  EXPECT_EQ(slurp(dir / "config.yaml"), slurp(config));
  EXPECT_EQ(tmpFiles(dir), std::vector<std::string>{}) << "temporary files left behind";

  // Started again when it is done: it resumes, plays nothing, changes no game.
  const std::string gamesBefore = slurp(dir / "games.jsonl");
  const CmdResult again = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(again.code, 0) << again.describe();
  EXPECT_NE(again.err.find("resuming"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(dir / "games.jsonl"), gamesBefore);
  EXPECT_EQ(readJson(dir / "state.json").at("total_games"), 16);
  fs::remove_all(root);
}

// selfplay.asynchronous (training/local_game_feed.h): self-play plays on its own thread while
// the run trains. Three iterations of 10 steps of 32 with train_ratio 4: every game the feed
// played is saved (a chunk named by its record, one sample a ply, each a legal micro game) and
// counted once; no step was trained before the window held min_samples, nor beyond 4 x the
// samples played; the iteration's games are logged as asynchronous; started again with a
// higher limit it resumes and goes on from the games it has.
TEST(TrainE2E, AsynchronousSelfPlayTrainsWhileItPlaysAndResumes) {
  const fs::path root = testRoot();
  const fs::path config = root / "async.yaml", dir = root / "run";
  std::string text = replacedOnce(tinyConfig(3, 8, 8, 16, 8, ""), "threads: 1}", "threads: 1, asynchronous: true}");
  text = replacedOnce(text, "threads: 1}\ngate", "threads: 1, train_ratio: 4}\ngate");
  spit(config, text);
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("asynchronous self-play: 2 workers play while 1 threads train (train_ratio 4"), std::string::npos)
      << r.err;

  auto checkRun = [&](int iterations) {
    const json state = readJson(dir / "state.json");
    EXPECT_EQ(state.at("iteration"), iterations);
    const auto recs = records(dir);
    EXPECT_EQ(state.at("total_games").get<size_t>(), recs.size());
    EXPECT_EQ(chunkFiles(dir).size(), recs.size()) << "a chunk without its record, or a record without its chunk";
    const game::VariantPtr micro = game::loadVariant("micro");
    const MicroTrainer mt;
    std::set<std::string> ids;
    int64_t plies = 0;
    for (const auto& rec : recs) {
      EXPECT_TRUE(ids.insert(rec.id).second) << "game " << rec.id << " twice";
      game::Position pos(micro);
      EXPECT_NO_FATAL_FAILURE(replayRecord(rec, micro, pos));
      const auto samples = selfplay::readReplayChunk((dir / "replay" / (rec.id + ".rpl")).string(),
                                                     selfplay::chunkInfoFor(mt.encoder));
      EXPECT_EQ(int(samples.size()), rec.plies) << rec.id;
      EXPECT_EQ(rec.model.rfind("gen-", 0), 0u) << rec.model;
      plies += rec.plies;
    }
    EXPECT_EQ(state.at("total_samples").get<int64_t>(), plies);
    const int steps = mt.checkpointStep(dir / "candidate.ckpt");
    EXPECT_EQ(steps, 10 * iterations);
    EXPECT_GE(plies, 50) << "trained before the window held min_samples";
    EXPECT_LE(int64_t(steps) * 32, 4 * plies) << "trained beyond train_ratio x the samples played";
    int asyncEvents = 0;
    for (const std::string& l : lines(dir / "metrics.jsonl")) {
      const json m = json::parse(l);
      if (m.at("event") == "selfplay" && m.value("asynchronous", false)) ++asyncEvents;
      EXPECT_FALSE(m.at("event") == "fresh") << "fresh-game losses are for alternating phases: " << l;
    }
    EXPECT_GE(asyncEvents, 1);
    return recs.size();
  };
  const size_t gamesAfterThree = checkRun(3);
  EXPECT_EQ(tmpFiles(dir), std::vector<std::string>{}) << "temporary files left behind";

  const CmdResult again =
      poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "5"}, root);
  ASSERT_EQ(again.code, 0) << again.describe();
  EXPECT_NE(again.err.find("resuming"), std::string::npos) << again.err;
  EXPECT_GE(checkRun(5), gamesAfterThree);
  fs::remove_all(root);
}

// training.anneal_fraction: the last half of a 4-iteration run trains at the anneal's rate at
// most (metrics.jsonl's learning_rate of each training phase), and the log says when it starts.
// network.auxiliary_heads: the run trains the reply-policy and plies-left heads (their losses in
// metrics.jsonl, falling from the run's first ten steps, the fresh heads', to its last ten), saves
// models whose header records the heads, and those models search with Eigen as with LibTorch.
// The first and last ten steps, not the first and last iterations' means: the heads learn most
// of what they learn within the first iteration, and a later iteration's window holds other games
// (other lengths), so its mean plies-left loss could exceed the first iteration's (0.40 against
// 0.32 once under load).
TEST(TrainE2E, AuxiliaryHeadsTrainAndTheirModelsSearch) {
  const fs::path root = testRoot();
  const fs::path config = root / "aux.yaml", dir = root / "run";
  // 60 steps an iteration at 0.05, not the tiny config's 10 at 0.02: enough that the reply loss
  // falls whatever games the workers' timing made (10 steps moved it by less than 0.01).
  std::string text = replacedOnce(tinyConfig(3), "value_hidden: 8}", "value_hidden: 8, auxiliary_heads: true}");
  spit(config, replacedOnce(text, "steps_per_iteration: 10,",
                            "steps_per_iteration: 60, log_every_steps: 10, learning_rate: 0.05, lr_schedule: [],"));
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  const MicroTrainer mt;
  std::vector<double> reply, plies, replyEvery10, pliesEvery10;
  for (const std::string& line : lines(dir / "metrics.jsonl")) {
    const json e = json::parse(line);
    if (e.value("event", "") == "steps") {
      replyEvery10.push_back(e.at("reply_policy_loss").get<double>());
      pliesEvery10.push_back(e.at("plies_left_loss").get<double>());
    }
    if (e.value("event", "") != "train") continue;
    reply.push_back(e.at("reply_policy_loss").get<double>());
    plies.push_back(e.at("plies_left_loss").get<double>());
  }
  ASSERT_EQ(pliesEvery10.size(), 18u) << "a steps event every 10 of the 3 x 60 steps";
  ASSERT_EQ(reply.size(), 3u);
  for (size_t i = 0; i < reply.size(); ++i) {
    EXPECT_GT(reply[i], 0.0);
    EXPECT_LT(reply[i], std::log(double(mt.encoder.policySize())));
    EXPECT_GT(plies[i], 0.0);
    EXPECT_TRUE(std::isfinite(plies[i]));
  }
  EXPECT_LT(replyEvery10.back(), replyEvery10.front());
  EXPECT_LT(pliesEvery10.back(), pliesEvery10.front());
  const std::string model = (dir / "models/gen-0000.model").string();
  EXPECT_TRUE(nn::readModelInfo(model).shape.auxiliaryHeads);
  // The same position through both forwards: the auxiliary weights are set aside by Eigen.
  const game::Position start(mt.variant);
  std::vector<float> planes(size_t(mt.encoder.inputSize()));
  mt.encoder.encode(start, planes.data());
  std::vector<float> logits[2], wdl[2];
  int k = 0;
  for (nn::Inference inference : {nn::Inference::kTorch, nn::Inference::kEigen}) {
    const auto eval = nn::loadEvaluator(model, microRules(), "cpu", inference, nullptr);
    logits[k].resize(size_t(mt.encoder.policySize()));
    wdl[k].resize(3);
    eval->evaluate(planes.data(), 1, logits[k].data(), wdl[k].data());
    ++k;
  }
  for (size_t i = 0; i < logits[0].size(); ++i) ASSERT_NEAR(logits[0][i], logits[1][i], 1e-4f) << i;
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(wdl[0][i], wdl[1][i], 1e-4f) << i;
}

TEST(TrainE2E, FinalAnnealLowersTheRateForTheLastPartOfTheRun) {
  const fs::path root = testRoot();
  const fs::path config = root / "anneal.yaml", dir = root / "run";
  const std::string training = "training: {batch_size: 32, steps_per_iteration: 10, min_samples: 50, window: 20000, threads: 1";
  spit(config, replacedOnce(tinyConfig(4), training,
                            training + ", learning_rate: 0.05, lr_schedule: [], anneal_fraction: 0.5, anneal_learning_rate: 0.001"));
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("iter 2: the last 50% of the run's 4 iterations: learning rate at most 0.001 from here"),
            std::string::npos) << r.err;
  std::vector<double> rates;
  for (const std::string& line : lines(dir / "metrics.jsonl")) {
    const json e = json::parse(line);
    if (e.value("event", "") == "train") rates.push_back(e.at("learning_rate").get<double>());
  }
  ASSERT_EQ(rates.size(), 4u) << "one training phase an iteration";
  EXPECT_DOUBLE_EQ(rates[0], 0.05);
  EXPECT_DOUBLE_EQ(rates[1], 0.05);
  EXPECT_DOUBLE_EQ(rates[2], 0.001);
  EXPECT_DOUBLE_EQ(rates[3], 0.001);
}

// Chu shogi end to end on a tiny network: 12x12, the spatial policy head (nn/encoder.h), royal
// capture and lion moves in self-play, replay chunks, training and the gate.
TEST(TrainE2E, ChuTinyRunPlaysTrainsAndGates) {
  const fs::path root = testRoot();
  const fs::path config = root / "chu.yaml", dir = root / "run";
  spit(config,
       "variant: chu\ndevice: cpu\nseed: 7\n"
       "network: {blocks: 1, channels: 8, value_hidden: 8}\n"
       "selfplay: {games_per_iteration: 4, parallel_games: 4, playouts: 8, ply_cap: 40, leaf_mate_plies: 1, "
       "root_mate_plies: 1, threads: 1}\n"
       "training: {batch_size: 32, steps_per_iteration: 5, min_samples: 50, window: 20000, threads: 1}\n"
       "gate: {games: 2, playouts: 4, parallel_games: 2}\n"
       "run: {iterations: 1}\n");
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  const auto recs = records(dir);
  ASSERT_EQ(recs.size(), 4u);
  const game::VariantPtr chu = game::loadVariant("chu");
  for (const auto& rec : recs) {
    game::Position pos(chu);
    ASSERT_NO_FATAL_FAILURE(replayRecord(rec, chu, pos));
  }
  const nn::Encoder encoder(chu);
  const auto chunks = chunkFiles(dir);
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(int(selfplay::readReplayChunk(chunks[0].string(), selfplay::chunkInfoFor(encoder)).size()), recs[0].plies);
  const nn::ModelInfo gen0 = nn::readModelInfo((dir / "models/gen-0000.model").string());
  EXPECT_EQ(gen0.shape.policyPlanes, encoder.policyPlanes());
  EXPECT_EQ(readJson(dir / "state.json").at("iteration"), 1);
  fs::remove_all(root);
}

// Four players (yonin): a tiny run plays (with Gumbel's root), trains and gates with the seat
// match; records name the winning seat; samples learn winners' places; the model's value head has
// five outputs; the gate's metric has the players and the share.
TEST(TrainE2E, YoninTinyRunPlaysTrainsAndGatesFourPlayers) {
  const fs::path root = testRoot();
  const fs::path config = root / "yonin.yaml", dir = root / "run";
  spit(config,
       "variant: yonin\ndevice: cpu\nseed: 7\n"
       "network: {blocks: 1, channels: 8, value_hidden: 8}\n"
       "selfplay: {games_per_iteration: 4, parallel_games: 4, playouts: 8, ply_cap: 60, solver: false, "
       "leaf_mate_plies: 0, root_mate_plies: 0, temperature_moves: 60, threads: 1, gumbel_actions: 4}\n"
       "training: {batch_size: 32, steps_per_iteration: 5, min_samples: 50, window: 20000, threads: 1, "
       "root_value_weight: 0}\n"
       "gate: {games: 4, playouts: 4, parallel_games: 4, threshold: 0.0, solver: false, leaf_mate_plies: 0, "
       "root_mate_plies: 0}\n"
       "run: {iterations: 1}\n");
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("in one seat of 4"), std::string::npos) << r.describe();
  const auto recs = records(dir);
  ASSERT_EQ(recs.size(), 4u);
  const game::VariantPtr yonin = game::loadVariant("yonin");
  const std::set<std::string> results = {"south", "west", "north", "east", "draw"};
  for (const auto& rec : recs) {
    EXPECT_EQ(results.count(rec.result), 1u) << rec.result;
    game::Position pos(yonin);
    ASSERT_NO_FATAL_FAILURE(replayRecord(rec, yonin, pos));
  }
  const nn::Encoder encoder(yonin);
  const auto chunks = chunkFiles(dir);
  ASSERT_EQ(chunks.size(), 4u);
  for (const auto& sample : selfplay::readReplayChunk(chunks[0].string(), selfplay::chunkInfoFor(encoder)))
    EXPECT_TRUE(sample.result >= -1 && sample.result <= 3);
  // Threshold 0: the candidate is promoted, gen-0001 written with a five-output value head.
  EXPECT_EQ(nn::readModelInfo((dir / "models/gen-0001.model").string()).shape.valueOutputs, 5);
  bool gate = false;
  for (const std::string& line : lines(dir / "metrics.jsonl")) {
    const json m = json::parse(line);
    if (m.at("event") != "gate") continue;
    gate = true;
    EXPECT_EQ(m.at("players"), 4);
    EXPECT_EQ(m.at("games"), 4);
    EXPECT_TRUE(m.contains("share"));
    EXPECT_EQ(m.at("promoted"), true);
  }
  EXPECT_TRUE(gate);
  // `poppy selfplay` with the four-player model: games with a four-player result, one chunk each.
  const fs::path out = root / "selfplay";
  const CmdResult sp = poppy({"selfplay", "--model", (dir / "models/gen-0001.model").string(), "--games", "2",
                              "--playouts", "4", "--parallel", "2", "--workers", "1", "--out", out.string()},
                             root);
  ASSERT_EQ(sp.code, 0) << sp.describe();
  const auto spRecords = selfplay::readGameRecords((out / "games.jsonl").string());
  ASSERT_EQ(spRecords.size(), 2u);
  for (const auto& rec : spRecords) {
    EXPECT_EQ(results.count(rec.result), 1u) << rec.result;
    game::Position pos(yonin);
    ASSERT_NO_FATAL_FAILURE(replayRecord(rec, yonin, pos));
  }
  EXPECT_EQ(chunkFiles(out).size(), 2u);
  fs::remove_all(root);
}

TEST(TrainE2E, KilledRunResumesWithoutLosingOrDoublingGames) {
  const fs::path root = testRoot();
  const fs::path config = root / "long.yaml", dir = root / "run";
  // 4 iterations of 12 games, 4 at a time: games finish one by one, so the kill lands mid-self-play.
  spit(config, tinyConfig(4, 12, 4, 48));
  const pid_t pid = startPoppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root / "first.err");
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool exited = false;
  int status = 0;
  while (lines(dir / "games.jsonl").size() < 5 && std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    // Poll tightly: the kill should land right after a game is saved, the moment a crash is most
    // likely to split the saving of one game.
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the run ended by itself before the kill (or never wrote 5 games in 60 s):\n"
      << slurp(root / "first.err");
  const auto linesAtKill = lines(dir / "games.jsonl");
  ASSERT_GE(linesAtKill.size(), 5u);
  ASSERT_LT(linesAtKill.size(), 48u) << "the run was nearly done before the kill; the test needs slower settings";
  const json stateAtKill = readJson(dir / "state.json");
  expectConsistentAfterKill(dir);
  std::fprintf(stderr, "[killed after %zu game records; state.json counts %lld]\n", linesAtKill.size(),
               static_cast<long long>(stateAtKill.at("total_games").get<int64_t>()));

  // Stale temporaries (as a crash mid-write leaves them) must never be read as data.
  spit(dir / "replay" / "chunk-000000999.rpl.tmp", "garbage: an interrupted chunk write");
  spit(dir / "models" / "gen-0099.model.tmp", "garbage: an interrupted model write");

  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root, 120);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("resuming"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("new run"), std::string::npos) << r.err;

  const json state = readJson(dir / "state.json");
  EXPECT_EQ(state.at("iteration"), 4);
  EXPECT_EQ(state.at("phase"), "selfplay");
  EXPECT_EQ(state.at("total_games"), 48);
  const auto finalLines = lines(dir / "games.jsonl");
  EXPECT_EQ(int64_t(finalLines.size()), state.at("total_games").get<int64_t>())
      << "games.jsonl and state.json disagree on the number of games (state.json counted "
      << stateAtKill.at("total_games") << " of " << linesAtKill.size() << " records at the kill)";
  // No game lost: what was there at the kill is still there, unchanged, at the front.
  ASSERT_GE(finalLines.size(), linesAtKill.size());
  for (size_t i = 0; i < linesAtKill.size(); ++i) EXPECT_EQ(finalLines[i], linesAtKill[i]) << "line " << i + 1;
  // Every record has its chunk: the records' ply counts appear, in order, among the chunks'
  // sample counts (a chunk written just before the kill may have no record).
  const auto recs = records(dir);
  const auto chunks = chunkFiles(dir);
  EXPECT_GE(chunks.size(), recs.size());
  size_t c = 0;
  int64_t plies = 0;
  for (const auto& rec : recs) {
    while (c < chunks.size() && chunkSamples(chunks[c]) != rec.plies) ++c;
    ASSERT_LT(c, chunks.size()) << "game " << rec.id << " (" << rec.plies << " plies) has no replay chunk";
    ++c;
    plies += rec.plies;
  }
  EXPECT_EQ(state.at("total_samples").get<int64_t>(), plies);
  // The stale temporaries were ignored: untouched, and chunk numbering did not jump past them.
  EXPECT_EQ(slurp(dir / "replay" / "chunk-000000999.rpl.tmp"), "garbage: an interrupted chunk write");
  EXPECT_EQ(slurp(dir / "models" / "gen-0099.model.tmp"), "garbage: an interrupted model write");
  ASSERT_FALSE(chunks.empty());
  EXPECT_LT(*selfplay::parseChunkFileName(chunks.back().filename().string()), 999u);
  // All four iterations trained (10 steps each) into the candidate.
  EXPECT_EQ(MicroTrainer().checkpointStep(dir / "candidate.ckpt"), 40);
  // The self-play phase the kill cut in two is logged after the resume as not complete (its
  // rate misses the games played before the kill); the other three are complete.
  int whole = 0, partial = 0;
  for (const auto& l : lines(dir / "metrics.jsonl")) {
    const json j = json::parse(l);
    if (j.at("event") == "selfplay") ++(j.at("complete").get<bool>() ? whole : partial);
  }
  EXPECT_EQ(partial, linesAtKill.size() % 12 ? 1 : 0);
  EXPECT_EQ(whole + partial, 4);
  fs::remove_all(root);
}

TEST(TrainE2E, DamagedRunFileStopsTheResumeAndTouchesNothing) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  const CmdResult first = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  const fs::path ckpt = dir / "candidate.ckpt";
  const std::string good = slurp(ckpt);
  ASSERT_GT(good.size(), 1000u);

  struct Damage {
    std::string name;
    fs::path file;
    std::string bytes;  // empty: delete the file
  };
  std::string flipped = good;
  flipped[good.size() - 7] = char(flipped[good.size() - 7] ^ 0x40);
  std::string flippedEarly = good;
  flippedEarly[good.size() / 2] = char(flippedEarly[good.size() / 2] ^ 0x01);
  const std::string goodState = slurp(dir / "state.json");
  const std::vector<Damage> damages = {
      {"byte flipped near the end of candidate.ckpt", ckpt, flipped},
      {"byte flipped in the middle of candidate.ckpt", ckpt, flippedEarly},
      {"truncated candidate.ckpt", ckpt, good.substr(0, good.size() / 3)},
      {"candidate.ckpt replaced by junk", ckpt, "junk\n"},
      {"candidate.ckpt missing", ckpt, ""},
      {"state.json truncated", dir / "state.json", goodState.substr(0, goodState.size() / 2)},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.name);
    if (d.bytes.empty())
      fs::remove(d.file);
    else
      spit(d.file, d.bytes);
    const auto before = snapshot(dir);
    const CmdResult r =
        poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "2"}, root);
    EXPECT_NE(r.code, 0) << r.describe();
    EXPECT_LT(r.code, 124) << "crashed or hung instead of reporting the damage:\n" << r.describe();
    EXPECT_NE(r.err.find(d.file.string()), std::string::npos) << "the error does not name the file:\n" << r.err;
    EXPECT_EQ(r.err.find("new run"), std::string::npos) << "a damaged run was started afresh:\n" << r.err;
    expectUntouched(before, snapshot(dir), d.name);
    if (d.file == ckpt) {  // the error shows the way out
      EXPECT_NE(r.err.find("--restart-candidate"), std::string::npos) << r.err;
    }
    // Restore for the next case.
    spit(ckpt, good);
    spit(dir / "state.json", goodState);
  }
  // Repaired, the run resumes and finishes its second iteration.
  const CmdResult ok =
      poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "2"}, root);
  ASSERT_EQ(ok.code, 0) << ok.describe();
  EXPECT_NE(ok.err.find("resuming"), std::string::npos);
  EXPECT_EQ(readJson(dir / "state.json").at("iteration"), 2);

  // A damaged checkpoint with --restart-candidate: kept aside, the candidate starts again from
  // the best model, and the run goes on.
  spit(ckpt, "junk\n");
  const CmdResult restarted = poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations",
                                     "3", "--restart-candidate"},
                                    root);
  ASSERT_EQ(restarted.code, 0) << restarted.describe();
  EXPECT_EQ(slurp(dir / "candidate.ckpt.damaged"), "junk\n");
  EXPECT_NE(restarted.err.find("restarted the candidate from"), std::string::npos) << restarted.err;
  EXPECT_EQ(readJson(dir / "state.json").at("iteration"), 3);
  EXPECT_GT(slurp(ckpt).size(), 1000u);
  fs::remove_all(root);
}

TEST(TrainE2E, ChunksWithoutRecordsAreMovedAsideNeverDeleted) {
  // games.jsonl lost its last lines, and a stray chunk sits in replay/: on resume neither kind
  // is trained on, and none is deleted.
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  const CmdResult first = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  auto recordLines = lines(dir / "games.jsonl");
  ASSERT_EQ(recordLines.size(), 8u);
  recordLines.resize(5);  // the records of the last three games are lost
  std::string kept;
  for (const auto& l : recordLines) kept += l + "\n";
  spit(dir / "games.jsonl", kept);
  const auto chunks = chunkFiles(dir);
  ASSERT_EQ(chunks.size(), 8u);
  fs::copy_file(chunks[0], dir / "replay" / "chunk-000000999.rpl");
  std::map<std::string, std::string> unrecorded;  // file name -> bytes
  for (size_t i = 5; i < chunks.size(); ++i) unrecorded[chunks[i].filename().string()] = slurp(chunks[i]);
  unrecorded["chunk-000000999.rpl"] = slurp(chunks[0]);

  const CmdResult r =
      poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "2"}, root, 120);
  ASSERT_EQ(r.code, 0) << r.describe();
  for (const auto& [name, bytes] : unrecorded) {
    EXPECT_EQ(slurp(dir / "replay-unrecorded" / name), bytes) << name << " was not kept aside";
    EXPECT_NE(r.err.find("moved " + (dir / "replay" / name).string()), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "replay" / "chunk-000000999.rpl"));
  // The run went on with five games counted and eight more played, each with its chunk.
  EXPECT_EQ(readJson(dir / "state.json").at("total_games"), 13);
  EXPECT_EQ(lines(dir / "games.jsonl").size(), 13u);
  EXPECT_EQ(chunkFiles(dir).size(), 13u);
  fs::remove_all(root);
}

TEST(TrainE2E, ASecondTrainerOnTheRunDirectoryIsRefusedAtOnce) {
  // This test process holds the directory as a running trainer would: `poppy train` must
  // refuse before writing anything, naming the holder; once released, the run starts.
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  fs::create_directories(dir);
  {
    const common::DirectoryLock held(dir.string());
    const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
    EXPECT_NE(r.code, 0) << r.describe();
    EXPECT_LT(r.code, 124) << r.describe();
    EXPECT_NE(r.err.find("in use by pid " + std::to_string(::getpid())), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(dir.string()), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "state.json"));
    EXPECT_FALSE(fs::exists(dir / "models"));
  }
  const CmdResult ok = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(ok.code, 0) << ok.describe();
  EXPECT_TRUE(fs::exists(dir / "state.json"));

  // Limits are totals over the run: one already reached says so instead of "run again".
  const CmdResult past = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(past.code, 0) << past.describe();
  EXPECT_NE(past.err.find("the run has done 1 iterations in all, limit 1"), std::string::npos) << past.err;
  // A negative limit is a usage error, not "no limit".
  for (const char* bad : {"--hours", "--iterations"}) {
    const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string(), bad, "-1"}, root);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.describe();
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  }
  fs::remove_all(root);
}

TEST(TrainE2E, RefusedResumeKeepsTheRunsOwnConfig) {
  // Issue 39 (2): a resume with a config for another network shape is refused, naming both
  // networks and the config, even with --restart-candidate (which once wrote a 16-channel header
  // over 8-channel weights); config.yaml keeps describing the run as it was trained.
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", wider = root / "wider.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  spit(wider, tinyConfig(2, 8, 8, 16, /*channels=*/16));
  const CmdResult first = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  const auto before = snapshot(dir);
  for (const bool restart : {false, true}) {
    SCOPED_TRACE(restart ? "with --restart-candidate" : "plain resume");
    std::vector<std::string> args = {"train", "--config", wider.string(), "--run-dir", dir.string()};
    if (restart) args.push_back("--restart-candidate");
    const CmdResult r = poppy(args, root);
    EXPECT_EQ(r.code, 2) << r.describe();
    EXPECT_NE(r.err.find("1 blocks x 8 channels"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 blocks x 16 channels"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(wider.string()), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir / "config.yaml"), slurp(config)) << "the refused config replaced the run's config.yaml";
    expectUntouched(before, snapshot(dir), "refused resume with a 16-channel config");
  }
  // The run's own config still resumes it.
  const CmdResult ok = poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "2"}, root);
  ASSERT_EQ(ok.code, 0) << ok.describe();
  fs::remove_all(root);
}

// Issue 39 (1): a run directory that lost its state.json is not a new run: starting one would
// overwrite generation 0 and the candidate and append to the old records.
TEST(TrainE2E, RunWithoutStateJsonIsRefusedNotOverwritten) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  const CmdResult first = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  fs::remove(dir / "state.json");
  const auto before = snapshot(dir);
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "2"}, root);
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_NE(r.err.find(dir.string() + " has no state.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("candidate.ckpt"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("new run"), std::string::npos) << r.err;
  expectUntouched(before, snapshot(dir), "run without state.json");
  // A directory holding only what is not a run's (here an empty replay/) still starts a run.
  const fs::path empty = root / "empty";
  fs::create_directories(empty / "replay");
  const CmdResult fresh = poppy({"train", "--config", config.string(), "--run-dir", empty.string()}, root);
  ASSERT_EQ(fresh.code, 0) << fresh.describe();
  EXPECT_NE(fresh.err.find("new run"), std::string::npos) << fresh.err;
  fs::remove_all(root);
}

// The soak's damage phase (issue 39): a `best` file that names a model the run does not have is
// rewritten to state.json's best on resume, with a warning, not left stale.
TEST(TrainE2E, StaleBestFileIsRewrittenOnResume) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  ASSERT_EQ(poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root).code, 0);
  const std::string best = slurp(dir / "best");
  ASSERT_TRUE(fs::exists(dir / "models" / (best.substr(0, best.find('\n')) + ".model"))) << best;
  spit(dir / "best", "gen-9999\n");
  const CmdResult r = poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "1"}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("named 'gen-9999', but state.json's best model is"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "best"), best);
  fs::remove_all(root);
}

// Issue 39 (3): a run moved without replay/ (docs/commands/train.md "poppy train") goes on numbering its games
// after the newest one in games.jsonl: ids, chunk names and exported records stay unique.
TEST(TrainE2E, RunMovedWithoutReplayKeepsItsGameIdsUnique) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run", moved = root / "moved";
  spit(config, tinyConfig(1));
  const CmdResult first = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  fs::create_directories(moved);
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "replay") fs::copy(e.path(), moved / e.path().filename(), fs::copy_options::recursive);
  const CmdResult r =
      poppy({"train", "--config", config.string(), "--run-dir", moved.string(), "--iterations", "2"}, root, 120);
  ASSERT_EQ(r.code, 0) << r.describe();
  const auto recs = records(moved);
  ASSERT_EQ(recs.size(), 16u);
  std::set<std::string> ids;
  for (const auto& rec : recs) ids.insert(rec.id);
  EXPECT_EQ(ids.size(), 16u) << "game ids repeat after the move";
  const auto chunks = chunkFiles(moved);
  ASSERT_EQ(chunks.size(), 8u);
  EXPECT_EQ(chunks.front().filename().string(), selfplay::chunkFileName(8));
  fs::remove_all(root);
}

// Issue 47 (2): --init-model starts a new run from a model's weights and step (a run continued on
// another machine); a model of another variant or shape, or a broken file, is refused before the
// run directory exists.
TEST(TrainE2E, InitModelStartsANewRunFromItsWeightsAndRefusesMisfits) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  auto writeModel = [&](const std::string& variantName, int channels, const fs::path& file) {
    const game::VariantPtr v = game::loadVariant(variantName);
    const nn::Encoder encoder(v);
    nn::ModelInfo info;
    info.variant = v->name;
    info.rules = v->fingerprint;
    info.encoderVersion = nn::Encoder::kVersion;
    info.shape = nn::networkShapeFor(encoder, 1, channels, 8);
    info.step = 1234;
    info.id = "kept";
    torch::manual_seed(99);
    nn::PolicyValueNet net(info.shape);
    nn::saveModel(file.string(), net, info);
  };
  const fs::path kept = root / "kept.model", wide = root / "wide.model", mini = root / "mini.model",
                 junk = root / "junk.model", narrow = root / "narrow.model";
  writeModel("micro", 8, kept);
  writeModel("micro", 16, wide);
  writeModel("micro", 4, narrow);
  writeModel("minishogi", 8, mini);
  spit(junk, "POPPYNET 2\nnot a header\n");
  struct Misfit {
    fs::path model;
    std::vector<std::string> said;  // each must appear in the error
  };
  const std::vector<Misfit> misfits = {
      {wide, {wide.string(), "1 blocks x 16 channels", "1 blocks x 8 channels", config.string()}},
      {mini, {mini.string(), "minishogi", "micro"}},
      {junk, {junk.string()}},
      {root / "absent.model", {(root / "absent.model").string(), "no such file"}},
      {narrow, {narrow.string(), "1 blocks x 4 channels", "add --grow"}},
  };
  for (const Misfit& m : misfits) {
    SCOPED_TRACE(m.model.string());
    const CmdResult r =
        poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--init-model", m.model.string()}, root);
    EXPECT_EQ(r.code, 2) << r.describe();
    for (const std::string& s : m.said) EXPECT_NE(r.err.find(s), std::string::npos) << s << " not in: " << r.err;
    EXPECT_FALSE(fs::exists(dir)) << "the run directory was created for a refused model";
  }

  // --grow takes a smaller network but not a larger one.
  const CmdResult shrink = poppy(
      {"train", "--config", config.string(), "--run-dir", dir.string(), "--init-model", wide.string(), "--grow"}, root);
  EXPECT_EQ(shrink.code, 2) << shrink.describe();
  EXPECT_NE(shrink.err.find("cannot make one into the other"), std::string::npos) << shrink.err;
  EXPECT_FALSE(fs::exists(dir));

  const CmdResult r =
      poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--init-model", kept.string()}, root);
  ASSERT_EQ(r.code, 0) << r.describe();
  EXPECT_NE(r.err.find("from " + kept.string() + " (step 1234)"), std::string::npos) << r.err;
  // Generation 0 is the kept model's weights and step; the candidate trained on from there.
  const auto gen0 = nn::readModelFile((dir / "models" / "gen-0000.model").string(), true);
  EXPECT_EQ(gen0.info.step, 1234);
  EXPECT_TRUE(gen0.payload == nn::readModelFile(kept.string(), true).payload) << "generation 0 is not the model's weights";
  const MicroTrainer mt;
  EXPECT_EQ(mt.checkpointStep(dir / "candidate.ckpt"), 1234 + 10);
  // Run again, the same command resumes the run and says the model is not used.
  const CmdResult again = poppy({"train", "--config", config.string(), "--run-dir", dir.string(), "--iterations", "2",
                                 "--init-model", kept.string()},
                                root);
  ASSERT_EQ(again.code, 0) << again.describe();
  EXPECT_NE(again.err.find("resuming"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("not used"), std::string::npos) << again.err;

  // Issue 47 (3d): --grow starts a run of the configured (larger) network from a smaller model:
  // generation 0 has the configured shape and the model's step, and plays as the model does
  // (nn/network_growth.h; the outputs themselves are compared in test_nn_growth).
  const fs::path grown = root / "grown";
  const CmdResult g = poppy(
      {"train", "--config", config.string(), "--run-dir", grown.string(), "--init-model", narrow.string(), "--grow"},
      root);
  ASSERT_EQ(g.code, 0) << g.describe();
  EXPECT_NE(g.err.find("grew " + narrow.string()), std::string::npos) << g.err;
  const auto grownGen0 = nn::readModelFile((grown / "models" / "gen-0000.model").string(), true);
  EXPECT_EQ(grownGen0.info.step, 1234);
  EXPECT_EQ(grownGen0.info.shape.channels, 8);
  EXPECT_EQ(grownGen0.info.shape.blocks, 1);
  fs::remove_all(root);
}

// Issue 16 (8): a run records its variant's rules fingerprint in state.json, its models and its
// chunks; resuming it with an edited micro.yaml (same name, other rules) is refused, naming both
// fingerprints, before anything is written.
TEST(TrainE2E, ResumeWithEditedRulesIsRefused) {
  const fs::path root = testRoot();
  const fs::path config = root / "tiny.yaml", editedConfig = root / "edited.yaml", dir = root / "run";
  spit(config, tinyConfig(1));
  std::string yaml = slurp(fs::path(POPPY_SOURCE_DIR) / "configs/variants/micro.yaml");
  const size_t at = yaml.find("count: 4");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, 8, "count: 3");  // repetition draws one occurrence earlier; still named micro
  const fs::path editedMicro = root / "micro.yaml";
  spit(editedMicro, yaml);
  std::string edited = tinyConfig(2);
  edited.replace(edited.find("variant: micro"), 14, "variant: " + editedMicro.string());
  spit(editedConfig, edited);

  const CmdResult first = poppy({"train", "--config", config.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  const std::string rules = game::fingerprintHex(microRules()->fingerprint);
  EXPECT_EQ(readJson(dir / "state.json").at("rules"), rules);
  EXPECT_EQ(nn::readModelInfo((dir / "models" / "gen-0000.model").string()).rules, microRules()->fingerprint);
  const auto chunks = chunkFiles(dir);
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(selfplay::readReplayChunkHeader(chunks.front().string()).info.rules, microRules()->fingerprint);

  const auto before = snapshot(dir);
  const CmdResult r = poppy({"train", "--config", editedConfig.string(), "--run-dir", dir.string()}, root);
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_NE(r.err.find(rules), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(game::fingerprintHex(game::loadVariantFile(editedMicro.string())->fingerprint)), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(editedMicro.string()), std::string::npos) << r.err;
  expectUntouched(before, snapshot(dir), "refused resume with edited rules");
  fs::remove_all(root);
}

TEST(TrainE2E, ConfigWithUnknownKeyIsRefusedBeforeAnythingIsWritten) {
  const fs::path root = testRoot();
  const fs::path bad = root / "bad.yaml", dir = root / "run";
  // An unknown nested key.
  std::string yaml = tinyConfig(1);
  yaml.replace(yaml.find("batch_size"), 10, "batch_sise");
  spit(bad, yaml);
  const CmdResult r = poppy({"train", "--config", bad.string(), "--run-dir", dir.string()}, root);
  EXPECT_EQ(r.code, 2) << r.describe();
  EXPECT_NE(r.err.find(bad.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("training.batch_sise"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir)) << "the run directory was created for a refused config";

  // An unknown top-level key, against an existing run: nothing in it changes.
  const fs::path good = root / "good.yaml";
  spit(good, tinyConfig(1));
  const CmdResult first = poppy({"train", "--config", good.string(), "--run-dir", dir.string()}, root);
  ASSERT_EQ(first.code, 0) << first.describe();
  spit(bad, tinyConfig(2) + "learning_rate: 0.1\n");
  const auto before = snapshot(dir);
  const CmdResult r2 = poppy({"train", "--config", bad.string(), "--run-dir", dir.string()}, root);
  EXPECT_EQ(r2.code, 2) << r2.describe();
  EXPECT_NE(r2.err.find(bad.string()), std::string::npos) << r2.err;
  EXPECT_NE(r2.err.find("learning_rate"), std::string::npos) << r2.err;
  const auto after = snapshot(dir);
  expectUntouched(before, after, "refused config");
  EXPECT_TRUE(after.at("config.yaml").mtime == before.at("config.yaml").mtime) << "config.yaml was rewritten";
  fs::remove_all(root);
}

}  // namespace
