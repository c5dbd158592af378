#include "engine/tuning/cache_memory.h"

#include "engine/core/duration.h"

namespace pipescope::engine {
namespace {

// The bytes of one of the source's records, where the spec says them.
std::optional<int64_t> RecordBytes(const spec::Source& source) {
  if (source.has_synthetic() && source.synthetic().record_bytes() > 0)
    return source.synthetic().record_bytes();
  if (source.has_range()) return int64_t{8};  // an int64 scalar
  return std::nullopt;
}

// Ops whose elements are their input's, as they were: a cache after them holds the
// source's records.
bool KeepsElements(const spec::Op& op) {
  return op.has_shuffle() || op.has_prefetch() || op.has_shard() || op.has_filter() ||
         op.has_take() || op.has_skip();
}

}  // namespace

CacheHolding HeldByACacheBefore(const PipelinePlan& plan, int place) {
  CacheHolding held;
  const spec::PipelineSpec& spec = *plan.spec;
  if (place < 0 || place >= static_cast<int>(plan.ops.size())) return held;
  held.elements = plan.ops[place].input_elements;
  std::optional<int64_t> each = RecordBytes(spec.source());
  if (!each) held.sized_by = spec.source().name();
  for (int i = 0; i < place && each; ++i) {
    if (KeepsElements(spec.ops(i))) continue;
    each.reset();
    held.sized_by = spec.ops(i).name();
  }
  if (held.elements && each) held.bytes = *held.elements * *each;
  return held;
}

std::string CacheHoldingText(const CacheHolding& held, int64_t ram_budget) {
  if (held.bytes) {
    return " (an epoch in memory: " + std::to_string(*held.elements) + " elements, " +
           FormatBytes(*held.bytes) + ")";
  }
  if (ram_budget <= 0 || held.sized_by.empty()) return "";
  const std::string count =
      held.elements ? std::to_string(*held.elements) + " elements" : "every element of an epoch";
  return " (it holds " + count + " in memory, whose size after '" + held.sized_by +
         "' the spec does not say: check they fit the RAM budget of " + FormatBytes(ram_budget) +
         ")";
}

bool OverTheRamBudget(const CacheHolding& held, int64_t ram_budget) {
  return ram_budget > 0 && held.bytes && *held.bytes > ram_budget;
}

int64_t RamBudget(const spec::PipelineSpec& spec, int64_t machine_bytes) {
  return spec.budget().ram_bytes() > 0 ? spec.budget().ram_bytes() : machine_bytes;
}

}  // namespace pipescope::engine
