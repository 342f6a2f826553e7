#include "common/stop_signal.h"

#include <atomic>
#include <csignal>

namespace poppy::common {
namespace {

// Lock-free, so a signal handler may set it.
std::atomic<bool> gRequested{false};

void onSignal(int sig) {
  gRequested = true;
  std::signal(sig, SIG_DFL);
}

}  // namespace

StopOnSignal::StopOnSignal() {
  gRequested = false;
  oldInt_ = std::signal(SIGINT, onSignal);
  oldTerm_ = std::signal(SIGTERM, onSignal);
}

StopOnSignal::~StopOnSignal() {
  std::signal(SIGINT, oldInt_);
  std::signal(SIGTERM, oldTerm_);
}

bool StopOnSignal::requested() { return gRequested.load(); }

}  // namespace poppy::common
