#include "engine/sim/sim_op_factories.h"

#include "engine/spec/kind_registry.h"

namespace pipescope::sim {

void RegisterSimOpFactory(spec::Op::KindCase kind, SimOpFactory factory) {
  engine::KindRegistry<SimOpFactory>::Register(kind, factory);
}

SimOpFactory SimOpFactoryOf(spec::Op::KindCase kind) {
  return engine::KindRegistry<SimOpFactory>::Of(kind);
}

}  // namespace pipescope::sim
