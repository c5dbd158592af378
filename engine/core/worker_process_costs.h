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
// A worker that spawns imports the main module again, and torch with it, which a fork (or a
// fork server, whose server imported them once) does not: pytorch#12831's one worker on
// Windows took about half a second each epoch (200 epochs in 107 s, against 2.5 s without
// workers).
inline constexpr int64_t kSpawnedTorchWorkerStartupNs = 500'000'000;
inline constexpr int64_t kDefaultReceiveNsPerMib = 50'000;
// Keras's worker processes (a multiprocessing Pool) send each batch pickled through a pipe,
// not in shared memory as torch's tensors go: the receiver reads every byte and unpickles
// it, 2.7-2.9 ms of its CPU a MiB for batches of 16 and 64 MiB (scripts/measure-python-costs,
// 2026-12-07), against pickle.loads alone from memory above; keras#4763 and faceswap#628
// timed 2-2.4 ms a MB.
inline constexpr int64_t kDefaultPipeReceiveNsPerMib = 2'800'000;
// Receiving a batch whatever its size, measured there on 2026-12-01 (40-47 us): a message
// from a worker's multiprocessing queue and two tensors' shared-memory hand-overs (a file
// descriptor received over a socket and mapped), as torch's DataLoader passes tensors. A
// batch that costs little to fetch costs more than this to receive from a worker: the
// main process alone then loads faster (Lightning#18149, pytorch#10260).
inline constexpr int64_t kDefaultReceiveNsPerBatch = 45'000;
// A dataset sent to a worker that spawns (or starts from a fork server), per MiB of its
// pickle, measured there on 2026-12-06 with a dataset holding a 64 MiB bytearray (pickled
// as NumPy's arrays are under pickle's protocol 4: its bytes copied out, then into the
// pickle): the main process's pickling of it (ForkingPickler.dumps, 1.29-1.36 ms), and the
// rest until the worker holds it (the pipe, the worker's unpickling: 2.3-2.9 ms).
inline constexpr int64_t kDatasetPickleNsPerMib = 1'300'000;
inline constexpr int64_t kDatasetSendNsPerMib = 2'500'000;
// A dataset of many small objects costs more than its bytes: each entry of a list of
// samples (ImageFolder's, a path and a class, 66 bytes pickled), beyond its bytes' cost,
// measured there on 2026-12-06 with 200,000 of them: its pickling (387-530 ns) and the rest
// until the worker holds it (its unpickling: 50-166 ns). ImageNet's 1,281,167 samples
// cost a worker that spawns about a second before it starts (pytorch#55455: 16 s an epoch
// with 8 workers on Windows).
inline constexpr int64_t kDatasetPickleNsPerEntry = 450;
inline constexpr int64_t kDatasetSendNsPerEntry = 120;
// A pipe's buffer on Linux: a pickle larger than this holds Process.start() until the
// worker has read all but this much of it.
inline constexpr int64_t kPipeBufferBytes = 64 << 10;

}  // namespace pipescope::engine
