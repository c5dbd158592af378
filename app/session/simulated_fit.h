#pragma once
// The last steps of calibration, which check the fit against a simulation of it.
//
// Matching spans: a parallel map whose recorded spans were about its CPU time ran without
// being time-sliced, so calibration takes the span as its cost; but the
// simulator shares its cores among runnable threads equally, and the kernel does not (a
// thread that never sleeps keeps most of a core while threads that sleep often share the
// rest), so in the simulation such a map is sliced and runs slower than it did. Matching
// simulates the calibrated model and scales those maps' CPU costs until their simulated
// time per element is the recorded one. (Maps whose recorded spans were sliced keep their
// CPU time: the simulation slices them itself.)

#include <string>
#include <vector>

#include "engine/sim/cost_model.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

// `ops`: the maps to match, by name. Adjusts `model` in place; says what it changed (or why
// it could not) in `notes`.
void MatchSimulatedSpans(const trace::Model& recorded, const spec::PipelineSpec& spec,
                         const std::vector<std::string>& ops, sim::CostModel& model,
                         std::vector<std::string>& notes);

// The interpreter lock: how much of a Python function's CPU holds its process's lock
// (gil_share) shows in a recorded run as its workers' time per element, waits for the lock
// (kLockWait) included, which depends on everything else that ran Python beside them. For
// each asynchronous op whose workers waited for the lock, the share is fitted by simulating
// the model at other shares (a bisection, all such ops at once) until the simulated time per
// element is the recorded one. The time per element, not the waits alone: a real lock also
// changes hands late (the woken thread must be scheduled, and the releasing one often takes
// it again first), which lengthens the run's turns beyond the simulator's; fitted to the
// waits, the share came out below the one the run held (0.90 for 1), and the simulation
// faster than the run. A share that cannot make the simulation as slow as the run stays at
// 1, and a note says how far apart they are. Where the cores, not the lock, set the pace,
// the time per element says only the largest share that keeps it so, which the fit takes.
// An op whose simulated time does not move with its share (a lone Python thread, a worker
// process of its own) keeps the spec's share.
void FitInterpreterLock(const trace::Model& recorded, const spec::PipelineSpec& spec,
                        sim::CostModel& model, std::vector<std::string>& notes);

// Start-up: a recorded run's first step comes later than its costs alone explain (threads
// start, devices open, first-use set-up runs); the simulation is delayed by the difference
// between the recorded first step and a simulated one (CostModel::startup_ns), so its
// first steps come when the run's did. A few percent of a 5 s run's steps.
void FitStartup(const trace::Model& recorded, const spec::PipelineSpec& spec, sim::CostModel& model,
                std::vector<std::string>& notes);

}  // namespace pipescope::session
