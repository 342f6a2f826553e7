#include "distributed/actor.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "common/atomic_file.h"
#include "common/generation_name.h"
#include "common/stop_signal.h"
#include "distributed/messages.h"
#include "game/variant_loader.h"
#include "nn/encoder.h"
#include "nn/network_backend.h"
#include "selfplay/chunk_info.h"
#include "selfplay/replay_file.h"
#include "selfplay/selfplay_pool.h"
#include "training/train_config.h"

namespace poppy::distributed {
namespace fs = std::filesystem;
namespace {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A directory of this process's own under the system's temporary directory, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "poppy-actor-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch directory like " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What the learner has said, written by the messenger's thread.
struct Inbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<std::string> config;
  std::optional<ModelMessage> model;  // the newest not yet taken
  std::optional<std::string> stop;    // "" the run is over, else why it failed
  std::atomic<bool> modelWaiting{false}, stopNow{false};
  std::atomic<bool> learnerLost{false};
  std::atomic<double> lastHeard{0};            // when the learner last said anything
  std::atomic<double> learnerTimeout{kDefaultLearnerTimeout};

  // True (and the stop set) once the learner has been silent too long.
  bool learnerSilent() {
    const double silent = nowSeconds() - lastHeard;
    if (silent <= learnerTimeout) return false;
    std::lock_guard<std::mutex> lock(mutex);
    if (!learnerLost) {
      char why[128];
      std::snprintf(why, sizeof why, "nothing heard from the learner for %.0f s: it is lost", silent);
      stop = why;
      learnerLost = true;
      stopNow = true;
    }
    return true;
  }
};

}  // namespace

void runActor(MpiSession& session, const ActorOptions& options) {
  const int rank = session.rank();
  const std::string me = "actor rank " + std::to_string(rank);
  auto say = [&](const std::string& line) {
    if (!options.quiet) std::fprintf(stderr, "%s: %s\n", me.c_str(), line.c_str());
  };
  const common::StopOnSignal stopOnSignal;  // Ctrl-C: stop after the games in hand, say goodbye
  Inbox inbox;
  Messenger messenger(
      [&](Message&& m) {
        std::lock_guard<std::mutex> lock(inbox.mutex);
        if (m.peer != 0) return;
        inbox.lastHeard = nowSeconds();
        if (m.tag == kConfig) {
          inbox.config = textOf(m.bytes);
        } else if (m.tag == kModel) {
          try {
            inbox.model = unpackModel(m.bytes, "the learner");
            inbox.modelWaiting = true;
          } catch (const MessageError& e) {
            inbox.stop = e.what();
            inbox.stopNow = true;
          }
        } else if (m.tag == kStop) {
          inbox.stop = textOf(m.bytes);
          inbox.stopNow = true;
        }
        inbox.changed.notify_all();
      },
      [&](int, const std::string& why) {
        std::lock_guard<std::mutex> lock(inbox.mutex);
        inbox.stop = "the learner is lost (" + why + ")";
        inbox.learnerLost = true;
        inbox.stopNow = true;
        inbox.changed.notify_all();
      });
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  messenger.send(0, kHello, bytesOf(std::string("{\"host\":\"") + host + "\",\"pid\":" + std::to_string(::getpid()) + "}"));

  inbox.lastHeard = nowSeconds();
  auto stopping = [&] { return inbox.stopNow || common::StopOnSignal::requested() || inbox.learnerSilent(); };
  std::string failure;  // why this actor cannot go on (sent to the learner)
  int64_t games = 0, gamesSent = 0;
  try {
    // The configuration and the first model.
    {
      std::unique_lock<std::mutex> lock(inbox.mutex);
      while (!(inbox.config && inbox.model) && !stopping())
        inbox.changed.wait_for(lock, std::chrono::milliseconds(200));
    }
    if (!stopping()) {
      const ScratchDir scratch;
      const fs::path configPath = scratch.path() / "config.yaml";
      common::writeFileAtomically(configPath.string(), *inbox.config);
      const training::TrainRunConfig config = training::loadTrainConfig(configPath.string());
      inbox.learnerTimeout = config.learnerTimeout;
      const game::VariantPtr variant = game::loadVariant(config.variant);
      const nn::Encoder encoder(variant);
      const selfplay::ChunkInfo chunkInfo = selfplay::chunkInfoFor(encoder);
      nn::setNetworkThreads(config.selfplayThreads);
      const double started = nowSeconds();
      double lastStatus = started;
      for (int incarnation = 0; !stopping(); ++incarnation) {
        ModelMessage model;
        {
          std::lock_guard<std::mutex> lock(inbox.mutex);
          model = std::move(*inbox.model);
          inbox.model.reset();
          inbox.modelWaiting = false;
        }
        const std::string name = common::generationName(model.generation);
        const std::string modelPath = (scratch.path() / (name + ".model")).string();
        common::writeFileAtomically(modelPath, textOf(model.model));
        selfplay::SelfPlaySettings settings = training::selfplaySettingsFor(config);
        settings.modelId = name;
        settings.seed = config.seed * 1000 + uint64_t(rank) * 1000003 + uint64_t(incarnation) * 7919;
        selfplay::SelfPlayPool pool(
            variant, encoder,
            [&] { return nn::loadModelEvaluator(modelPath, variant.get(), config.device, config.inference); }, settings,
            config.selfplayWorkers);
        say("playing with " + name + " (" + std::to_string(config.selfplayWorkers) + " workers, " +
            std::to_string(settings.parallelGames) + " games at once)");
        pool.play(
            INT_MAX,
            [&](std::vector<selfplay::Sample>&& samples, selfplay::GameRecord&& record) {
              const std::vector<uint8_t> chunk = selfplay::encodeReplayChunk("game " + record.id, chunkInfo, samples);
              messenger.send(0, kGame, packGame(record, chunk));
              ++games;
              ++gamesSent;
              const double now = nowSeconds();
              if (now - lastStatus >= options.statusSeconds) {
                lastStatus = now;
                char line[160];
                std::snprintf(line, sizeof line, "%lld games sent, %.0f games/h, %.1f MB sent, model %s", (long long)games,
                              games * 3600.0 / (now - started), messenger.bytesSent() / 1e6, name.c_str());
                say(line);
              }
            },
            nullptr, stopping, [&] { return !inbox.modelWaiting; });
        // Here either a new model is waiting (the games under way have finished) or the run stops.
      }
      // `scratch` goes here: the models and the config are removed.
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::string stop;
  {
    std::lock_guard<std::mutex> lock(inbox.mutex);
    if (inbox.stop) stop = *inbox.stop;
  }
  if (!failure.empty()) say("cannot go on: " + failure);
  else if (common::StopOnSignal::requested()) say("interrupted after " + std::to_string(gamesSent) + " games");
  else say("stopped after " + std::to_string(gamesSent) + " games");
  if (!inbox.learnerLost) {
    messenger.send(0, kBye, bytesOf(failure));
    if (!messenger.flush(30)) say("the learner did not take every message within 30 s");
  }
  if (!failure.empty()) throw std::runtime_error(me + ": " + failure);
  if (inbox.learnerLost) {
    session.abandon();
    throw std::runtime_error(me + ": " + stop);
  }
  if (!stop.empty()) throw std::runtime_error(me + ": the learner stopped the run: " + stop);
}

}  // namespace poppy::distributed
