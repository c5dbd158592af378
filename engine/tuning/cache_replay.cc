#include "engine/tuning/cache_replay.h"

#include <algorithm>

#include "engine/spec/cardinality.h"
#include "engine/tuning/cache_memory.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::engine {

std::optional<CachedEpochs> LaterEpochsOfACache(const spec::PipelineSpec& spec) {
  int cache = -1;
  for (int i = 0; i < spec.ops_size(); ++i) {
    if (Replays(spec.ops(i))) {
      cache = i;
      break;
    }
  }
  if (cache < 0) return std::nullopt;
  const std::optional<int64_t> steps = StepsOfAnEpoch(spec);
  std::optional<int64_t> elements = SourceElements(spec.source());
  for (int i = 0; i < cache && elements; ++i) elements = ElementsOut(spec.ops(i), *elements);
  if (!steps || *steps <= 0 || !elements || *elements <= 0) return std::nullopt;
  CachedEpochs out;
  out.epoch_steps = *steps;
  out.first = spec;
  out.first.mutable_ops()->DeleteSubrange(cache, 1);
  out.replay = spec;
  // Elements whose size the spec does not say past an op that makes them (a decode) are
  // handed out at no size of their own (an index's): the copies after the cache that their
  // bytes would cost are left out where the spec cannot say them.
  const ElementSize each = ElementBytesBefore(spec, cache);
  spec::Source& source = *out.replay.mutable_source();
  source.Clear();
  source.set_name(spec.ops(cache).name());
  source.mutable_from_tensor_slices()->set_count(*elements);
  source.mutable_from_tensor_slices()->set_element_bytes(
      std::max<int64_t>(0, each.bytes.value_or(0)));
  auto* ops = out.replay.mutable_ops();
  ops->DeleteSubrange(0, cache + 1);
  for (auto it = spec.ops().rbegin(); it != spec.ops().rend(); ++it) {
    if (!it->has_repeat()) continue;
    const int64_t count = it->repeat().has_count() ? it->repeat().count() : -1;
    if (count > 0) out.epochs = count;
    break;
  }
  return out;
}

double RateOverEpochs(double first, double later, std::optional<int64_t> epochs) {
  if (!epochs) return later;
  if (*epochs <= 1) return first;
  if (first <= 0 || later <= 0) return 0;
  const auto n = static_cast<double>(*epochs);
  return n / (1 / first + (n - 1) / later);
}

}  // namespace pipescope::engine
