#pragma once
// The spec's disk (spec::Storage) on the engine's clock: reads from every thread queue on one
// StorageQueue (storage_rules.h) and sleep until their bytes are in, as threads blocked in
// read() do. Thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "engine/core/status.h"
#include "engine/runtime/cancellation.h"
#include "engine/runtime/storage_rules.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The figures of a spec's storage: its kind's typical ones, each replaced by a figure the spec
// sets. Errors name the field.
Result<StorageFigures> StorageFiguresOf(const spec::Storage& storage);
// "hdd (10 ms an access, 160 MB/s, one read at a time)", for notes and advice.
std::string StorageDescription(const spec::Storage& storage);

// Whether a synthetic source's or file's records come from the spec's disk: the spec names
// one, and the source gives no storage of its own (a read latency or bandwidth: a remote
// store's, or figures measured for it alone). Both clocks' builders ask here.
inline bool RecordsReadFromTheDisk(bool spec_has_storage, const std::string& read_latency,
                                   const std::string& bandwidth) {
  return spec_has_storage && read_latency.empty() && bandwidth.empty();
}

// A call's files on the spec's disk: how many accesses its read_bytes cost (a Python
// function's or a native map's).
template <typename Work>
int64_t FilesReadByACall(const Work& work) {
  return std::max<int64_t>(1, work.read_files());
}
// Whether a Python call's wait, which stands for the files it loads (wait_loads_files: an
// SSD's read standing in), gives way to the spec's disk: the spec names one and the call
// reads its files from it. Both clocks' builders ask here.
inline bool FileLoadsReadTheDisk(const spec::Python& python, bool spec_has_storage) {
  return spec_has_storage && python.wait_loads_files() && python.read_bytes() > 0;
}

// The files a call of a work function reads from the spec's disk before its work: `bytes` in
// all, in `files` files (each an access of the disk).
struct CallFileRead {
  int64_t bytes = 0;
  int64_t files = 1;
};

class StorageDevice {
 public:
  explicit StorageDevice(const StorageFigures& figures)
      : queue_(figures), epoch_(std::chrono::steady_clock::now()) {}

  // Reads `bytes` of file `file` (opening `files` of them, StorageQueue::Serve); false when
  // cancelled while waiting.
  bool Read(int64_t bytes, int64_t files, uint64_t file, CancellationToken& cancellation) {
    int64_t wait_ns = 0;
    {
      std::lock_guard lock(mu_);
      const int64_t now = NowNs();
      wait_ns = queue_.Serve(now, bytes, files, file) - now;
    }
    return cancellation.SleepFor(wait_ns);
  }
  // The disk's busy share since it was made.
  double BusyFraction() const {
    std::lock_guard lock(mu_);
    const int64_t now = NowNs();
    return now > 0 ? std::min(1.0, queue_.BusyNsUntil(now) / static_cast<double>(now)) : 0;
  }
  int64_t Reads() const {
    std::lock_guard lock(mu_);
    return queue_.reads();
  }
  // Its busy time since it was made (StorageQueue::BusyNsUntil): what the trace's samples of
  // it (record::EventKind::kStorageBusy) are differences of.
  double BusyNs() const {
    std::lock_guard lock(mu_);
    return queue_.BusyNsUntil(NowNs());
  }

 private:
  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                epoch_)
        .count();
  }
  mutable std::mutex mu_;
  StorageQueue queue_;
  const std::chrono::steady_clock::time_point epoch_;
};
using StorageDevicePtr = std::shared_ptr<StorageDevice>;

}  // namespace pipescope::engine
