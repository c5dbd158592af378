#include "engine/runtime/op_factories.h"

#include <map>

namespace pipescope::engine {
namespace {

std::map<spec::Op::KindCase, EngineOpFactory>& Factories() {
  static std::map<spec::Op::KindCase, EngineOpFactory> factories;
  return factories;
}

}  // namespace

void RegisterEngineOpFactory(spec::Op::KindCase kind, EngineOpFactory factory) {
  Factories()[kind] = factory;
}

EngineOpFactory EngineOpFactoryOf(spec::Op::KindCase kind) {
  auto it = Factories().find(kind);
  return it == Factories().end() ? nullptr : it->second;
}

}  // namespace pipescope::engine
