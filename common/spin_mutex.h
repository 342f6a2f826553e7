// A mutex for short critical sections held by a few threads, one per core: it spins a while
// (the holder is running on another core and lets go within microseconds) before it sleeps in
// the kernel like std::mutex. play::Analyzer's search threads take their tree's lock about a
// hundred thousand times a second; sleeping and waking through futex calls on each contended
// take cost more than the work under the lock (kernel time was an eighth of a two-thread search).
// Satisfies Lockable, so std::lock_guard works with it.
#pragma once
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace poppy::common {

class SpinThenBlockMutex {
 public:
  void lock() {
    for (int i = 0; i < kSpins; ++i) {
      if (mutex_.try_lock()) return;
      relax();
    }
    mutex_.lock();
  }
  bool try_lock() { return mutex_.try_lock(); }
  void unlock() { mutex_.unlock(); }

 private:
  static constexpr int kSpins = 2000;  // a few microseconds to some tens
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
  }
  std::mutex mutex_;
};

}  // namespace poppy::common
