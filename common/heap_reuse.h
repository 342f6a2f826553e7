// The process's allocator settings for LibTorch's large tensors (called first thing in main).
#pragma once

namespace poppy::common {

// Serves every allocation, however large, from the heap, and keeps freed memory there for the
// next allocation instead of handing it back to the kernel at once.
//
// Why: a training step allocates and frees tensors of tens of megabytes (mitsugumi's policy:
// 128 positions x 128,778 logits, 66 MB, several times a step). glibc gives each allocation over
// 32 MB its own mmap and unmaps it on free, so every step page-faulted hundreds of megabytes in
// afresh: on this 2-core machine `poppy bench train --config configs/train/mitsugumi.yaml` ran
// 61-69 samples/s (a quarter of the time in the kernel) and 470-668 with these settings, for
// 1.3 GB resident instead of 0.7 (docs/commands/bench.md, "Large tensors and the allocator").
// Returns false when the allocator refused a setting (another malloc, a sanitizer's): nothing
// else changes then.
bool keepFreedMemoryForReuse();

}  // namespace poppy::common
