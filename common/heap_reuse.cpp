#include "common/heap_reuse.h"

#include <malloc.h>

#include <climits>

namespace poppy::common {

bool keepFreedMemoryForReuse() {
  // No allocation gets its own mmap (glibc's ceiling for M_MMAP_THRESHOLD is 32 MB, below the
  // tensors in question, so the threshold alone cannot do it).
  const bool noMmap = mallopt(M_MMAP_MAX, 0) == 1;
  // Free memory at the top of the heap is returned only beyond 2 GB (the most mallopt takes).
  const bool keepTop = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  return noMmap && keepTop;
}

}  // namespace poppy::common
