#pragma once
// Process-wide allocator settings for running pipelines.
//
// Batches are large and short-lived (a 1024 x 96-byte batch unpacked to floats is 3 MB).
// glibc serves allocations above its mmap threshold with mmap and trims freed heap tops
// with madvise, so every such batch would fault in and zero fresh pages: measured on
// overhead.pbtxt, that halved throughput whenever other heap activity (the trace model)
// changed glibc's dynamic threshold. Raising both thresholds keeps batch memory in the heap
// for reuse, as tf.data gets from tcmalloc.

namespace pipescope::engine {

// Idempotent; called by Pipeline::Create.
void TuneAllocatorForPipelines();

}  // namespace pipescope::engine
