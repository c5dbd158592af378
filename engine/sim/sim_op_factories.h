#pragma once
// How the simulator's builder makes an op's SimDataset: a factory per op kind, registered
// by the kind's file (engine/kinds/op_kind_registration.h) beside the engine's, called with
// the same plan.

#include "engine/sim/sim_iterator.h"
#include "engine/spec/pipeline_plan.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::sim {

// What a factory gets for one planned op.
class SimOpBuild {
 public:
  virtual ~SimOpBuild() = default;
  const engine::PlannedOp& planned;
  const spec::Op& op;
  SimStage& stage;
  SimDatasetPtr input;
  SimDatasetPtr per_element;  // as EngineOpBuild::per_element
  SimDatasetPtr second;       // as EngineOpBuild::second
  // Whether the elements it takes carry the numbers the engine's would (a range's, listed
  // values), so a filter can read them.
  const bool values;

  // The stage's definition in the trace (asynchronous, parallelism, buffer size).
  virtual record::StageDef& Def() = 0;
  // An op with num_parallel_calls: asynchronous where it is not 0, with that many workers.
  void SetParallelism(int64_t num_parallel_calls) {
    Def().asynchronous = num_parallel_calls != 0;
    Def().parallelism = num_parallel_calls != 0 ? num_parallel_calls : 1;
  }

 protected:
  SimOpBuild(const engine::PlannedOp& p, SimStage& s, SimDatasetPtr in, SimDatasetPtr sub,
             SimDatasetPtr beside, bool v)
      : planned(p),
        op(*p.op),
        stage(s),
        input(std::move(in)),
        per_element(std::move(sub)),
        second(std::move(beside)),
        values(v) {}
};

using SimOpFactory = engine::Result<SimDatasetPtr> (*)(SimOpBuild& build);

void RegisterSimOpFactory(spec::Op::KindCase kind, SimOpFactory factory);
SimOpFactory SimOpFactoryOf(spec::Op::KindCase kind);

}  // namespace pipescope::sim
