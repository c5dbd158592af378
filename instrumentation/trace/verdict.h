#pragma once
// The bottleneck verdict: which op limits throughput, the evidence in numbers, and the
// change most likely to help. Graded like TensorBoard's input-pipeline analyzer: a
// consumer waiting for input >= 20% of the time is highly input-bound, >= 5% moderately.

#include <cstdint>

#include "instrumentation/trace/analysis.h"

namespace pipescope::trace {

inline constexpr double kHighlyInputBound = 0.20;
inline constexpr double kModeratelyInputBound = 0.05;
// A start-up (before the first step) said in the verdict: at least this long, and this
// share of the run (a shuffle buffer of millions filling for most of an epoch). Under the
// fifth that a default simulate leaves it, when it runs again for five times the first
// step's time (LongerRunSeconds).
inline constexpr double kStartUpToSay = 1.0;  // seconds
inline constexpr double kStartUpShareToSay = 0.15;
// A run whose start-up is said and that has fewer steps after it than this is not graded:
// the wait over one or two steps says nothing of the pipeline's steady state (a shuffle
// buffer that filled for most of a short run, and then held every element the steps took).
inline constexpr int64_t kFewestStepsToGrade = 3;

// The host between steps (the training loop's own work, the device idle) this share of a
// range or more, and more than the consumer's wait for input, is the limit: the loop, not an
// op of the pipeline (tensorflow#40502: an eager loop's next() on each 10-byte record).
inline constexpr double kLoopBoundShare = 0.5;
// ... and at least this long a step: the engine's own loop between steps (taking an element,
// queuing its step) costs under a microsecond, which a step of no time leaves as most of a
// fast run without any loop work to speak of.
inline constexpr int64_t kLoopWorkPerStepToSay = 5'000;  // ns
// ... and while the loop's thread used a core for at least this share of that time (its
// thread's CPU samples): not a loop asleep until a short step ends (the simulator's 2% of
// it; the engine's 27%, its sleeps' own system time, 50 µs steps on this 2-core machine); a
// loop running Python there got 69% with two other programs busy on both cores, 100% alone.
inline constexpr double kLoopWorkingShare = 0.5;

// A disk busy this share of a range or more is its limit: more readers only queue for it.
inline constexpr double kStorageBoundBusy = 0.9;

// `cpu_budget`: cores the pipeline may use (0: unknown); `cores_are_this_machines`: the spec
// set no budget, so they are the cores of the machine that ran it (MachineInfo), which a
// remedy that counts them says.
Verdict MakeVerdict(const RangeAnalysis& analysis, int cpu_budget,
                    bool cores_are_this_machines = false);

// Replaces the verdict's suggestion (with the advisor's, tried in the simulator) and its
// text.
void SetSuggestion(Verdict& verdict, std::string suggestion);

// "42%" for 0.42: how verdicts write shares.
std::string FormatPercent(double fraction);
// A change as a signed whole percent: 0.743 -> "+74%"; ten times as much or more as a ratio,
// which reads better than a percentage: 11.21 -> "12.2×", not "+1121%".
std::string FormatPercentChange(double fraction);

}  // namespace pipescope::trace
