// MPI for `poppy train --distributed`: the process's MPI session and the one thread that carries
// all of its messages. Point-to-point messages only (no collectives), so that a rank that dies
// cannot block the others in a collective call; each message is a byte string with a tag.
//
// Threading: MPI is initialised with MPI_THREAD_SERIALIZED and only the Messenger's thread calls
// MPI between MpiSession's construction and destruction, so no two threads ever call it at once.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace poppy::distributed {

// What a message is. The learner is rank 0; every other rank is an actor.
enum Tag : int {
  kHello = 1,   // actor -> learner: it is up (JSON: host, pid)
  kConfig = 2,  // learner -> actor: the run configuration's YAML text
  kModel = 3,   // learner -> actor: a model to play with (distributed/messages.h)
  kGame = 4,    // actor -> learner: one finished game (distributed/messages.h)
  kStop = 5,    // learner -> actor: the run is over (empty) or failed (the reason)
  kBye = 6,     // actor -> learner: it has stopped (empty) or failed (the reason)
  kAlive = 7,   // learner -> actor: it is still there (empty; every kHeartbeatSeconds)
};

// How often the learner says it is alive. An actor that hears nothing from the learner for
// `distributed.learner_timeout` seconds (before the configuration arrives:
// kDefaultLearnerTimeout) stops: MPI does not tell a rank that another has died, and an actor
// sending games to a dead learner would otherwise play on for ever.
constexpr double kHeartbeatSeconds = 2.0;
constexpr double kDefaultLearnerTimeout = 60.0;

struct Message {
  int peer = -1;  // the sender (received) or the receiver (sent)
  int tag = 0;
  std::vector<uint8_t> bytes;
};

// MPI_Init_thread and MPI_Finalize. Errors in communication are returned, not fatal
// (MPI_ERRORS_RETURN), so that a dead peer is a failed send, not the end of this process.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // A process this one needs has died: the session ends without MPI_Finalize, whose closing
  // fence (Open MPI 4.1) may wait for the dead process for ever. mpirun then ends the job.
  void abandon() { abandoned_ = true; }
  // How long the end of the session waits in MPI_Finalize (see the destructor).
  static constexpr double kFinalizeSeconds = 30;

 private:
  int rank_ = 0, size_ = 1;
  bool abandoned_ = false;
};

// This process's messages: send() queues, a thread of its own sends, receives and hands each
// received message to `onMessage` (on that thread, one at a time). A send that fails (its peer
// died) is dropped and reported to `onPeerFailed`.
class Messenger {
 public:
  using MessageHandler = std::function<void(Message&&)>;
  using FailureHandler = std::function<void(int peer, const std::string& why)>;
  Messenger(MessageHandler onMessage, FailureHandler onPeerFailed);
  // Stops the thread; sends still in flight are abandoned (flush() first to wait for them).
  ~Messenger();
  Messenger(const Messenger&) = delete;
  Messenger& operator=(const Messenger&) = delete;

  void send(int peer, int tag, std::vector<uint8_t> bytes);
  // Waits until every queued send has completed, or `seconds` have passed; true if all did.
  bool flush(double seconds);
  int64_t bytesSent() const { return bytesSent_; }
  int64_t bytesReceived() const { return bytesReceived_; }

 private:
  struct InFlight;
  void run();

  MessageHandler onMessage_;
  FailureHandler onPeerFailed_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::deque<Message> outbox_;  // under mutex_
  int pending_ = 0;             // queued or in flight (under mutex_)
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> bytesSent_{0}, bytesReceived_{0};
  std::thread thread_;
};

std::vector<uint8_t> bytesOf(const std::string& text);
std::string textOf(const std::vector<uint8_t>& bytes);

}  // namespace poppy::distributed
