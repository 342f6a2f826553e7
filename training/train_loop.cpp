#include "training/train_loop.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>

#include "common/atomic_file.h"
#include "common/generation_name.h"
#include "common/run_lock.h"
#include "common/stop_signal.h"
#include "game/rules_fingerprint.h"
#include "game/variant_loader.h"
#include "nn/board_mirror.h"
#include "nn/compute_threads.h"
#include "nn/encoder.h"
#include "nn/load_evaluator.h"
#include "nn/model_file.h"
#include "nn/network_growth.h"
#include "nn/torch_evaluator.h"
#include "selfplay/chunk_info.h"
#include "selfplay/replay_window.h"
#include "selfplay/selfplay_runner.h"
#include "training/checkpoint.h"
#include "training/fed_games.h"
#include "training/gate.h"
#include "training/local_game_feed.h"
#include "training/run_directory_checks.h"
#include "training/run_log.h"
#include "training/run_state.h"
#include "training/selfplay_phase.h"
#include "training/train_phase.h"
#include "training/trainer.h"

namespace poppy::training {
namespace fs = std::filesystem;
namespace {

// The first Ctrl-C asks for a clean stop (state saved); a second one ends the process at once
// (common/stop_signal.h).
bool stopRequested() { return common::StopOnSignal::requested(); }

using common::generationName;

class Run {
 public:
  Run(const TrainRunConfig& config, const TrainOptions& options)
      : config_(config),
        options_(options),
        dir_(options.runDir),
        log_((dir_ / "metrics.jsonl").string(), (dir_ / "train.log").string(), options.quiet),
        variant_(game::loadVariant(config.variant)),
        encoder_(variant_),
        device_(nn::parseDevice(config.device)),
        feed_(options.feed) {
    if (variant_->numPlayers > 2) refuseTwoPlayerSettings();
    if (!feed_ && config_.asynchronous) {
      localFeed_ = std::make_unique<LocalGameFeed>(config_, variant_, encoder_,
                                                   [this](const std::string& model) { return loadEvaluator(model); });
      feed_ = localFeed_.get();
    }
    if (config_.mirror) {
      std::string whyNot;
      mirror_ = nn::BoardMirror::forEncoder(encoder_, &whyNot);
      if (!mirror_) throw std::invalid_argument(config_.sourcePath + ": training.mirror: " + whyNot + "; set it to false");
    }
  }

  void execute() {
    // Refusals that must come before anything is created or written in the directory.
    refuseRunWithoutState(dir_.string());
    const bool resuming = fs::exists(dir_ / "state.json");
    if (!options_.initModel.empty() && !resuming)
      checkInitModel(options_.initModel, *variant_, nn::Encoder::kVersion, shape(), config_.sourcePath, options_.grow);
    fs::create_directories(dir_);
    // One trainer per run directory: a second one would interleave games, chunks and state.
    const common::DirectoryLock lock(dir_.string());
    fs::create_directories(dir_ / "models");
    fs::create_directories(dir_ / "replay");
    openOrCreate();  // refuses a damaged or mismatched run before anything is written
    const std::string& configText = config_.settingsText;  // self-contained: any `base:` resolved
    common::writeFileAtomically((dir_ / "config.yaml").string(), configText);
    startedAt_ = nowSeconds();
    secondsBefore_ = state_.secondsTrained;
    auto timeUp = [&] {
      countTimeTrained();
      return config_.hours > 0 && state_.secondsTrained >= config_.hours * 3600;
    };
    if (feed_) startFeed(configText);
    try {
      loop(timeUp);
    } catch (const std::exception& e) {
      if (feed_) feed_->finish(config_.actorTimeout, e.what());  // no game may reach this Run once it is gone
      throw;
    } catch (...) {
      if (feed_) feed_->finish(config_.actorTimeout, "the learner failed");
      throw;
    }
    if (feed_) {
      if (feed_->distributed()) say("telling the actors the run is over");
      feed_->finish(config_.actorTimeout);
      foldFedGames();
    }
    const bool outOfTime = timeUp();
    saveState();
    // Why it stopped: limits are totals over the whole run, so a resumed run may already be past them.
    char why[256];
    if (stopRequested())
      std::snprintf(why, sizeof why, "interrupted; run again with the same --run-dir to continue");
    else if (outOfTime)
      std::snprintf(why, sizeof why, "the run has trained %.2f hours in all, limit %g (--hours or run.hours); raise it to continue",
                    state_.secondsTrained / 3600, config_.hours);
    else
      std::snprintf(why, sizeof why, "the run has done %d iterations in all, limit %d (--iterations or run.iterations); raise it to continue",
                    state_.iteration, config_.iterations);
    say("stopped at iteration " + std::to_string(state_.iteration) + " (" + state_.phase + "), " +
        std::to_string(state_.totalGames) + " games, " + std::to_string(savedSteps_) + " training steps saved, best " +
        generationName(state_.generation) + ": " + why);
  }

