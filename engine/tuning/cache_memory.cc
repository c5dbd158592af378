#include "engine/tuning/cache_memory.h"

#include <algorithm>

#include "engine/core/duration.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/work_bytes.h"

namespace pipescope::engine {
namespace {

// The bytes of one of the source's records, where the spec says them.
std::optional<int64_t> RecordBytes(const spec::Source& source) {
  if (source.has_synthetic() && source.synthetic().record_bytes() > 0)
    return source.synthetic().record_bytes();
  if (source.has_range()) return int64_t{8};  // an int64 scalar
  if (source.has_from_tensor_slices() && source.from_tensor_slices().element_bytes() > 0)
    return source.from_tensor_slices().element_bytes();
  if (source.has_fixed_length_record()) return source.fixed_length_record().format().record_bytes();
  return std::nullopt;
}

// Ops whose elements are their input's, as they were: a cache after them holds the
// source's records. (A repeat passes them on too, but a cache after it never ends an epoch.)
bool KeepsElements(const spec::Op& op) {
  return op.has_shuffle() || op.has_prefetch() || op.has_shard() || op.has_filter() ||
         op.has_take() || op.has_skip() || (op.has_map() && op.map().fn().has_identity());
}

}  // namespace

ElementSize ElementBytesBefore(const spec::PipelineSpec& spec, int place) {
  ElementSize size;
  size.bytes = RecordBytes(spec.source());
  if (!size.bytes) size.sized_by = spec.source().name();
  for (int i = 0; i < place && i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    // An interleave's records are its files' (with nothing done to them inside it): the size
    // of a fixed-length or synthetic file's records, whatever the names before it were.
    const spec::ElementSource* per = PerElementSourceOf(op);
    const auto* inner = SubPipelineOf(op);
    const int64_t file_record = !per || (inner && !inner->empty()) ? 0
                                : per->has_fixed_length_record_file()
                                    ? per->fixed_length_record_file().record_bytes()
                                : per->has_synthetic_file() ? per->synthetic_file().record_bytes()
                                                            : 0;
    if (file_record > 0) {
      size = {file_record, ""};
      continue;
    }
    // A map whose function's output the spec fixes (a resize, a sample's output_bytes: known
    // again after a size that was not); a batch of rows, as many as its size.
    if (op.has_map()) {
      if (const auto after = BytesAfterWork(op.map().fn(), size.bytes)) {
        size = {after, ""};
        continue;
      }
    }
    if (!size.bytes || KeepsElements(op) || op.has_repeat()) continue;
    if (op.has_batch()) {
      size.bytes = *size.bytes * BatchSizeOf(op);
      continue;
    }
    size.bytes.reset();
    size.sized_by = op.name();
  }
  return size;
}

CacheHolding HeldByACacheBefore(const PipelinePlan& plan, int place) {
  CacheHolding held;
  if (place < 0 || place >= static_cast<int>(plan.ops.size())) return held;
  held.elements = plan.ops[place].input_elements;
  const ElementSize each = ElementBytesBefore(*plan.spec, place);
  held.sized_by = each.sized_by;
  if (held.elements && each.bytes) held.bytes = BytesHeld(*held.elements, *each.bytes);
  return held;
}

int64_t BytesHeld(int64_t elements, int64_t element_bytes) {
  const int64_t each = std::max<int64_t>(0, element_bytes) + kHeldElementOverheadBytes;
  constexpr int64_t kPastAnyMemory = int64_t{1} << 62;
  return elements > kPastAnyMemory / each ? kPastAnyMemory : std::max<int64_t>(0, elements) * each;
}

std::string ElementsText(int64_t elements, int64_t element_bytes) {
  std::string text = std::to_string(elements) + " elements of " + FormatBytes(element_bytes);
  if (kHeldElementOverheadBytes * 10 >= element_bytes) {
    text += " (" + FormatBytes(element_bytes + kHeldElementOverheadBytes) + " held each)";
  }
  return text;
}

int64_t ShuffleBufferThatFits(int64_t element_bytes, int64_t ram_budget) {
  const int64_t most =
      ram_budget / 4 / (std::max<int64_t>(0, element_bytes) + kHeldElementOverheadBytes);
  int64_t buffer = 1;
  while (buffer * 2 <= most) buffer *= 2;
  return buffer;
}

std::vector<LargeShuffleBuffer> LargeShuffleBuffers(const spec::PipelineSpec& spec,
                                                    int64_t ram_budget) {
  std::vector<LargeShuffleBuffer> out;
  if (ram_budget <= 0) return out;
  const auto plan = PlanPipeline(spec, 1);
  for (int i = 0; i < spec.ops_size(); ++i) {
    if (!spec.ops(i).has_shuffle()) continue;
    const std::optional<int64_t> each = ElementBytesBefore(spec, i).bytes;
    // A buffer holds no more than a pass of its input gives (shuffle(len(dataset)) of a
    // dataset that fits), unless a repeat before it keeps it filling.
    int64_t buffer = spec.ops(i).shuffle().buffer_size();
    if (plan.ok() && i < static_cast<int>(plan->ops.size())) {
      if (const std::optional<int64_t> in = plan->ops[i].input_elements) {
        buffer = std::min(buffer, *in);
      }
    }
    if (!each || buffer <= 0 || *each <= 0) continue;
    const int64_t held = BytesHeld(buffer, *each);
    if (held > ram_budget / 4) out.push_back({i, buffer, *each, held, held > ram_budget / 2});
  }
  return out;
}

std::string CacheHoldingText(const CacheHolding& held, int64_t ram_budget) {
  if (held.bytes) {
    return " (an epoch in memory: " + std::to_string(*held.elements) + " elements, " +
           FormatBytes(*held.bytes) + ")";
  }
  if (ram_budget <= 0 || held.sized_by.empty()) return "";
  const std::string count = !held.elements        ? "every element of an epoch"
                            : *held.elements == 1 ? "1 element"
                                                  : std::to_string(*held.elements) + " elements";
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
