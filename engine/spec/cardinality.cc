#include "engine/spec/cardinality.h"

#include "engine/spec/op_kinds.h"

namespace pipescope::engine {

std::optional<int64_t> SourceElements(const spec::Source& source) {
  switch (source.kind_case()) {
    case spec::Source::kRange: {
      const spec::RangeSource& r = source.range();
      const int64_t step = r.step() == 0 ? 1 : r.step();
      const int64_t span = step > 0 ? r.stop() - r.start() : r.start() - r.stop();
      const int64_t stride = step > 0 ? step : -step;
      return span <= 0 ? 0 : (span + stride - 1) / stride;
    }
    case spec::Source::kFromTensorSlices: {
      const spec::FromTensorSlicesSource& s = source.from_tensor_slices();
      if (s.values_size() > 0) return s.values_size();
      if (s.strings_size() > 0) return s.strings_size();
      return s.count();
    }
    case spec::Source::kSynthetic:
      return source.synthetic().records();
    case spec::Source::kFromGenerator: {
      const spec::FromGeneratorSource& g = source.from_generator();
      // A generator of whole batches yields a count of rows the spec gives, not of yields.
      if (g.records() < 0 || g.rows_per_yield() > 1) return std::nullopt;
      return g.records();
    }
    default:
      return std::nullopt;  // files: as many as they hold
  }
}

std::optional<int64_t> ElementsOut(const spec::Op& op, int64_t in) {
  const OpKindDescription* kind = DescribeOp(op);
  if (kind == nullptr) return std::nullopt;
  if (kind->elements_out != nullptr) return kind->elements_out(op, in);
  if (kind->ratio == OutputRatio::kOne && kind->sub_pipeline == nullptr) return in;
  return std::nullopt;
}

std::optional<int64_t> StepsOfAnEpoch(const spec::PipelineSpec& spec) {
  int epochs = -1;
  for (int i = 0; i < spec.ops_size(); ++i) {
    if (spec.ops(i).has_repeat()) epochs = i;
  }
  if (epochs < 0 || spec.source().size_is_stand_in()) return std::nullopt;
  std::optional<int64_t> n = SourceElements(spec.source());
  for (int i = 0; i < spec.ops_size() && n; ++i) {
    const spec::Op& op = spec.ops(i);
    if (i == epochs || (i > epochs && op.has_take())) continue;
    n = ElementsOut(op, *n);
  }
  return n;
}

}  // namespace pipescope::engine
