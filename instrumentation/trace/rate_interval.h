#pragma once
// How well a measured rate is known. A run's steps/s is one number from a few seconds of
// steps whose times vary (a slow batch, a thread that lost its core); two configurations
// whose rates differ by less than that variation are a tie, and a tuner that keeps the
// "faster" one keeps noise. The interval here is the 95% confidence interval of a rate,
// from the variation of its steps within a run (batch means over consecutive steps: the
// steps of a pipeline are correlated, a batch of them much less) and, for repeated runs,
// from the spread between runs, whichever is wider.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pipescope::trace {

struct RateInterval {
  double per_s = 0;
  double half_width = 0;  // the 95% interval is per_s ± half_width
  int runs = 1;           // measurements it combines
};

// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (dof >= 1).
double StudentT95(int dof);

// The rate of events that started at `starts` (sorted, ns) and its interval: the mean time
// between them in up to 10 batches of consecutive events, the batches' spread giving the
// interval, turned into a rate. Fewer than three events say nothing about the variation:
// the half width is then the rate itself.
RateInterval StartsInterval(const std::vector<int64_t>& starts, double per_s);
// The same over `count` starts read by `start_at(i)` (sorted): only the batches' edges are
// read, so tens of millions of steps in a track need no copy (nor a sort).
RateInterval StartsInterval(size_t count, const std::function<int64_t(size_t)>& start_at,
                            double per_s);

// The rate of events counted over consecutive periods (`events[i]` in [edges[i],
// edges[i + 1]): whole epochs, whose steps come in a burst after a wait) and its interval:
// the periods are the batches, as the steps within one say nothing of the waits between
// them. Fewer than two periods say nothing of the variation: the half width is then the
// rate itself.
RateInterval PeriodsInterval(const std::vector<int64_t>& edges, const std::vector<int64_t>& events,
                             double per_s);

// Runs of one configuration: the mean rate, with the wider of the interval from their spread
// and the one their own intervals give the mean.
RateInterval CombineRuns(const std::vector<RateInterval>& runs);

// The half width of the difference of two independent rates.
double DifferenceHalfWidth(const RateInterval& a, const RateInterval& b);

// Whether `candidate` is faster than `base` by more than the noise of both and by at least
// `min_gain` of base's rate.
bool ClearlyFaster(const RateInterval& candidate, const RateInterval& base, double min_gain);

// "123.4 ± 2.1 steps/s": a step rate and its interval, for people.
std::string StepRateText(const RateInterval& r);

}  // namespace pipescope::trace
