// Runs fn(0) .. fn(count - 1) on up to `threads` threads (the caller's among them) and returns
// when all are done. For a handful of independent, coarse pieces of work, such as the rollout
// searches of a match's games: a thread takes the next index when it is free. The first
// exception thrown is rethrown here, after every thread has stopped.
#pragma once
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace poppy::common {

// The hardware's threads (at least 1).
inline int hardwareThreads() { return std::max(1, int(std::thread::hardware_concurrency())); }

template <typename Fn>
void parallelFor(int count, int threads, Fn&& fn) {
  std::atomic<int> next{0};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto work = [&] {
    for (int i; (i = next.fetch_add(1)) < count;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error) error = std::current_exception();
        next = count;  // the others stop after their current piece
      }
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < std::min(threads, count); ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace poppy::common
