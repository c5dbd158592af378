#pragma once
// Human-written quantities in specs: durations ("2ms", "150us", "1.5s") and rates
// ("200MB/s", "1.5GB/s"). Parsing errors say what was expected.

#include <cstdint>
#include <string_view>

#include "engine/core/status.h"

namespace pipescope::engine {

// Nanoseconds; accepts ns, us, ms, s, min (a bare number is rejected: units are required).
Result<int64_t> ParseDurationNs(std::string_view text);
// Bytes per second; accepts B/s, KB/s, MB/s, GB/s (powers of 1000) and KiB/s, MiB/s, GiB/s.
Result<double> ParseBytesPerSecond(std::string_view text);
// "2.5 ms", "150 us", "-3 s": the most readable unit, three significant digits.
std::string FormatDuration(int64_t ns);

}  // namespace pipescope::engine
