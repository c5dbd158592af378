#include "engine/runtime/storage_device.h"

#include "engine/core/duration.h"

namespace pipescope::engine {
namespace {

// Typical figures, not measurements of any one disk: a 7,200 rpm hard disk's random read
// (about 8.5 ms of seek and 4.2 ms of half a turn, less where its command queue reorders)
// and its sequential rate; a SATA SSD's read latency and the link's rate; an NVMe SSD's.
StorageFigures KindFigures(spec::StorageKind kind) {
  switch (kind) {
    case spec::hdd:
      return {10'000'000, 160e6, 1};
    case spec::ssd:
      return {100'000, 530e6, 32};
    case spec::nvme:
      return {80'000, 3e9, 64};
    default:
      return {0, 0, 1};
  }
}

// An NVMe drive's queues hold more, but no reader of a pipeline keeps more busy.
constexpr int64_t kMostReadsAtOnce = 1024;

}  // namespace

Result<StorageFigures> StorageFiguresOf(const spec::Storage& storage) {
  StorageFigures figures = KindFigures(storage.kind());
  if (!storage.access_time().empty()) {
    auto ns = ParseDurationNs(storage.access_time());
    if (!ns.ok()) return ns.status().WithContext("storage.access_time");
    figures.access_ns = *ns;
  }
  if (!storage.bandwidth().empty()) {
    auto bps = ParseBytesPerSecond(storage.bandwidth());
    if (!bps.ok()) return bps.status().WithContext("storage.bandwidth");
    figures.bytes_per_s = *bps;
  }
  if (storage.queue_depth() < 0 || storage.queue_depth() > kMostReadsAtOnce) {
    return InvalidArgument("storage.queue_depth: from 1 to " + std::to_string(kMostReadsAtOnce) +
                           " (0: the kind's), got " + std::to_string(storage.queue_depth()));
  }
  if (storage.queue_depth() > 0) figures.queue_depth = static_cast<int>(storage.queue_depth());
  return figures;
}

std::string StorageDescription(const spec::Storage& storage) {
  auto figures = StorageFiguresOf(storage);
  if (!figures.ok()) return "storage";
  std::string kind =
      storage.kind() == spec::no_kind ? "disk" : spec::StorageKind_Name(storage.kind());
  std::string rate = figures->bytes_per_s > 0
                         ? FormatBytes(static_cast<int64_t>(figures->bytes_per_s)) + "/s"
                         : "no bandwidth limit";
  std::string depth = figures->queue_depth == 1
                          ? "one read at a time"
                          : std::to_string(figures->queue_depth) + " reads at once";
  return kind + " (" + FormatDuration(figures->access_ns) + " an access, " + rate + ", " + depth +
         ")";
}

}  // namespace pipescope::engine
