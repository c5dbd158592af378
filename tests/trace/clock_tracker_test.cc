// The alignment of CUPTI's record times to the host clock follows the clock probes: a
// conversion that drifts (as CUPTI's was seen to, 0.9 ms per second) is corrected once the
// probes span enough time, records and brackets pair in order whichever comes first, and a
// probe whose bracket was disturbed does not pull the fit.
#include "instrumentation/gpu/clock_tracker.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipescope::gpu {
namespace {

// CUPTI's record time of a moment of the host clock: 0.09% fast and 3 ms off.
uint64_t DriftingRecordTime(int64_t host_ns) {
  return static_cast<uint64_t>(static_cast<double>(host_ns) * 1.0009 + 3e6);
}

ClockAlignment StartUp() {
  ClockAlignment a;  // what the start-up readings said: the record clock is 3 ms ahead
  a.gpu_origin_ns = 3'000'000;
  return a;
}

// A probe at `host_ns`: a 10 us bracket around a 2 us copy.
void Probe(ClockTracker& t, int64_t host_ns, bool record_first = false) {
  auto record = [&] {
    t.ProbeRecorded(DriftingRecordTime(host_ns - 1'000), DriftingRecordTime(host_ns + 1'000));
  };
  if (record_first) record();
  t.ProbeIssued(host_ns - 5'000, host_ns + 5'000);
  if (!record_first) record();
}

double ErrorAt(const ClockTracker& t, int64_t host_ns) {
  return static_cast<double>(t.current().ToHostNs(DriftingRecordTime(host_ns)) - host_ns);
}

TEST(ClockTrackerTest, TheStartUpAlignmentHoldsUntilTheProbesSpanEnoughTime) {
  ClockTracker t(StartUp());
  Probe(t, 1'000'000'000);
  Probe(t, 1'010'000'000);  // 10 ms apart: too close to fit a rate
  EXPECT_EQ(t.pairs(), 2u);
  EXPECT_EQ(t.current().offset_ns, 0) << "still the start-up alignment";
  // Which at 1 s is already 0.9 ms off: what the probes are for.
  EXPECT_NEAR(ErrorAt(t, 1'000'000'000), 900'000, 1'000);
}

TEST(ClockTrackerTest, ProbesFollowAConversionThatDrifts) {
  ClockTracker t(StartUp());
  for (int64_t i = 0; i < 20; ++i) Probe(t, 1'000'000'000 + i * 200'000'000, i % 3 == 0);
  for (int64_t at : {1'000'000'000LL, 3'000'000'000LL, 4'800'000'000LL})
    EXPECT_LT(std::fabs(ErrorAt(t, at)), 2'000) << "at " << at;
  // A little beyond the newest probe the fitted rate carries on.
  EXPECT_LT(std::fabs(ErrorAt(t, 5'100'000'000)), 2'000);
  EXPECT_EQ(t.probes(), 20u);
  EXPECT_EQ(t.pairs(), 20u);
}

TEST(ClockTrackerTest, ADisturbedProbeIsLeftOut) {
  ClockTracker t(StartUp());
  for (int64_t i = 0; i < 10; ++i) {
    const int64_t host = 1'000'000'000 + i * 200'000'000;
    if (i == 5) {  // the probe thread was preempted for 1.5 ms after the copy
      t.ProbeRecorded(DriftingRecordTime(host - 1'000), DriftingRecordTime(host + 1'000));
      t.ProbeIssued(host - 5'000, host + 1'500'000);
      continue;
    }
    Probe(t, host);
  }
  EXPECT_LT(std::fabs(ErrorAt(t, 2'000'000'000)), 2'000);
}

TEST(ClockTrackerTest, TheFitWindowSlidesSoAChangedDriftIsFollowed) {
  ClockTracker t(StartUp());
  int64_t host = 1'000'000'000;
  for (size_t i = 0; i < ClockTracker::kWindow; ++i, host += 200'000'000) Probe(t, host);
  // From here the conversion jumps 40 us (CUPTI resynchronised): the newest window of
  // probes has only the new offset once the old ones have slid out.
  for (size_t i = 0; i < ClockTracker::kWindow; ++i, host += 200'000'000) {
    t.ProbeRecorded(DriftingRecordTime(host - 1'000) + 40'000,
                    DriftingRecordTime(host + 1'000) + 40'000);
    t.ProbeIssued(host - 5'000, host + 5'000);
  }
  const int64_t at = host - 200'000'000;
  EXPECT_NEAR(static_cast<double>(t.current().ToHostNs(DriftingRecordTime(at) + 40'000) - at), 0,
              2'000);
}

}  // namespace
}  // namespace pipescope::gpu
