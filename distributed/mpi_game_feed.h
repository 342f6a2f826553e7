// The learner's side of `poppy train --distributed` (rank 0): a training::GameFeed over MPI.
// Every other rank is an actor (distributed/actor.h). An actor says hello; the feed answers with
// the run's configuration and the current best model; the actor's finished games reach the
// training loop's sink; each new best is sent to every actor still playing. finish() sends every
// actor rank (hello or not) the stop, with the reason when the run failed, and waits for their
// goodbyes. An actor that dies is noticed when a send to it fails, or never: either way the run
// goes on with the others (what that actor had not finished is lost, nothing else). From its
// construction to finish() the feed says every kHeartbeatSeconds that the learner is alive, so
// that actors stop when the learner dies.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/mpi_link.h"
#include "training/game_feed.h"

namespace poppy::distributed {

class MpiGameFeed : public training::GameFeed {
 public:
  // `ranks`: the job's size (actors are ranks 1 to ranks - 1). quiet: no lines on stderr.
  MpiGameFeed(int ranks, bool quiet);
  ~MpiGameFeed() override;

  void start(const std::string& configText, const std::string& modelPath, int generation,
             const GameSink& sink) override;
  void publish(const std::string& modelPath, int generation) override;
  training::FeedStatus status() const override;
  void finish(double timeoutSeconds, const std::string& failure = "") override;

 private:
  enum class ActorState { kUnknown, kPlaying, kStopped, kFailed };
  void onMessage(Message&& m);
  void onPeerFailed(int peer, const std::string& why);
  void sendModelTo(int peer);  // under mutex_
  void sayAliveUntilStopping();  // the heartbeat thread
  void say(const std::string& line) const;

  const int ranks_;
  const bool quiet_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<ActorState> actors_;  // by rank (0, the learner, unused)
  std::vector<bool> helloPending_;  // said hello before start(): answered then
  bool started_ = false, stopping_ = false;
  std::string configText_;
  std::vector<uint8_t> modelMessage_;  // packModel of the current best
  std::mutex sinkMutex_;  // held while the sink runs
  GameSink sink_;         // under sinkMutex_
  std::unique_ptr<Messenger> messenger_;
  std::thread heartbeat_;  // last: stops first (finish())
};

}  // namespace poppy::distributed
