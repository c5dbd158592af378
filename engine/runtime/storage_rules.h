#pragma once
// One disk shared by every read of a pipeline (spec::Storage): when each read's bytes are in.
// Both clocks ask here: the engine with the steady clock under a lock, sleeping until then;
// the simulator with its virtual clock, whose reads come in time order.
//
// The disk serves `queue_depth` reads at once (a hard disk: one; flash: many). A read takes a
// free slot, pays the access time unless the slot's previous read was of the same file (a
// hard disk's head already there, its read-ahead streaming), and then its bytes pass through
// the one channel all slots share at `bandwidth`. A hard disk under many readers of small
// files is busy seeking: its reads a second are 1 / (access + bytes / bandwidth) however many
// readers wait (IntelLabs/distiller#202: ImageNet's JPEGs at ~90 a second, 22 workers idle).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/runtime/storage_requests.h"

namespace pipescope::engine {

// A reader's buffer, what one read of a file from the disk brings in: TFRecordDataset's
// buffer_size unless set (and the block the project's own readers read, byte_source.h).
// Records inside it cost no read of their own.
inline constexpr int64_t kDiskReadBytes = 256 * 1024;

// The read of the disk that records [first, first + n) of a file, `record_bytes` long, start:
// the reader's buffers they need that no earlier record brought in, and the file opened by
// its first record. `bytes` 0: they are all in a buffer read already.
struct RecordsRead {
  int64_t bytes = 0;
  int64_t files = 0;
};
inline RecordsRead DiskReadOfRecords(int64_t first, int64_t n, int64_t record_bytes) {
  const int64_t buffers = RequestsStarted(first, n, record_bytes, kDiskReadBytes);
  return {buffers * kDiskReadBytes, first == 0 ? 1 : 0};
}

struct StorageFigures {
  int64_t access_ns = 0;
  double bytes_per_s = 0;  // 0: the bytes cost nothing (only the accesses)
  int queue_depth = 1;
};

// A read of `bytes` that opens `files` files (0: it goes on in the file it names), on a disk
// of `figures` doing nothing else: each file an access, then the bytes at its bandwidth.
inline int64_t ReadAloneNs(const StorageFigures& figures, int64_t bytes, int64_t files) {
  const int64_t transfer =
      figures.bytes_per_s > 0
          ? static_cast<int64_t>(static_cast<double>(bytes) * 1e9 / figures.bytes_per_s)
          : 0;
  return files * figures.access_ns + transfer;
}

class StorageQueue {
 public:
  explicit StorageQueue(const StorageFigures& figures)
      : figures_(figures), slots_(static_cast<size_t>(std::max(1, figures.queue_depth))) {}

  // A read of `bytes` of file `file`, asked at `now_ns`, that opens `files` files (each one
  // access; 0: it goes on in the file it names): when its last byte is in.
  int64_t Serve(int64_t now_ns, int64_t bytes, int64_t files, uint64_t file) {
    Slot& slot = *std::min_element(slots_.begin(), slots_.end(), [](const Slot& a, const Slot& b) {
      return a.free_ns < b.free_ns;
    });
    const int64_t start = std::max(now_ns, slot.free_ns);
    const bool in_place = files == 0 && slot.has_file && slot.file == file;
    const int64_t accesses = in_place ? 0 : std::max<int64_t>(1, files);
    const int64_t accessed = start + accesses * figures_.access_ns;
    const int64_t transfer = ReadAloneNs(figures_, bytes, 0);
    // Bytes queue for the channel; a read of none (a file's metadata) needs only its access.
    const int64_t done = transfer > 0 ? std::max(accessed, channel_free_ns_) + transfer : accessed;
    if (transfer > 0) {
      channel_free_ns_ = done;
      KeepTransfer(now_ns, done - transfer, done);
    }
    slot = Slot{done, file, true};
    busy_ns_ += done - start;
    ++reads_;
    return done;
  }

  // The disk's busy time before `now_ns`: the larger of its slots' and its channel's. The
  // slots' is their time serving reads, summed, over queue_depth: a hard disk's, seeking, as
  // iostat's %util says for one. The channel's is its time passing bytes: flash's, whose many
  // slots are seldom all busy while the bandwidth is used up (ten readers of ImageNet's JPEGs
  // on a SATA SSD). `now_ns` is no earlier than any read asked: a slot then serves without a
  // gap from `now_ns` to its free_ns (a read asked of a free slot starts when asked), so what
  // it owes after `now_ns` is that stretch.
  double BusyNsUntil(int64_t now_ns) const {
    int64_t ahead = 0;
    for (const Slot& slot : slots_) ahead += std::max<int64_t>(0, slot.free_ns - now_ns);
    const double seeking =
        static_cast<double>(busy_ns_ - ahead) / static_cast<double>(slots_.size());
    int64_t passing = transferred_ns_;
    for (const Transfer& t : transfers_)
      passing += std::max<int64_t>(0, std::min(t.end, now_ns) - t.start);
    return std::max(seeking, static_cast<double>(passing));
  }
  int64_t reads() const { return reads_; }

 private:
  struct Slot {
    int64_t free_ns = 0;
    uint64_t file = 0;
    bool has_file = false;
  };
  struct Transfer {
    int64_t start = 0, end = 0;
  };
  // A transfer through the channel, kept until it is over by a read's `now_ns` (no later
  // than any BusyNsUntil's): then only its length counts.
  void KeepTransfer(int64_t now_ns, int64_t start, int64_t end) {
    std::erase_if(transfers_, [&](const Transfer& t) {
      if (t.end > now_ns) return false;
      transferred_ns_ += t.end - t.start;
      return true;
    });
    transfers_.push_back({start, end});
  }

  const StorageFigures figures_;
  std::vector<Slot> slots_;
  int64_t channel_free_ns_ = 0;
  std::vector<Transfer> transfers_;  // the channel's, not over by the last read's ask
  int64_t transferred_ns_ = 0;       // the channel's time in the transfers no longer kept
  int64_t busy_ns_ = 0;
  int64_t reads_ = 0;
};

}  // namespace pipescope::engine
