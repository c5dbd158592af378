#pragma once
// How the engine's builder makes an op's Dataset: a factory per op kind, registered by the
// kind's file (engine/kinds/op_kind_registration.h), called with what the plan resolved.

#include <memory>
#include <string>

#include "engine/ops/ops.h"
#include "engine/runtime/stage_registry.h"
#include "engine/runtime/storage_device.h"
#include "engine/spec/pipeline_plan.h"

namespace pipescope::engine {

// What a factory gets for one planned op.
class EngineOpBuild {
 public:
  virtual ~EngineOpBuild() = default;
  const PlannedOp& planned;
  const spec::Op& op;  // its spec (the kind's message: op.map(), ...)
  StatsPtr stats;      // its stage
  DatasetPtr input;    // the dataset it reads
  // The dataset it opens per input element (per_element with its ops), for a kind whose
  // message has them; null otherwise.
  DatasetPtr per_element;
  // The second pipeline it reads beside its input (its own source and ops), for a kind that
  // has one (zip); null otherwise.
  DatasetPtr second;
  // The spec's disk, which the op's reads of files share (a Python call's read_bytes); null:
  // the spec has none.
  StorageDevicePtr storage;

  // The planned knob `name` as a Tunable a tuner and the GUI can move, with its range from
  // the kind's description (registered under the op's name).
  virtual TunablePtr Knob(std::string_view name) = 0;

 protected:
  EngineOpBuild(const PlannedOp& p, StatsPtr s, DatasetPtr in, DatasetPtr sub, DatasetPtr beside)
      : planned(p),
        op(*p.op),
        stats(std::move(s)),
        input(std::move(in)),
        per_element(std::move(sub)),
        second(std::move(beside)) {}
};

using EngineOpFactory = Result<DatasetPtr> (*)(EngineOpBuild& build);

// Called once per kind at start-up.
void RegisterEngineOpFactory(spec::Op::KindCase kind, EngineOpFactory factory);
// The factory of `kind`, or null.
EngineOpFactory EngineOpFactoryOf(spec::Op::KindCase kind);

}  // namespace pipescope::engine
