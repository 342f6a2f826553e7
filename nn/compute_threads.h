// How many CPU threads the network's arithmetic may use, set in one place for LibTorch and for
// the BLAS library under it.
#pragma once

namespace poppy::nn {

// LibTorch's intra-op threads and, where LibTorch runs on OpenBLAS (Debian's libtorch), OpenBLAS's
// own thread pool. at::set_num_threads does not reach OpenBLAS, which otherwise keeps one thread
// per core: with "1 thread" a chu-sized matrix product still ran on both cores of this machine,
// spinning in sched_yield between calls, so `bench nn` timed a two-core product as one thread
// and batch sizes jumped between 29% and 44% of it from run to run (docs/experiments/chu.md).
void setComputeThreads(int threads);

// OpenBLAS's thread count, or 0 where LibTorch does not run on OpenBLAS (MKL, a CUDA wheel).
int blasThreads();

}  // namespace poppy::nn
