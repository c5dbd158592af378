// Dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder): batch's
// groups (engine/runtime/batch_rules.h), whose elements may differ in shape: every
// component is padded to one shape, each dimension to its padded_shapes length or to the
// longest in the batch, filled with padding_values, then stacked. On the simulator's clock
// a padded batch holds batch_size copies of its largest element's bytes: the padding is
// paid for by every op after it.
//
// The whole op kind is this file (op_kinds.h): description, field checks, both clocks.

#include <algorithm>
#include <array>
#include <vector>

#include "engine/kinds/op_kind_registration.h"
#include "engine/runtime/batch_rules.h"
#include "engine/sim/sim_ops.h"
#include "engine/sim/sim_unary.h"
#include "engine/spec/field_checker.h"

namespace pipescope::kinds {
namespace {

using engine::Element;
using engine::InvalidArgument;
using engine::Result;
using engine::Shape;
using engine::Status;
using engine::Tensor;

constexpr std::array kKnobs = {
    engine::kBatchSizeKnob,
};

void CheckFields(engine::OpFieldCheck& check) {
  const auto& p = static_cast<const spec::PaddedBatchOp&>(check.params);
  for (int64_t length : p.padded_shapes()) {
    if (length < -1) {
      check.Fail("padded_shapes", "lengths must be ≥ 0, or -1 for the longest in the batch; got " +
                                      std::to_string(length));
      return;
    }
  }
  if (p.padded_shapes_size() > Shape::kMaxRank) {
    check.Fail("padded_shapes", "has " + std::to_string(p.padded_shapes_size()) +
                                    " dimensions; elements have at most " +
                                    std::to_string(Shape::kMaxRank));
  }
}

std::optional<int64_t> Elements(const spec::Op& op, int64_t in) {
  return engine::BatchesOf(in, op.padded_batch().batch_size(), op.padded_batch().drop_remainder());
}

constexpr engine::OpKindDescription kPaddedBatch{
    .kind = "padded_batch",
    .kind_case = spec::Op::kPaddedBatch,
    .knobs = kKnobs,
    .ratio = engine::OutputRatio::kOneOverBatch,
    .omissible = "padded_shapes: the longest in each batch; padding_values: 0 (\"\" for strings)",
    .addable = true,
    .new_op_knob = "batch_size",
    .new_op_value = 32,
    .check_fields = CheckFields,
    .elements_out = Elements};

// ---- the engine

// The shape a component of every row is padded to.
Result<Shape> PaddedShape(std::span<const Tensor* const> rows, const spec::PaddedBatchOp& p) {
  const int rank = rows[0]->shape().rank();
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i]->shape().rank() != rank) {
      return InvalidArgument("element " + std::to_string(i) + " has shape " +
                             rows[i]->shape().ToString() + " and element 0 " +
                             rows[0]->shape().ToString() +
                             "; padding makes lengths equal, not ranks");
    }
  }
  if (p.padded_shapes_size() > 0 && p.padded_shapes_size() != rank) {
    return InvalidArgument("padded_shapes has " + std::to_string(p.padded_shapes_size()) +
                           " dimensions and the elements " + std::to_string(rank) + " (shape " +
                           rows[0]->shape().ToString() + ")");
  }
  Shape padded;
  for (int d = 0; d < rank; ++d) {
    int64_t longest = 0;
    size_t longest_row = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i]->shape().dim(d) > longest) {
        longest = rows[i]->shape().dim(d);
        longest_row = i;
      }
    }
    int64_t length = longest;
    if (p.padded_shapes_size() > 0 && p.padded_shapes(d) >= 0) {
      length = p.padded_shapes(d);
      if (longest > length) {  // tf.data: "Attempted to pad to a smaller size than the input"
        return InvalidArgument("element " + std::to_string(longest_row) + " has shape " +
                               rows[longest_row]->shape().ToString() +
                               ", longer than padded_shapes allows in dimension " +
                               std::to_string(d) + " (" + std::to_string(length) +
                               "): padding cannot shorten an element");
      }
    }
    ASSIGN_OR_RETURN(padded, padded.Append(length));
  }
  return padded;
}

// Every value of `t` set to `value`, in t's dtype (strings stay "").
void FillWith(Tensor& t, double value) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case engine::DType::kInt64:
      std::fill_n(t.data<int64_t>(), n, static_cast<int64_t>(value));
      break;
    case engine::DType::kFloat32:
      std::fill_n(t.data<float>(), n, static_cast<float>(value));
      break;
    case engine::DType::kUint8:
      std::fill_n(t.data<uint8_t>(), n, static_cast<uint8_t>(value));
      break;
    default:
      break;
  }
}

