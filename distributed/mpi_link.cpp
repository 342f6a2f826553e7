#include "distributed/mpi_link.h"

#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <list>
#include <stdexcept>
#include <thread>

namespace poppy::distributed {
namespace {

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, size_t(length));
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error("this MPI gives threading level " + std::to_string(provided) +
                             ", below MPI_THREAD_SERIALIZED, which --distributed needs");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (abandoned_) return;
  // Open MPI 4.1's MPI_Finalize ends with a fence over every process of the job. Under
  // --enable-recovery a process that died never joins it, and the others, their work done and
  // saved, would wait for ever (the killed-actor test hung so about one run in three). So a
  // deadline: past it the process leaves without MPI_Finalize, and mpirun sees the job end.
  const int code = std::uncaught_exceptions() > 0 ? 1 : 0;
  std::thread([code] {
    std::this_thread::sleep_for(std::chrono::duration<double>(kFinalizeSeconds));
    std::fprintf(stderr, "poppy: MPI_Finalize did not return within %.0f s (a process of the job has died?); "
                 "leaving without it\n", kFinalizeSeconds);
    std::fflush(nullptr);
    std::_Exit(code);
  }).detach();
  MPI_Finalize();
}

struct Messenger::InFlight {
  MPI_Request request = MPI_REQUEST_NULL;
  Message message;
};

Messenger::Messenger(MessageHandler onMessage, FailureHandler onPeerFailed)
    : onMessage_(std::move(onMessage)), onPeerFailed_(std::move(onPeerFailed)) {
  thread_ = std::thread([this] { run(); });
}

Messenger::~Messenger() {
  stopping_ = true;
  thread_.join();
}

void Messenger::send(int peer, int tag, std::vector<uint8_t> bytes) {
  if (bytes.size() > size_t(INT_MAX)) throw std::invalid_argument("message of " + std::to_string(bytes.size()) + " bytes: over MPI's int count");
  std::lock_guard<std::mutex> lock(mutex_);
  outbox_.push_back(Message{peer, tag, std::move(bytes)});
  ++pending_;
}

bool Messenger::flush(double seconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return pending_ == 0; });
}

void Messenger::run() {
  std::list<InFlight> inFlight;
  auto finished = [&](int count) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ -= count;
    if (pending_ == 0) idle_.notify_all();
  };
  while (!stopping_) {
    bool busy = false;
    std::deque<Message> starting;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      starting.swap(outbox_);
    }
    for (Message& m : starting) {
      inFlight.emplace_back();
      InFlight& f = inFlight.back();
      f.message = std::move(m);
      const int rc = MPI_Isend(f.message.bytes.data(), int(f.message.bytes.size()), MPI_BYTE, f.message.peer,
                               f.message.tag, MPI_COMM_WORLD, &f.request);
      if (rc != MPI_SUCCESS) {
        onPeerFailed_(f.message.peer, mpiErrorText(rc));
        inFlight.pop_back();
        finished(1);
      }
      busy = true;
    }
    for (auto it = inFlight.begin(); it != inFlight.end();) {
      int done = 0;
      const int rc = MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) onPeerFailed_(it->message.peer, mpiErrorText(rc));
      if (rc != MPI_SUCCESS || done) {
        if (rc == MPI_SUCCESS) bytesSent_ += int64_t(it->message.bytes.size());
        it = inFlight.erase(it);
        finished(1);
        busy = true;
      } else {
        ++it;
      }
    }
    for (;;) {
      int flag = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS || !flag) break;
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      Message m;
      m.peer = status.MPI_SOURCE;
      m.tag = status.MPI_TAG;
      m.bytes.resize(size_t(count));
      const int rc = MPI_Recv(m.bytes.data(), count, MPI_BYTE, m.peer, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        onPeerFailed_(m.peer, mpiErrorText(rc));
        break;
      }
      bytesReceived_ += count;
      onMessage_(std::move(m));
      busy = true;
    }
    if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Abandoned sends (their peers are gone or not listening): MPI may still read their buffers
  // until it lets go of the requests, so those stay allocated for the rest of the process.
  if (!inFlight.empty()) {
    const int count = int(inFlight.size());
    for (InFlight& f : inFlight) MPI_Request_free(&f.request);
    (void)new std::list<InFlight>(std::move(inFlight));  // deliberately never freed
    finished(count);
  }
}

std::vector<uint8_t> bytesOf(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }
std::string textOf(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

}  // namespace poppy::distributed
