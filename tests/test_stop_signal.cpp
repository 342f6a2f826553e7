// common/stop_signal.h: the first SIGINT or SIGTERM under a StopOnSignal is a request to stop
// (the process lives on, the flag is set, the default action is back for a second signal), and
// the handlers in place before it come back when it goes, also through an exception.
#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>

#include "common/stop_signal.h"

namespace {

using Handler = void (*)(int);

// The handler now in place for sig, read without changing it.
Handler currentHandler(int sig) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

void customHandler(int) {}

}  // namespace

TEST(StopOnSignal, TheFirstSignalIsARequestAndPutsTheDefaultBack) {
  for (int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig);
    const poppy::common::StopOnSignal guard;
    EXPECT_FALSE(poppy::common::StopOnSignal::requested());
    ASSERT_EQ(std::raise(sig), 0);  // would end the test process without the guard
    EXPECT_TRUE(poppy::common::StopOnSignal::requested());
    EXPECT_EQ(currentHandler(sig), SIG_DFL);  // a second signal ends the process at once
  }
  // A new guard starts with no request.
  const poppy::common::StopOnSignal fresh;
  EXPECT_FALSE(poppy::common::StopOnSignal::requested());
}

TEST(StopOnSignal, ThePreviousHandlersComeBackAlsoThroughAnException) {
  const Handler oldInt = std::signal(SIGINT, customHandler);
  const Handler oldTerm = std::signal(SIGTERM, customHandler);
  {
    const poppy::common::StopOnSignal guard;
    EXPECT_NE(currentHandler(SIGINT), customHandler);
    EXPECT_NE(currentHandler(SIGTERM), customHandler);
  }
  EXPECT_EQ(currentHandler(SIGINT), customHandler);
  EXPECT_EQ(currentHandler(SIGTERM), customHandler);
  try {
    const poppy::common::StopOnSignal guard;
    throw std::runtime_error("the run failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(currentHandler(SIGINT), customHandler);
  EXPECT_EQ(currentHandler(SIGTERM), customHandler);
  std::signal(SIGINT, oldInt);
  std::signal(SIGTERM, oldTerm);
}
