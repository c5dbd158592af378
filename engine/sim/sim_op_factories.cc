#include "engine/sim/sim_op_factories.h"

#include <map>

namespace pipescope::sim {
namespace {

std::map<spec::Op::KindCase, SimOpFactory>& Factories() {
  static std::map<spec::Op::KindCase, SimOpFactory> factories;
  return factories;
}

}  // namespace

void RegisterSimOpFactory(spec::Op::KindCase kind, SimOpFactory factory) {
  Factories()[kind] = factory;
}

SimOpFactory SimOpFactoryOf(spec::Op::KindCase kind) {
  auto it = Factories().find(kind);
  return it == Factories().end() ? nullptr : it->second;
}

}  // namespace pipescope::sim
