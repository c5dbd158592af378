#pragma once
// What a worker process costs beside its work (a DataLoader's, a Keras enqueuer's), where a
// spec leaves it out: its start, and its results' receipt by the main process. Measured on
// the project's 2-core machine by scripts/measure-python-costs; in the base, as the engine's
// rules (engine/runtime/dataloader_rules.h) and the verdict both weigh them.

#include <cstdint>

namespace pipescope::engine {

// A python3 process spawned with multiprocessing imported (85-94 ms; a user's own imports,
// torch's above all, add to it; fork is faster), and pickle.loads of a MiB (47-50 us).
inline constexpr int64_t kDefaultWorkerStartupNs = 90'000'000;
inline constexpr int64_t kDefaultReceiveNsPerMib = 50'000;
// Receiving a batch whatever its size, measured there on 2026-12-01 (40-47 us): a message
// from a worker's multiprocessing queue and two tensors' shared-memory hand-overs (a file
// descriptor received over a socket and mapped), as torch's DataLoader passes tensors. A
// batch that costs little to fetch costs more than this to receive from a worker: the
// main process alone then loads faster (Lightning#18149, pytorch#10260).
inline constexpr int64_t kDefaultReceiveNsPerBatch = 45'000;

}  // namespace pipescope::engine
