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
// (gil_share) shows in a recorded run as its workers' rate where they take turns under it,
// which depends on everything else that ran Python beside them. For each asynchronous op
// whose workers waited for the lock (kLockWait), the share is fitted by simulating the model
// at other shares (a bisection, all such ops at once) until the simulated elements per
// second are the recorded ones. The rate, not the waits: a real lock also changes hands late
// (the woken thread must be scheduled, and the releasing one often takes it again first),
// so a run's waits are shorter than the simulator's at the same share; fitted to them, the
// share came out 0.90 for the 1 a run held, and the simulation faster than the run. A run
// slower than every share simulates keeps 1, and a note says so. An op whose simulated rate
// does not move with its share (the cores set its pace, not the lock) keeps the spec's
// share; so does one whose threads never waited (a lone Python thread, a worker process of
// its own).
void FitInterpreterLock(const trace::Model& recorded, const spec::PipelineSpec& spec,
                        sim::CostModel& model, std::vector<std::string>& notes);

// Start-up: a recorded run's first step comes later than its costs alone explain (threads
// start, devices open, first-use set-up runs); the simulation is delayed by the difference
// between the recorded first step and a simulated one (CostModel::startup_ns), so its
// first steps come when the run's did. A few percent of a 5 s run's steps.
void FitStartup(const trace::Model& recorded, const spec::PipelineSpec& spec, sim::CostModel& model,
                std::vector<std::string>& notes);

}  // namespace pipescope::session
