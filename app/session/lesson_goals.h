#pragma once
// The figures lesson goals are checked with, all read from traces (never from the spec's
// text), and the check itself. Metrics:
//   device_busy, input_wait, steps_per_s      the run's summary (steady part)
//   calls_per_step OP        elements OP produced per training step
//   share_of_source OP       elements OP produced per record the source read
//   share_of_consumed OP     elements OP produced per row the training step received
//   time_slicing OP          OP's function spans / the CPU they used (1: never preempted)
//   repeated_batches         share of later epochs' batches that hold exactly the records
//                            of a first-epoch batch
//   shuffle_displacement     mean distance, in dataset sizes, between a record's position
//                            in the source and where the training step got it (first epoch)
//   worker_overlap OP        share of records OP passed on in more than one worker
//   worker_coverage OP       share of the dataset OP passed on in some worker
//   out_of_order             share of received records that came before one earlier in
//                            the source (first epoch)

#include <memory>
#include <string>
#include <vector>

#include "app/session/lesson.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

struct GoalResult {
  LessonGoal goal;
  double value = 0;
  bool measured = false;  // false: the trace cannot say (the op is missing, ...)
  bool met = false;
  std::string note;  // why it could not be measured
};

// Empty for a metric goals may use; otherwise a message naming it and the known ones.
std::string UnknownMetric(const std::string& metric);
// True for a metric that is a fraction of a whole (shown as a percentage).
bool MetricIsShare(const std::string& metric);

// `traces`: one per worker (one for most lessons). The steady part starts at a quarter of
// each trace.
GoalResult EvaluateGoal(const LessonGoal& goal,
                        const std::vector<std::shared_ptr<trace::Model>>& traces);

}  // namespace pipescope::session
