#include "instrumentation/record/clock.h"

#include <fstream>
#include <string>
#include <thread>

namespace pipescope::record {
namespace {

bool CpuHasInvariantTsc() {
#ifdef PIPESCOPE_HAVE_TSC
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      return line.find(" constant_tsc") != std::string::npos &&
             line.find(" nonstop_tsc") != std::string::npos;
    }
  }
#endif
  return false;
}

// One paired reading: the TSC read between two clock readings, taking the tightest of a
// few tries so that a preemption between the reads does not skew the pair.
void PairedReading(uint64_t& ticks, int64_t& ns) {
  int64_t best_gap = INT64_MAX;
  for (int i = 0; i < 16; ++i) {
    const int64_t before = NowNs();
#ifdef PIPESCOPE_HAVE_TSC
    const uint64_t t = __rdtsc();
#else
    const uint64_t t = 0;
#endif
    const int64_t after = NowNs();
    if (after - before < best_gap) {
      best_gap = after - before;
      ticks = t;
      ns = before + (after - before) / 2;
    }
  }
}

TickCalibration Measure() {
  TickCalibration c;
  c.tsc = CpuHasInvariantTsc();
  if (!c.tsc) {
    c.ref_ns = 0;
    c.ref_ticks = 0;
    return c;
  }
  uint64_t t0 = 0, t1 = 0;
  int64_t n0 = 0, n1 = 0;
  PairedReading(t0, n0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  PairedReading(t1, n1);
  if (t1 <= t0 || n1 <= n0) {  // a TSC that does not advance: do not trust it
    c.tsc = false;
    return c;
  }
  c.ref_ticks = t1;
  c.ref_ns = n1;
  c.ns_per_tick = static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0);
  return c;
}

}  // namespace

const TickCalibration& TickCalibration::Get() {
  static const TickCalibration calibration = [] {
    TickCalibration c = Measure();
    internal::g_ticks_are_tsc = c.tsc;
    return c;
  }();
  return calibration;
}

}  // namespace pipescope::record
