#pragma once
// parse_example: tf.io.parse_single_example over the element's serialized tf.train.Example;
// after batch, tf.io.parse_example over the batch's serialized records at once, each
// fixed-length feature a tensor of [rows] + its shape. (A var_len feature parses to a
// SparseTensor there, which elements here do not hold: the validator refuses var_len
// features after batch.)

#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "engine/work/work_function.h"

namespace pipescope::engine {

class ParseExample : public WorkFunction {
 public:
  // Errors: a feature spec with an unknown dtype or a negative dimension.
  static Result<std::unique_ptr<WorkFunction>> Create(const spec::ParseExample& config);
  std::string name() const override { return "parse_example"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  bool has_batched_form() const override { return !any_var_len_; }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;

 private:
  struct Wanted {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    int64_t count = 1;  // values a fixed-length feature must have
    bool var_len = false;
  };
  explicit ParseExample(std::vector<Wanted> wanted);
  // Parses `serialized` and copies each wanted feature's values into row `row` of
  // `into[i]` (a scalar-per-row tensor for the single form: row 0).
  Status ParseRow(const std::string& serialized, int64_t row, std::vector<Tensor>& into) const;
  // The element's features become the parsed `values` (in wanted_'s order); its serialized
  // value is dropped.
  void Replace(Element& element, std::vector<Tensor> values) const;
  std::vector<Wanted> wanted_;
  bool any_var_len_ = false;
};

}  // namespace pipescope::engine
