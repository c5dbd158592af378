#pragma once
// Storage that answers reads in requests. A remote file system (Cloud Storage, S3) serves a
// file as ranged reads the size of the reader's buffer (TFRecordDataset's buffer_size,
// 256 KiB unless set), and each request waits for the store's latency, whose tail is long.
// The records one request holds arrive together: the record that starts a request waits for
// it, the rest only for their bytes. An ordered interleave waits for every file's stalls in
// turn, which is why reading such files out of order (deterministic=False) pays. Both
// clocks ask here which records start a request.

#include <cstdint>

namespace pipescope::engine {

// How many requests reading records [first, first + n) of a file starts, its records
// `record_bytes` long and its requests `request_bytes` (0: each record is a request of its
// own, as a local disk's read per record).
inline int64_t RequestsStarted(int64_t first, int64_t n, int64_t record_bytes,
                               int64_t request_bytes) {
  if (n <= 0) return 0;
  if (request_bytes <= 0 || record_bytes <= 0) return n;
  // The requests it takes to have read the first `records` records (in 128 bits: a long
  // endless read's bytes pass 2^63).
  __extension__ using Bytes = __int128;
  const auto requests_for = [&](int64_t records) {
    const Bytes bytes = static_cast<Bytes>(records) * record_bytes;
    return static_cast<int64_t>((bytes + request_bytes - 1) / request_bytes);
  };
  return requests_for(first + n) - requests_for(first);
}

}  // namespace pipescope::engine
