#pragma once
// Human-written quantities in specs: durations ("2ms", "150us", "1.5s") and rates
// ("200MB/s", "1.5GB/s"). Parsing errors say what was expected.

#include <cstdint>
#include <string_view>

#include "engine/core/status.h"

namespace pipescope::engine {

// Nanoseconds; accepts ns, us, ms, s, min (a bare number is rejected: units are required).
Result<int64_t> ParseDurationNs(std::string_view text);
// A duration a spec may leave out: empty is 0.
Result<int64_t> OptionalDurationNs(std::string_view text);
// A duration as a spec writes it, exactly: in the largest unit of which it is a whole number
// ("2s", "3125us", "40ns"), which ParseDurationNs reads back to the same nanoseconds.
std::string SpecDuration(int64_t ns);
// Bytes per second; accepts B/s, KB/s, MB/s, GB/s (powers of 1000) and KiB/s, MiB/s, GiB/s.
Result<double> ParseBytesPerSecond(std::string_view text);
// Bytes; accepts B, KB, MB, GB (powers of 1000) and KiB, MiB, GiB ("150KB"), at least 0.
Result<int64_t> ParseBytes(std::string_view text);
// A part of a run, "T0:T1", each end seconds from the run's start ("2.5") or a duration
// ("2500ms"); either may be left out ("3:" from 3 s to the end). t1_ns 0 means the end.
// The CLI's --range and the GUI's --view.
struct TimeRange {
  int64_t t0_ns = 0;
  int64_t t1_ns = 0;
};
Result<TimeRange> ParseTimeRange(std::string_view text);
// "2.5 ms", "150 us", "-3 s": the most readable unit, three significant digits.
std::string FormatDuration(int64_t ns);
// Bytes for people, in powers of 1000 as ParseBytes reads them: "1.5 TB", "2.1 GB", "640 MB",
// "12 KB", "512 B".
std::string FormatBytes(int64_t bytes);
// A point in time with the digits `resolution_ns` can tell apart, so that neighbouring axis
// ticks never read alike: ticks 1 ms apart at 2.5 s read "2.513 s" and "2.514 s", where three
// significant digits gave "2.51 s" twice. The unit follows the larger of the time and the
// resolution, so that an origin reads "0 s" among ticks a second apart.
std::string FormatTimeAt(int64_t t_ns, double resolution_ns);

}  // namespace pipescope::engine
