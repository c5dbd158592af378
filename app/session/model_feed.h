#pragma once
// Where a run's trace goes in memory: a trace::Model (the caller's, for a live view, or a
// new one) with the run's header applied, fed batch by batch. With a mutex, the header and
// every batch go in under it, so a view holding it sees whole batches only.

#include <memory>
#include <mutex>

#include "instrumentation/record/trace_sink.h"
#include "instrumentation/trace/format/pstrace.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

class ModelFeed : public record::TraceSink {
 public:
  // `model` null: a new one. `mu` null: no locking. `steps_only`: the model keeps the
  // training step's events and the consumer's waits alone, what a steady rate is counted
  // from (trace::Analyze): the advisor's candidates need no more, and a pipeline of millions
  // of cheap calls a second made gigabytes of the rest.
  ModelFeed(std::shared_ptr<trace::Model> model, std::mutex* mu, const pstrace::TraceHeader& header,
            bool steps_only = false);
  void Consume(const record::TraceBatch& batch, bool final) override;
  const std::shared_ptr<trace::Model>& model() const { return model_; }

 private:
  std::shared_ptr<trace::Model> model_;
  std::mutex* mu_;
};

}  // namespace pipescope::session
