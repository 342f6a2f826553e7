// common/parallel_for.h: every index runs exactly once, on up to the threads asked for, and an
// exception thrown by one piece of work comes out of parallelFor after all threads stopped.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/parallel_for.h"

TEST(ParallelFor, RunsEveryIndexOnceOnTheThreadsAsked) {
  std::vector<std::atomic<int>> runs(1000);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  poppy::common::parallelFor(1000, 4, [&](int i) {
    runs[size_t(i)] += 1;
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 4u);  // never more threads than asked
  // The caller's thread is one of them: with 1,000 short pieces it takes some before the
  // helpers start, or at worst after they finish (it then finds none left, so not asserted).
}

TEST(ParallelFor, NoWorkAndMoreThreadsThanWorkAreFine) {
  int calls = 0;
  poppy::common::parallelFor(0, 8, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
  std::atomic<int> sum{0};
  poppy::common::parallelFor(3, 64, [&](int i) { sum += i + 1; });
  EXPECT_EQ(sum.load(), 6);
}

TEST(ParallelFor, AnExceptionIsRethrownAfterTheThreadsStop) {
  std::atomic<int> started{0};
  EXPECT_THROW(poppy::common::parallelFor(100, 3,
                                          [&](int i) {
                                            ++started;
                                            if (i == 5) throw std::runtime_error("piece 5 failed");
                                            // Pieces of a millisecond: the others are still at
                                            // work when piece 5 fails (about 35 ms in all).
                                            std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                          }),
               std::runtime_error);
  // The threads stop taking work after the failure: at most the pieces already taken ran.
  EXPECT_LT(started.load(), 50);
  EXPECT_GE(started.load(), 6);
}
