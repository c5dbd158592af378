#pragma once
// parse_example: tf.io.parse_single_example over the element's serialized tf.train.Example.

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

 private:
  struct Wanted {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    int64_t count = 1;  // values a fixed-length feature must have
    bool var_len = false;
  };
  explicit ParseExample(std::vector<Wanted> wanted) : wanted_(std::move(wanted)) {}
  std::vector<Wanted> wanted_;
};

}  // namespace pipescope::engine