// Copies `row` into row `index` of `out` (shape [n] + padded), each of its innermost runs
// to where the same indices sit in the padded shape.
void CopyPadded(const Tensor& row, int64_t index, const Shape& padded, Tensor& out) {
  const Shape& shape = row.shape();
  const int rank = shape.rank();
  const int64_t inner = rank == 0 ? 1 : shape.dim(rank - 1);
  if (inner == 0 || row.num_elements() == 0) return;
  std::array<int64_t, Shape::kMaxRank> stride{};
  int64_t step = 1;
  for (int d = rank - 1; d >= 0; --d) {
    stride[d] = step;
    step *= padded.dim(d);
  }
  const int64_t base = index * padded.num_elements();
  const size_t size = engine::DTypeSize(row.dtype());
  for (int64_t run = 0; run < row.num_elements() / inner; ++run) {
    int64_t rest = run, offset = 0;
    for (int d = rank - 2; d >= 0; --d) {
      offset += (rest % shape.dim(d)) * stride[d];
      rest /= shape.dim(d);
    }
    const int64_t from = run * inner, to = base + offset;
    if (row.dtype() == engine::DType::kString) {
      std::copy_n(row.strings().begin() + from, inner, out.strings().begin() + to);
    } else {
      std::copy_n(row.raw() + from * size, inner * size, out.raw() + to * size);
    }
  }
}

Result<Tensor> PadAndStack(std::span<const Tensor* const> rows, const spec::PaddedBatchOp& p) {
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i]->dtype() != rows[0]->dtype()) {
      return InvalidArgument("element " + std::to_string(i) + " is " +
                             std::string(engine::DTypeName(rows[i]->dtype())) + " and element 0 " +
                             std::string(engine::DTypeName(rows[0]->dtype())));
    }
  }
  ASSIGN_OR_RETURN(const Shape padded, PaddedShape(rows, p));
  ASSIGN_OR_RETURN(const Shape stacked, padded.Prepend(static_cast<int64_t>(rows.size())));
  Tensor out(rows[0]->dtype(), stacked);
  if (p.has_padding_values()) FillWith(out, p.padding_values());
  for (size_t i = 0; i < rows.size(); ++i) {
    CopyPadded(*rows[i], static_cast<int64_t>(i), padded, out);
  }
  return out;
}

engine::CombineComponent PaddingTo(const spec::PaddedBatchOp& p) {
  return [p](std::span<const Tensor* const> parts) { return PadAndStack(parts, p); };
}

Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeBatchDataset(b.stats, std::move(b.input), b.Knob("batch_size"),
                                  b.op.padded_batch().drop_remainder(),
                                  PaddingTo(b.op.padded_batch()));
}

// ---- the simulator

class SimPaddedBatchIt : public sim::SimUnaryIterator {
 public:
  SimPaddedBatchIt(sim::SimContext& ctx, sim::SimStage& stage,
                   std::unique_ptr<sim::SimIterator> input, int64_t batch_size, bool drop_remainder,
                   int32_t padded_length)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        batch_size_(std::max<int64_t>(1, batch_size)),
        drop_remainder_(drop_remainder),
        padded_length_(padded_length) {}

 protected:
  sim::Task<bool> GetNextInternal(sim::SimThread& thread, sim::SimElement& out) override {
    rows_.clear();
    bool input_ended = false;
    while (static_cast<int64_t>(rows_.size()) < batch_size_ && !input_ended) {
      const int64_t n =
          co_await PullInputRun(thread, batch_size_ - static_cast<int64_t>(rows_.size()), rows_);
      input_ended = n == 0;
    }
    const auto elements = static_cast<int64_t>(rows_.size());
    if (!engine::IsBatch(elements, batch_size_, input_ended, drop_remainder_)) co_return false;
    int64_t rows = 0, largest = 0;
    int32_t longest = 1;
    for (const sim::SimElement& e : rows_) {
      rows += e.rows;
      largest = std::max(largest, e.bytes);
      longest = std::max(longest, e.length);
    }
    co_await Charge(thread, CpuCost(rows), 0);
    out = sim::SimElement{ctx_.NewElementId(), largest * elements,
                          sim::RecordKey(rows_.back().key, rows)};
    out.row_length = padded_length_ >= 0 ? padded_length_ : longest;
    out.rows = static_cast<int32_t>(rows);
    out.length = static_cast<int32_t>(elements);
    co_return true;
  }

 private:
  const int64_t batch_size_;
  const bool drop_remainder_;
  const int32_t padded_length_;  // its rows' leading dimension; -1: the longest row's
  std::vector<sim::SimElement> rows_;
};

Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  const auto& p = b.op.padded_batch();
  const int32_t padded_length =
      p.padded_shapes_size() > 0 ? static_cast<int32_t>(p.padded_shapes(0)) : -1;
  return sim::SimDatasetPtr(
      std::make_shared<sim::SimUnaryDataset<SimPaddedBatchIt, int64_t, bool, int32_t>>(
          b.stage, std::move(b.input), b.planned.Knob("batch_size").start, p.drop_remainder(),
          padded_length));
}

Result<engine::ValueRule> Values(const engine::PlannedOp& p) {
  engine::ValueRule rule;
  rule.combine = PaddingTo(p.op->padded_batch());
  return rule;
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kPaddedBatch, Engine, Sim, Values);

}  // namespace pipescope::kinds
