// common/heap_reuse.h: large allocations come from the heap and stay there once freed.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "common/heap_reuse.h"

// The sanitizers replace malloc, and glibc's settings do not exist there: the test is for the
// ordinary build, whose allocator the `poppy` command runs on.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define POPPY_MALLOC_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define POPPY_MALLOC_REPLACED 1
#endif
#endif
#ifndef POPPY_MALLOC_REPLACED
namespace {

constexpr size_t kLarge = size_t(96) << 20;  // above glibc's 32 MB ceiling for its mmap threshold

// Allocates kLarge bytes, touches every page, and reports glibc's counts while it is held.
struct HeldAllocation {
  size_t mmappedBlocks = 0;
  size_t heapBytes = 0;  // non-mmapped space the allocator holds from the kernel
};
HeldAllocation allocateTouchAndFree() {
  char* p = static_cast<char*>(std::malloc(kLarge));
  if (!p) return {};
  std::memset(p, 1, kLarge);
  const struct mallinfo2 during = mallinfo2();
  std::free(p);
  return {during.hblks, during.arena};
}

TEST(HeapReuse, LargeAllocationsComeFromTheHeapAndStayThereWhenFreed) {
  // glibc's default, as the command had it: the block is an mmap of its own.
  EXPECT_GE(allocateTouchAndFree().mmappedBlocks, 1u);

  ASSERT_TRUE(poppy::common::keepFreedMemoryForReuse());
  const HeldAllocation held = allocateTouchAndFree();
  EXPECT_EQ(held.mmappedBlocks, 0u);
  EXPECT_GE(held.heapBytes, kLarge);
  // Freed, the memory is kept for the next allocation rather than returned to the kernel.
  EXPECT_GE(mallinfo2().arena, kLarge);
}

}  // namespace
#endif
