#pragma once
// What a trace records about the machine it was made on.

#include "instrumentation/trace/format/pstrace.pb.h"

namespace pipescope::session {

// Hostname, cores, memory and CPU model of this machine; `cpu_budget` as given.
pstrace::Machine ProbeMachine(int cpu_budget);

}  // namespace pipescope::session