 private:
  template <typename TimeUp>
  void loop(const TimeUp& timeUp) {
    while (!stopRequested() && !timeUp() && (config_.iterations == 0 || state_.iteration < config_.iterations)) {
      if (state_.phase == "selfplay") {
        if (feed_) feedPhase();
        else selfplayPhase();
      }
      if (stopRequested()) break;
      if (state_.phase == "train") trainPhase();
      if (stopRequested()) break;
      if (state_.phase == "gate") gatePhase();
    }
  }

  nn::NetworkShape shape() const {
    return nn::networkShapeFor(encoder_, config_.blocks, config_.channels, config_.valueHidden, config_.auxiliaryHeads);
  }
  nn::ModelInfo infoFor(const std::string& id) const {
    nn::ModelInfo info;
    info.variant = variant_->name;
    info.rules = variant_->fingerprint;
    info.encoderVersion = nn::Encoder::kVersion;
    info.shape = shape();
    info.step = trainer_ ? trainer_->steps() : 0;
    info.id = id;
    return info;
  }
  OptimizerConfig optimizerConfig() const {
    OptimizerConfig o;
    o.learningRate = config_.learningRate;
    o.schedule = config_.lrSchedule;
    o.momentum = config_.momentum;
    o.weightDecay = config_.weightDecay;
    o.valueLossWeight = config_.valueLossWeight;
    o.replyPolicyWeight = config_.replyPolicyWeight;
    o.pliesLeftWeight = config_.pliesLeftWeight;
    return o;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string bestModelPath() const { return path("models/" + generationName(state_.generation) + ".model"); }

  void openOrCreate() {
    torch::manual_seed(config_.seed);
    trainer_ = std::make_unique<Trainer>(nn::PolicyValueNet(shape()), optimizerConfig(), device_, config_.precision,
                                         config_.memoryLayout);
    if (fs::exists(path("state.json"))) {
      try {
        state_ = RunState::fromJson(nlohmann::json::parse(common::readWholeFile(path("state.json"))));
      } catch (const std::exception& e) {
        throw std::runtime_error(path("state.json") + ": unreadable run state (" + e.what() +
                                 "); the run directory is damaged");
      }
      refuseOtherRules();
      refuseChangedNetwork(bestModelPath(), shape(), config_.sourcePath);
      if (!options_.initModel.empty())
        say("--init-model " + options_.initModel + " not used: " + dir_.string() +
            " holds a run already, resumed as it stands (--init-model starts new runs)");
      try {
        loadCheckpoint(path("candidate.ckpt"), *trainer_, variant_.get(), nn::Encoder::kVersion);
        savedSteps_ = trainer_->steps();
        if (options_.restartCandidate) say(path("candidate.ckpt") + " loads: kept (--restart-candidate not needed)");
      } catch (const CheckpointError& e) {
        if (!options_.restartCandidate)
          throw CheckpointError(std::string(e.what()) +
                                "; to go on from the best model instead (the training since its promotion is redone), "
                                "run again with --restart-candidate (the file is kept as candidate.ckpt.damaged)");
        restartCandidateFromBest(e.what());
      }
      reconcile();
      nn::readModelInfo(bestModelPath());  // fails loudly if the best model is missing or corrupt
      repairBestPointer();
      say("resuming " + dir_.string() + " at iteration " + std::to_string(state_.iteration) + " (" + state_.phase +
          "), " + std::to_string(state_.totalGames) + " games, " + std::to_string(trainer_->steps()) + " steps");
    } else {
      state_.variant = variant_->name;
      state_.rules = variant_->fingerprint;
      if (!options_.initModel.empty()) startFromModel(options_.initModel);
      nn::saveModel(bestModelPath(), trainer_->net(), infoFor(generationName(0)));
      common::writeFileAtomically(path("best"), generationName(0) + "\n");
      saveCandidate();
      saveState();
      say("new run in " + dir_.string() + ": " + variant_->name + ", " + std::to_string(config_.blocks) + " blocks x " +
          std::to_string(config_.channels) + " channels, device " + config_.device +
          (options_.initModel.empty() ? std::string(", random weights")
                                      : ", from " + options_.initModel + " (step " + std::to_string(trainer_->steps()) + ")"));
    }
    if (const std::string warning = nn::bfloat16Warning(config_.precision, device_.is_cpu()); !warning.empty())
      say("warning: " + warning);
    chunkInfo_ = selfplay::chunkInfoFor(encoder_);
    // After the newest chunk on disk and the newest game recorded: a run moved without replay/
    // must not reuse its games' ids (records and exported files are named by them).
    nextChunk_ = std::max(selfplay::nextChunkSequence(path("replay")), newestRecordedChunk_ ? *newestRecordedChunk_ + 1 : 0);
    window_ = std::make_unique<selfplay::ReplayWindow>(path("replay"), chunkInfo_, size_t(config_.window));
  }

  // `best` is a pointer for people and scripts; state.json is the truth. A `best` that names
  // another model (hand-edited, damaged, or a copy of another run's) is rewritten, and said so,
  // rather than left stale until the next promotion.
  void repairBestPointer() {
    const std::string want = generationName(state_.generation);
    std::string have;
    if (std::ifstream in(path("best")); in) std::getline(in, have);
    if (have == want) return;
    say("warning: " + path("best") + " named " + (have.empty() ? std::string("no model") : "'" + have + "'") +
        ", but state.json's best model is " + want + ": rewritten");
    common::writeFileAtomically(path("best"), want + "\n");
  }

  // A run trains one variant: resuming it with another variant file (another name, or the same
  // name with edited rules) would mix games of two games in one replay window and one network.
  void refuseOtherRules() {
    const std::string have = state_.variant.empty() ? std::string("?") : state_.variant;
    if (!state_.variant.empty() && state_.variant != variant_->name)
      throw std::runtime_error("run directory " + dir_.string() + " trains " + have + ", but the configuration's variant is " +
                               variant_->name + " (" + variant_->sourcePath + "); use another --run-dir");
    if (state_.rules && variant_->fingerprint && state_.rules != variant_->fingerprint)
      throw std::runtime_error("run directory " + dir_.string() + " trains " + have + " with rules fingerprint " +
                               game::fingerprintHex(state_.rules) + ", but " + variant_->sourcePath + " gives " +
                               variant_->name + " rules fingerprint " + game::fingerprintHex(variant_->fingerprint) +
                               ": the variant file was edited; restore it or use another --run-dir");
    // Runs started before fingerprints record them from now on (the checkpoint check has vouched for the name).
    state_.variant = variant_->name;
    state_.rules = variant_->fingerprint;
  }

  // After a kill, games.jsonl is the truth: a game counts once its record is written. A chunk
  // without a record (killed between the two) is removed, so its samples are not used twice
  // when the game is played again; counts in state.json are recomputed from the records.
  void reconcile() {
    int64_t games = 0, samples = 0;
    std::optional<uint64_t> newestRecorded;
    if (fs::exists(path("games.jsonl"))) {
      const auto file = selfplay::readGameRecordFile(path("games.jsonl"));
      for (const auto& e : file.errors) say("warning: " + e);
      for (const auto& r : file.records) {
        ++games;
        samples += r.trainedPositions();
        if (const auto seq = selfplay::parseChunkFileName(r.id + ".rpl"))
          newestRecorded = std::max(newestRecorded.value_or(0), *seq);
      }
    }
    // Only the newest chunks can lack their record (they are written just before it). Such a
    // chunk is not trained on, since its game will be played again; but it is moved aside, never
    // deleted: games.jsonl may have lost lines, or the chunk may be someone's data.
    std::vector<fs::path> unrecorded;
    for (const auto& entry : fs::directory_iterator(path("replay"))) {
      const auto seq = selfplay::parseChunkFileName(entry.path().filename().string());
      if (seq && (!newestRecorded || *seq > *newestRecorded) && games > 0) unrecorded.push_back(entry.path());
    }
    for (const fs::path& chunk : unrecorded) {
      const fs::path aside = freeName(dir_ / "replay-unrecorded" / chunk.filename());
      fs::create_directories(aside.parent_path());
      fs::rename(chunk, aside);
      say("moved " + chunk.string() + " to " + aside.string() +
          ": games.jsonl has no record of its game (the run stopped between the two, or games.jsonl lost lines); "
          "it is not trained on");
    }
    newestRecordedChunk_ = newestRecorded;
    if (games != state_.totalGames) {
      say("state.json counted " + std::to_string(state_.totalGames) + " games, games.jsonl has " + std::to_string(games) +
          ": using the records");
      state_.totalGames = games;
      state_.totalSamples = samples;
      // Lost records may reach back past this iteration's start: it then starts from what is left.
      state_.gamesAtIterationStart = std::min(state_.gamesAtIterationStart, games);
    }
  }

  // --init-model: generation 0 and the candidate are the model's weights and step (fresh
  // momentum), so a run goes on from a model kept from another run or machine.
  void startFromModel(const std::string& modelPath) {
    nn::ModelInfo info;
    nn::PolicyValueNet model = nn::loadModel(modelPath, &info, variant_.get(), nn::Encoder::kVersion);
    if (nn::sameNetwork(info.shape, shape())) {
      nn::moduleFromBytes(*trainer_->net(), nn::moduleToBytes(*model));
    } else {  // --grow (checkInitModel refused other misfits)
      trainer_->net()->to(torch::kCPU);
      nn::growNetwork(model, trainer_->net());
      say("grew " + modelPath + " (" + nn::describeNetwork(info.shape) + ") into " + nn::describeNetwork(shape()) +
          ": new blocks start as identities and new channels at zero, so generation 0 plays as the model does");
    }
    trainer_->net()->to(device_);
    trainer_->setSteps(info.step);
  }

  // --restart-candidate: the candidate becomes the best model again (weights and step, fresh
  // momentum); the checkpoint that did not load is kept aside, never deleted.
  void restartCandidateFromBest(const std::string& why) {
    nn::ModelInfo info;
    nn::PolicyValueNet best = nn::loadModel(bestModelPath(), &info, variant_.get(), nn::Encoder::kVersion);
    nn::moduleFromBytes(*trainer_->net(), nn::moduleToBytes(*best));
    trainer_->net()->to(device_);
    trainer_->setSteps(info.step);
    if (fs::exists(path("candidate.ckpt"))) {
      const fs::path aside = freeName(dir_ / "candidate.ckpt.damaged");
      fs::rename(path("candidate.ckpt"), aside);
      say("kept the damaged checkpoint as " + aside.string());
    }
    saveCandidate();
    if (state_.phase == "gate") state_.phase = "train";  // the candidate to gate is gone: train again
    state_.trainedThisIteration = false;
    saveState();
    say("restarted the candidate from " + bestModelPath() + " (step " + std::to_string(info.step) + "): " + why);
  }

  // `p`, or p.1, p.2, ... : the first name not taken.
  static fs::path freeName(const fs::path& p) {
    fs::path out = p;
    for (int i = 1; fs::exists(out); ++i) out = fs::path(p.string() + "." + std::to_string(i));
    return out;
  }

  // The time trained is brought up to date with every save, so a kill loses at most the time
  // since the last game or phase.
  void saveState() {
    if (startedAt_ > 0) countTimeTrained();  // 0: before execute() starts the clock
    common::writeFileAtomically(path("state.json"), state_.toJson().dump(2) + "\n");
  }
  void countTimeTrained() { state_.secondsTrained = secondsBefore_ + nowSeconds() - startedAt_; }
  void saveCandidate() {
    saveCheckpoint(path("candidate.ckpt"), *trainer_, infoFor("candidate"));
    savedSteps_ = trainer_->steps();
  }

  // An event of metrics.jsonl, with where the run stands.
  void metric(nlohmann::json j) {
    j["iteration"] = state_.iteration;
    j["total_games"] = state_.totalGames;
    j["step"] = trainer_->steps();
    log_.metric(std::move(j));
  }
  void say(const std::string& line) const { log_.say(line); }
  void status(const std::string& line, bool force = false) { log_.status(line, force); }

  // Self-play and gate networks, run as the config's `inference` says.
  std::unique_ptr<mcts::Evaluator> loadEvaluator(const std::string& modelPath) {
    return nn::loadEvaluator(modelPath, variant_.get(), config_.device, config_.inference, nullptr, config_.precision);
  }
  // The candidate as a separate network, so evaluation never disturbs the trainer's module.
  std::unique_ptr<mcts::Evaluator> candidateEvaluator() {
    nn::PolicyValueNet copy(shape());
    nn::moduleFromBytes(*copy, nn::moduleToBytes(*trainer_->net()));
    return nn::makeEvaluator(copy, config_.device, config_.inference, "the candidate", config_.precision);
  }

  void selfplayPhase() {
    const int wanted = config_.gamesPerIteration - int(state_.totalGames - state_.gamesAtIterationStart);
    if (wanted > 0) {
      const std::string best = bestModelPath();
      const SelfplayPhaseInputs in{variant_,
                                   encoder_,
                                   config_,
                                   wanted,
                                   wanted == config_.gamesPerIteration,
                                   generationName(state_.generation),
                                   config_.seed * 1000 + uint64_t(state_.totalGames),
                                   state_.iteration,
                                   [&] { return loadEvaluator(best); },
                                   stopRequested};
      const selfplay::ChunkInfo info = selfplay::chunkInfoFor(encoder_);
      const SelfplayPhaseOutcome out = playSelfplayPhase(
          in,
          [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
            // Saved at once: the chunk, then the record that names it (the game counts from
            // then on), then the state. A kill in between is mended on resume (reconcile()).
            selfplay::saveFinishedGame(dir_.string(), nextChunk_++, info, samples, record);
            ++state_.totalGames;
            state_.totalSamples += int64_t(samples.size());
            saveState();
          },
          log_);
      if (out.played > 0) metric(out.event);
      if (stopRequested()) return;
    }
    state_.phase = "train";
    state_.trainedThisIteration = false;
    saveState();
  }

  // --- Games from a feed (`--distributed`: training/game_feed.h) ------------------------------

  void startFeed(const std::string& configText) {
    if (state_.phase == "selfplay") feedPhase();  // a run started on one machine goes on distributed
    intake_.emplace(dir_.string(), chunkInfo_, log_);
    intake_->begin(nextChunk_, state_.generation);
    iterationStartedAt_ = nowSeconds();
    feed_->start(configText, bestModelPath(), state_.generation, [this](FedGame&& g) { intake_->take(std::move(g)); });
    if (feed_->distributed())
      say("learner: waiting for games from the actors (train_ratio " + formatNumber(config_.trainRatio) +
          ": samples trained per sample received)");
    else
      say("asynchronous self-play: " + std::to_string(config_.selfplayWorkers) + " workers play while " +
          std::to_string(config_.trainThreads) + " threads train (train_ratio " + formatNumber(config_.trainRatio) +
          ": samples trained per sample played)");
  }

  // The feed's games replace the self-play phase: the iteration goes straight to training.
  void feedPhase() {
    state_.phase = "train";
    state_.trainedThisIteration = false;
    saveState();
  }

  // Brings state_ up to date with the games the feed has saved; returns how many were new.
  int64_t foldFedGames() {
    const FedCounts now = intake_->counts();
    const int64_t newGames = now.games - folded_.games;
    if (newGames == 0) return 0;
    state_.totalGames += newGames;
    state_.totalSamples += now.samples - folded_.samples;
    folded_ = now;
    saveState();
    return newGames;
  }

  // Before each training step with a feed: waits (taking in games) until the window holds
  // min_samples and one more step keeps samples trained within train_ratio x samples received.
  // Returns false when the run is stopped meanwhile.
  bool waitForSamples(int step, bool& windowChanged) {
    const int64_t batch = config_.batchSize;
    for (;;) {
      if (foldFedGames() > 0) {
        window_->refresh();
        windowChanged = true;
      }
      const bool enough = window_->size() >= size_t(config_.minSamples) &&
                          double(trainer_->steps() + 1) * double(batch) <= config_.trainRatio * double(state_.totalSamples);
      if (enough || stopRequested()) return !stopRequested();
      if (const std::string why = feed_->failure(); !why.empty()) throw std::runtime_error("self-play stopped: " + why);
      const FeedStatus f = feed_->status();
      char line[256];
      if (feed_->distributed())
        std::snprintf(line, sizeof line,
                      "iter %d train step %d/%d: waiting for games (%lld samples received, %lld trained; %d of %d actors "
                      "playing)",
                      state_.iteration, step, config_.stepsPerIteration, (long long)state_.totalSamples,
                      (long long)(trainer_->steps() * batch), f.actorsActive, f.actors);
      else
        std::snprintf(line, sizeof line, "iter %d train step %d/%d: waiting for games (%lld samples played, %lld trained)",
                      state_.iteration, step, config_.stepsPerIteration, (long long)state_.totalSamples,
                      (long long)(trainer_->steps() * batch));
      status(line);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // The iteration's games from the feed, as the "selfplay" event a run on one machine writes.
  void feedSelfplayMetric() {
    foldFedGames();
    const FedCounts d = folded_.minus(iterationStart_);
    const double seconds = nowSeconds() - iterationStartedAt_;
    const FeedStatus f = feed_->status();
    if (d.games > 0) {
      const bool distributed = feed_->distributed();
      char line[256];
      std::snprintf(line, sizeof line,
                    "iter %d games %s: %lld in %.0fs (%.0f games/h), %.1f plies/game, %.0f%% decisive, "
                    "%lld begun by an older model",
                    state_.iteration,
                    distributed ? ("from " + std::to_string(f.actors) + " actors").c_str() : "(asynchronous)",
                    (long long)d.games, seconds, d.games * 3600.0 / seconds, double(d.plies) / d.games,
                    100.0 * d.decisive / d.games, (long long)d.stale);
      status(line, true);
      nlohmann::json event = {{"event", "selfplay"}, {"games", d.games}, {"seconds", seconds},
                              {"games_per_hour", d.games * 3600.0 / seconds}, {"avg_plies", double(d.plies) / d.games},
                              {"decisive", double(d.decisive) / d.games}, {"stale_games", d.stale}, {"complete", true}};
      if (distributed) {
        event["distributed"] = true;
        event["actors"] = f.actors;
        event["actors_active"] = f.actorsActive;
        event["refused_games"] = d.refused;
        event["bytes_received"] = f.bytesReceived;
      } else {
        event["asynchronous"] = true;
      }
      metric(event);
    }
    iterationStart_ = folded_;
    iterationStartedAt_ = nowSeconds();
  }

  static std::string formatNumber(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
  }

  // training.anneal_fraction: whether the run is in the last part of its limit (run.hours by
  // time, else run.iterations), where the learning rate is capped; said once when it starts.
  bool inFinalAnneal() const {
    const double f = config_.annealFraction;
    if (f <= 0) return false;
    if (config_.hours > 0) return state_.secondsTrained >= (1 - f) * config_.hours * 3600;
    if (config_.iterations > 0) return state_.iteration >= (1 - f) * config_.iterations;
    return false;
  }
  void applyFinalAnneal() {
    countTimeTrained();
    const bool annealing = inFinalAnneal();
    trainer_->capLearningRate(annealing ? config_.annealLearningRate : 0);
    if (annealing && !saidAnneal_) {
      char line[256];
      if (config_.hours > 0)
        std::snprintf(line, sizeof line, "iter %d: the last %.0f%% of the run's %g hours: learning rate at most %g from here",
                      state_.iteration, 100 * config_.annealFraction, config_.hours, config_.annealLearningRate);
      else
        std::snprintf(line, sizeof line, "iter %d: the last %.0f%% of the run's %d iterations: learning rate at most %g from here",
                      state_.iteration, 100 * config_.annealFraction, config_.iterations, config_.annealLearningRate);
      say(line);
    }
    saidAnneal_ = annealing;
  }

  void trainPhase() {
    const size_t added = window_->refresh();
    if (!feed_ && added > 0 && window_->size() >= size_t(config_.minSamples))
      metric(scoreFreshGames(*trainer_, *window_, encoder_, config_, added, state_.iteration, log_));
    if (!feed_ && window_->size() < size_t(config_.minSamples)) {
      say("iter " + std::to_string(state_.iteration) + " train: " + std::to_string(window_->size()) + " samples, waiting for " +
          std::to_string(config_.minSamples));
      state_.phase = "gate";
      saveState();
      return;
    }
    nn::setComputeThreads(config_.trainThreads);
    applyFinalAnneal();
    std::function<bool(int, bool&)> wait;  // with a feed only
    if (feed_) wait = [this](int step, bool& windowChanged) { return waitForSamples(step, windowChanged); };
    const TrainPhaseInputs in{*trainer_, *window_, encoder_,         config_,
                              mirror_ ? &*mirror_ : nullptr,   state_.iteration, wait,
                              stopRequested,                    [this](nlohmann::json e) { metric(std::move(e)); }};
    const TrainPhaseOutcome out = trainOnWindow(in, log_);
    if (!out.finished) return;  // stopped: the checkpoint of the previous phase stays; this phase is redone
    saveCandidate();
    metric(out.event);
    state_.trainedThisIteration = true;
    state_.phase = "gate";
    saveState();
  }

  // Four players (yonin): the settings below are two-player tools (a result from one side's
  // view, one opponent's reply); the search would drop them, so the config is refused instead.
  void refuseTwoPlayerSettings() const {
    const std::string players = variant_->name + " has " + std::to_string(variant_->numPlayers) + " players";
    auto refuse = [&](bool set, const std::string& key) {
      if (set) throw std::invalid_argument(config_.sourcePath + ": " + key + " is for two players (" + players + "); set it to 0");
    };
    refuse(config_.rootValueWeight > 0, "training.root_value_weight");
    refuse(config_.plyCapAdjudication > 0, "selfplay.ply_cap_adjudication");
    refuse(config_.repetitionContempt > 0, "selfplay.repetition_contempt");
    if (config_.gateSprt)
      throw std::invalid_argument(config_.sourcePath + ": gate.sprt is for two players (" + players +
                                  ": its gate is scored by share); remove it");
    for (const auto& [key, s] : {std::pair{std::string("selfplay"), config_.selfplaySearch},
                                 std::pair{std::string("gate"), config_.gateSearch}}) {
      refuse(s.values.solver, key + ".solver");
      refuse(s.values.leafMatePlies > 0, key + ".leaf_mate_plies");
      refuse(s.values.rootMatePlies > 0, key + ".root_mate_plies");
    }
  }

  // The actors switch to the new best at their next game; games of the old one still count.
  void publishBest() {
    intake_->published(state_.generation);
    feed_->publish(bestModelPath(), state_.generation);
  }

  void gatePhase() {
    if (feed_) feedSelfplayMetric();
    if (state_.trainedThisIteration) {
      const std::string bestName = generationName(state_.generation);
      GateVerdict verdict = promoteUngated(*variant_, bestName, config_.gateThreshold);
      if (config_.gateGames > 0) {
        nn::setComputeThreads(config_.selfplayThreads);
        auto candidate = candidateEvaluator();
        auto best = loadEvaluator(bestModelPath());
        verdict = playGate({variant_, encoder_, config_, *candidate, *best, bestName, state_.iteration}, log_);
      }
      if (verdict.promoted) {
        state_.bestElo += verdict.eloDiff;
        ++state_.generation;
        nn::saveModel(bestModelPath(), trainer_->net(), infoFor(generationName(state_.generation)));
        common::writeFileAtomically(path("best"), generationName(state_.generation) + "\n");
        if (feed_) publishBest();
        verdict.metric["new_best"] = generationName(state_.generation);
        // Elo is for two players: with more, the gate's share says how a candidate did.
        verdict.metric["best_elo"] = variant_->numPlayers > 2 ? 0.0 : state_.bestElo;
      }
      metric(verdict.metric);
    }
    ++state_.iteration;
    state_.phase = "selfplay";
    state_.gamesAtIterationStart = state_.totalGames;
    state_.trainedThisIteration = false;
    saveState();
  }

  TrainRunConfig config_;
  TrainOptions options_;
  fs::path dir_;
  RunLog log_;
  game::VariantPtr variant_;
  nn::Encoder encoder_;
  std::optional<nn::BoardMirror> mirror_;  // training.mirror: reflects half of each batch
  torch::Device device_;
  std::unique_ptr<Trainer> trainer_;
  bool saidAnneal_ = false;  // the final anneal's start was said
  std::unique_ptr<selfplay::ReplayWindow> window_;
  RunState state_;
  uint64_t nextChunk_ = 0;
  std::optional<uint64_t> newestRecordedChunk_;  // the newest game id in games.jsonl (reconcile)
  double startedAt_ = 0, secondsBefore_ = 0;  // this session's start; the run's time before it
  int64_t savedSteps_ = 0;                   // training steps in candidate.ckpt
  selfplay::ChunkInfo chunkInfo_;            // what this run's chunks hold
  // With a feed (training/game_feed.h): its games are taken in by intake_ on the feed's thread.
  GameFeed* feed_ = nullptr;
  std::optional<FedGameIntake> intake_;
  FedCounts folded_, iterationStart_;  // folded into state_; at the iteration's start
  double iterationStartedAt_ = 0;
  // selfplay.asynchronous (on one machine): the feed is a self-play thread of this process.
  // Declared after intake_, so that it stops (its thread joined) before intake_ goes.
  std::unique_ptr<LocalGameFeed> localFeed_;
};

}  // namespace

void runTraining(const TrainRunConfig& config, const TrainOptions& options) {
  const common::StopOnSignal stopOnSignal;
  Run(config, options).execute();
}

}  // namespace poppy::training
