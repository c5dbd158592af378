#pragma once
// What the simulator charges for each op: per-element time distributions (CPU work and
// blocking waits), element sizes, filter ratios, storage (a file's open latency and the
// per-record wait), the cores, and the device's step. Defaults come from the spec
// (DefaultCostModel); `pipescope-cli calibrate` fits one to a recorded run; lessons may
// ship their own. Stored as JSON (FORMAT in cost_model_json.h).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::sim {

// splitmix64: small, fast, and the same stream on every machine (the standard library's
// distributions are not specified bit for bit).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Normal();                                                            // N(0, 1)

 private:
  uint64_t state_;
};

// A non-negative duration: its mean and coefficient of variation. cv 0 is a constant;
// otherwise log-normal, which matches the long right tail of measured op times.
struct Dist {
  double mean_ns = 0;
  double cv = 0;
  int64_t Sample(Rng& rng) const;
  bool zero() const { return mean_ns <= 0; }
};

// A Dist ready for many draws: the log-normal's parameters (two logarithms and a square
// root) computed once, for the ops' per-element costs. Draws what Dist::Sample draws.
class DistSampler {
 public:
  DistSampler() = default;
  explicit DistSampler(const Dist& d);
  int64_t Sample(Rng& rng) const;
  // The sum of n draws, drawn at once for a run of cheap calls: a log-normal with the sum's
  // mean and variance (n * mean, cv / sqrt(n)), the Fenton-Wilkinson approximation. One
  // draw for n = 1.
  int64_t SampleSum(Rng& rng, int64_t n) const;

 private:
  double mean_ns_ = 0;
  bool log_normal_ = false;
  double mu_ = 0, sigma_ = 0;
  double cv2_ = 0;
  // SampleSum's parameters by n (sigma < 0: not computed yet), for n under kKeptSums: a
  // source feeding a batch, or a map's groups of 1 to 32, ask for the same few n again and
  // again, and the logarithms are most of a draw's cost.
  struct SumParams {
    double mu = 0, sigma = -1;
  };
  static constexpr size_t kKeptSums = 1100;
  mutable std::vector<SumParams> sum_params_;
};

// CPU per byte of memcpy-like work (batching, synthetic bytes, a batch gathered row by row).
inline constexpr double kCopyNsPerByte = 0.1;

struct OpCost {
  Dist cpu;          // CPU per call (per element; per batch for a map after batch)
  Dist cpu_per_row;  // CPU per row of the element (a map's function, a batch's copy)
  Dist wait;         // blocking per element (storage answering a read; io_wait)
  Dist open_wait;    // blocking per sub-pipeline opened (an interleave's file)
  // Storage answering in requests of request_bytes (a remote file system's ranged reads):
  // a record that starts one (engine/runtime/storage_requests.h) waits request_wait besides
  // `wait`. 0 bytes: none; a local file's wait per record is all in `wait`.
  Dist request_wait;
  int64_t request_bytes = 0;
  // Bytes each call reads from the spec's disk, in files of its own (Python's read_bytes and
  // read_files, each file an access), waited for as the disk serves it (SimContext::storage);
  // 0: none.
  int64_t read_bytes = 0;
  int64_t read_files = 1;
  // A source's records are read from the spec's disk, each as a read of its bytes that goes
  // on in its file (engine::RecordsReadFromTheDisk).
  bool records_from_disk = false;
  double keep_fraction = 1;  // filters: the share of elements kept
  // The share of its CPU that holds the process's interpreter lock (Python work): no other
  // op's share under the lock runs meanwhile.
  double gil_share = 0;
  int64_t out_bytes = 0;  // bytes per row of the op's output; 0: as its input
  int64_t records = -1;   // sources: records per pass (per file inside an interleave); -1
                          // as the spec says
  // Inside an interleave of named files: each file's records, in the file list's order (the
  // element an interleave opens a file for holds its index there, shuffled or sharded);
  // empty: `records` for every file.
  std::vector<int64_t> records_by_file;
  // Worker processes (a DataLoader's, a Keras enqueuer's): one worker's start, spawn and
  // imports, as a recorded run measured it; -1: as the spec says (worker_startup).
  int64_t worker_startup_ns = -1;
};

struct CostModel {
  double cores = 2;
  double oversubscription_cost = 0.02;  // Scheduler's: per doubling of threads past the cores
  Dist step;                            // the device's training step
  // CPU the training loop spends on each step before it goes to the device (a PyTorch loop's
  // forward and backward launching kernels): on the loop's thread, competing for the cores
  // with the pipeline's threads and worker processes. 0 for a spec's step, whose cost is
  // the device's; a what-if on an imported trace sets it from the trace.
  Dist step_host;
  // Of step_host, the share that runs Python under the main process's interpreter lock: 0
  // for the engine's loop (C++), 1 for a PyTorch loop, whose Python drives every op, so a
  // pin-memory thread receiving a batch holds it up (its receipt and the loop take turns).
  double step_host_gil_share = 0;
  // The training loop's own Python between steps (the spec's train_step.loop_python: an
  // eager loop's next() on the dataset), all of it under the main process's interpreter
  // lock, after the element comes and before the step: no part of the step, so the device
  // is idle through it, as the engine's LoopPythonStep runs it.
  Dist loop_python;
  int64_t handoff_ns = 2000;  // CPU a thread spends handing an element to another thread
  // Of handoff_ns, the giving side's part where the taker waits for the element (waking
  // it; HandOffLedger): calibration fits it from the time its workers spend outside their
  // spans; -1, half, as where neither side waits.
  int64_t handoff_giver_ns = -1;
  // How late the training loop resumes after sleeping until the device is free: the
  // kernel's timer slack (50 us by default) and its wake-up. Charged to the device waits
  // only: an op's waits are fitted from spans that already include it.
  Dist timer_wake{60'000, 0.5};
  // How long after the run's start the training loop first asks for input: a real run's
  // threads, devices and first-use set-up take this long before its pipeline fills at the
  // rate its costs give (calibration fits it; the spec's defaults have none).
  int64_t startup_ns = 0;
  std::map<std::string, OpCost> ops;  // by op name ("interleave.read" for sub-pipelines)
  std::string origin;                 // "spec" or the trace it was calibrated from
  std::string file;                   // the JSON file it was loaded from (empty: none)

  const OpCost& Of(const std::string& op) const;
};

// Costs as the spec describes them (durations, latencies, bandwidths, record sizes), with
// measured typical costs for the real work functions. `cores`: this machine's budget.
engine::Result<CostModel> DefaultCostModel(const spec::PipelineSpec& spec, double cores);

}  // namespace pipescope::sim
