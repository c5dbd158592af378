#include "engine/runtime/op_factories.h"

#include "engine/spec/kind_registry.h"

namespace pipescope::engine {

void RegisterEngineOpFactory(spec::Op::KindCase kind, EngineOpFactory factory) {
  KindRegistry<EngineOpFactory>::Register(kind, factory);
}

EngineOpFactory EngineOpFactoryOf(spec::Op::KindCase kind) {
  return KindRegistry<EngineOpFactory>::Of(kind);
}

}  // namespace pipescope::engine
