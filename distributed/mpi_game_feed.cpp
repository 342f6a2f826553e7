#include "distributed/mpi_game_feed.h"

#include <chrono>
#include <cstdio>

#include "common/atomic_file.h"
#include "distributed/messages.h"

namespace poppy::distributed {

MpiGameFeed::MpiGameFeed(int ranks, bool quiet)
    : ranks_(ranks), quiet_(quiet), actors_(size_t(ranks), ActorState::kUnknown), helloPending_(size_t(ranks), false) {
  messenger_ = std::make_unique<Messenger>([this](Message&& m) { onMessage(std::move(m)); },
                                           [this](int peer, const std::string& why) { onPeerFailed(peer, why); });
  heartbeat_ = std::thread([this] { sayAliveUntilStopping(); });
}

MpiGameFeed::~MpiGameFeed() {
  bool stopped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped = stopping_;
  }
  if (!stopped) finish(5.0, "the learner stopped");
  heartbeat_.join();  // finish() has stopped it
  messenger_.reset();
}

void MpiGameFeed::sayAliveUntilStopping() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    for (int r = 1; r < ranks_; ++r)
      if (actors_[size_t(r)] == ActorState::kUnknown || actors_[size_t(r)] == ActorState::kPlaying)
        messenger_->send(r, kAlive, {});
    changed_.wait_for(lock, std::chrono::duration<double>(kHeartbeatSeconds), [&] { return stopping_; });
  }
}

void MpiGameFeed::say(const std::string& line) const {
  if (!quiet_) std::fprintf(stderr, "%s\n", line.c_str());
}

void MpiGameFeed::start(const std::string& configText, const std::string& modelPath, int generation,
                        const GameSink& sink) {
  const std::string model = common::readWholeFile(modelPath);
  {
    std::lock_guard<std::mutex> lock(sinkMutex_);
    sink_ = sink;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  configText_ = configText;
  modelMessage_ = packModel(generation, bytesOf(model));
  started_ = true;
  for (int r = 1; r < ranks_; ++r)
    if (helloPending_[size_t(r)]) sendModelTo(r);
}

void MpiGameFeed::sendModelTo(int peer) {
  if (actors_[size_t(peer)] != ActorState::kPlaying) {
    messenger_->send(peer, kConfig, bytesOf(configText_));
    actors_[size_t(peer)] = ActorState::kPlaying;
  }
  messenger_->send(peer, kModel, modelMessage_);
}

void MpiGameFeed::publish(const std::string& modelPath, int generation) {
  const std::string model = common::readWholeFile(modelPath);
  std::lock_guard<std::mutex> lock(mutex_);
  modelMessage_ = packModel(generation, bytesOf(model));
  for (int r = 1; r < ranks_; ++r)
    if (actors_[size_t(r)] == ActorState::kPlaying) messenger_->send(r, kModel, modelMessage_);
}

training::FeedStatus MpiGameFeed::status() const {
  training::FeedStatus s;
  std::lock_guard<std::mutex> lock(mutex_);
  for (int r = 1; r < ranks_; ++r) {
    s.actors += actors_[size_t(r)] != ActorState::kUnknown || helloPending_[size_t(r)];
    s.actorsActive += actors_[size_t(r)] == ActorState::kPlaying;
  }
  s.bytesReceived = messenger_->bytesReceived();
  return s;
}

void MpiGameFeed::onMessage(Message&& m) {
  const std::string sender = "rank " + std::to_string(m.peer);
  if (m.peer <= 0 || m.peer >= ranks_) return;
  switch (m.tag) {
    case kHello: {
      say("actor " + sender + " is up: " + textOf(m.bytes));
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) messenger_->send(m.peer, kStop, {});
      else if (started_) sendModelTo(m.peer);
      else helloPending_[size_t(m.peer)] = true;
      changed_.notify_all();
      return;
    }
    case kGame: {
      // Held through the call: once finish has cleared the sink, no call is still under way.
      std::lock_guard<std::mutex> lock(sinkMutex_);
      try {
        GameMessage g = unpackGame(m.bytes, sender);
        if (sink_) sink_(training::FedGame{std::move(g.chunk), std::move(g.record), sender});
      } catch (const MessageError& e) {
        say(std::string("warning: ") + e.what() + "; not saved");
      }
      return;
    }
    case kBye: {
      const std::string why = textOf(m.bytes);
      std::lock_guard<std::mutex> lock(mutex_);
      actors_[size_t(m.peer)] = why.empty() ? ActorState::kStopped : ActorState::kFailed;
      changed_.notify_all();
      if (!why.empty()) say("actor " + sender + " stopped with an error: " + why);
      else if (!stopping_) say("actor " + sender + " stopped");
      return;
    }
    default:
      say("warning: message with tag " + std::to_string(m.tag) + " from " + sender + " ignored");
  }
}

void MpiGameFeed::onPeerFailed(int peer, const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (peer <= 0 || peer >= ranks_ || actors_[size_t(peer)] == ActorState::kFailed) return;
  actors_[size_t(peer)] = ActorState::kFailed;
  changed_.notify_all();
  say("actor rank " + std::to_string(peer) + " is lost (" + why + "); the run goes on without it");
}

void MpiGameFeed::finish(double timeoutSeconds, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(sinkMutex_);
    sink_ = nullptr;  // no game reaches the training loop from here on
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) return;
  stopping_ = true;
  changed_.notify_all();  // the heartbeat stops
  for (int r = 1; r < ranks_; ++r)
    if (actors_[size_t(r)] != ActorState::kStopped && actors_[size_t(r)] != ActorState::kFailed)
      messenger_->send(r, kStop, bytesOf(reason));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  auto allAnswered = [&] {
    for (int r = 1; r < ranks_; ++r)
      if (actors_[size_t(r)] != ActorState::kStopped && actors_[size_t(r)] != ActorState::kFailed) return false;
    return true;
  };
  if (!changed_.wait_until(lock, deadline, allAnswered)) {
    std::string silent;
    for (int r = 1; r < ranks_; ++r)
      if (actors_[size_t(r)] != ActorState::kStopped && actors_[size_t(r)] != ActorState::kFailed)
        silent += (silent.empty() ? "" : ", ") + std::to_string(r);
    say("no goodbye within " + std::to_string(int(timeoutSeconds)) + " s from actor ranks " + silent +
        " (dead, or still finishing a move); going on without it");
  }
}

}  // namespace poppy::distributed
