#include "engine/sim/cost_model_json.h"
#include "engine/spec/spec_loader.h"
#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

// A complete model: every field of every op, with spreads.
std::string FuzzSeed() {
  sim::CostModel m;
  m.origin = "seed";
  m.step = {1e6, 0.2};
  sim::OpCost& decode = m.ops["decode"];
  decode.cpu = {3000, 0.1};
  decode.cpu_per_row = {1e6, 0.5};
  decode.wait = {100, 0};
  sim::OpCost& read = m.ops["read.read"];
  read.open_wait = {1e6, 0.3};
  read.records = 4;
  read.out_bytes = 64;
  m.ops["keep"].keep_fraction = 0.25;
  return sim::CostModelToJson(m);
}

}  // namespace pipescope::fuzz
