#include "app/session/model_feed.h"

#include "instrumentation/trace/format/trace_reader.h"

namespace pipescope::session {

ModelFeed::ModelFeed(std::shared_ptr<trace::Model> model, std::mutex* mu,
                     const pstrace::TraceHeader& header, bool steps_only)
    : model_(model ? std::move(model) : std::make_shared<trace::Model>()), mu_(mu) {
  std::unique_lock<std::mutex> lock;
  if (mu_) lock = std::unique_lock<std::mutex>(*mu_);
  pstrace::ApplyHeader(header, *model_);
  if (steps_only) model_->KeepStepsOnly();
}

void ModelFeed::Consume(const record::TraceBatch& batch, bool final) {
  std::unique_lock<std::mutex> lock;
  if (mu_) lock = std::unique_lock<std::mutex>(*mu_);
  model_->Consume(batch, final);
}

}  // namespace pipescope::session
