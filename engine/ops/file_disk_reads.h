#pragma once
// The disk reads of a real file's records, on the spec's disk where it names one: the
// reader's buffers a record needs that none before it in the file brought in, a buffer
// (kDiskReadBytes) at a time, the file's first read opening it. The simulator's rule
// (DiskReadOfRecords) on the records' own sizes, for every file format a source reads; the
// framing a format adds around records (a TFRecord's 16 bytes) is left out as the simulator
// leaves it out.

#include <cstdint>
#include <functional>
#include <string>

#include "engine/runtime/storage_device.h"
#include "engine/runtime/storage_rules.h"

namespace pipescope::engine {

class FileDiskReads {
 public:
  explicit FileDiskReads(StorageDevicePtr storage) : storage_(std::move(storage)) {}

  // A new file is being read from its start.
  void Open(const std::string& path) {
    file_bytes_ = 0;
    file_ = std::hash<std::string>{}(path);
  }

  // The next record, `payload` bytes, read from the disk (waiting for it). False when
  // cancelled while waiting.
  bool Read(int64_t payload, CancellationToken& cancellation) {
    if (!storage_) return true;
    const int64_t before = file_bytes_;
    file_bytes_ += payload;
    const auto buffers = [](int64_t bytes) {
      return (bytes + kDiskReadBytes - 1) / kDiskReadBytes;
    };
    const int64_t needed = buffers(file_bytes_) - buffers(before);
    if (needed == 0) return true;
    return storage_->Read(needed * kDiskReadBytes, before == 0 ? 1 : 0, file_, cancellation);
  }

 private:
  const StorageDevicePtr storage_;
  int64_t file_bytes_ = 0;  // of the file being read, through the last record given
  uint64_t file_ = 0;       // which file the disk reads, for a read that goes on in it
};

}  // namespace pipescope::engine
