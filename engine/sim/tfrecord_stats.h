#pragma once
// How many records a TFRecord file holds and their bytes, for the cost model's defaults
// (records per pass, bytes per record). Counting reads the whole file, so each version of a
// file (its path, size and modification time) is read once per process: the what-if tuners
// make a cost model for every candidate they simulate, and reading imagenet_like's 21 MB of
// shards for each was 8% of its simulated tuning (`autotune --simulate`).

#include <cstdint>
#include <string>

#include "engine/io/byte_source.h"
#include "engine/io/fixed_length_record_reader.h"

namespace pipescope::sim {

struct TfRecordFileStats {
  bool readable = false;  // false: it could not be opened (not counted)
  int64_t records = 0;
  int64_t bytes = 0;
};

// Corrupt stretches are skipped, as a run with skip_corrupt would. Thread-safe.
TfRecordFileStats StatsOfTfRecordFile(const std::string& path, engine::Compression compression);
// A text file's lines as TextLineDataset reads them (records) and their bytes, read once per
// version of the file the same way. Thread-safe.
TfRecordFileStats StatsOfTextLineFile(const std::string& path, engine::Compression compression);
// A fixed-length record file's records as FixedLengthRecordDataset cuts it: from its size
// where it is uncompressed (not opened), else read once per version and cut. Errors: the
// reader's refusal of an uncompressed file (a body of no whole records), in its words; a file
// that is not there is not readable. Thread-safe.
engine::Result<TfRecordFileStats> StatsOfFixedLengthRecordFile(
    const std::string& path, const engine::FixedLengthRecordFormat& format);

}  // namespace pipescope::sim
