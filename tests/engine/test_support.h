#pragma once
// Helpers for engine tests: build pipelines from spec text and drain them.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/element.h"
#include "engine/runtime/pipeline.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/record/recorder.h"
#include "instrumentation/trace/model.h"

namespace pipescope::engine::testing {

// Parses `text` (a whole spec) and fails the test on error.
spec::PipelineSpec Spec(const std::string& text);
std::unique_ptr<Pipeline> MakePipeline(const std::string& text);

// Reads every element (up to `limit`); fails the test on a pipeline error.
std::vector<Element> Drain(Pipeline& pipeline, int64_t limit = 1'000'000);
// The int64 scalar values of the elements.
std::vector<int64_t> Values(const std::vector<Element>& elements);
std::vector<int64_t> DrainValues(const std::string& spec_text, int64_t limit = 1'000'000);

// Writes `bytes` to `path` compressed as `compression` names it ("", "GZIP" or "ZLIB", as
// TensorFlow's readers take them); returns `path`.
std::string WriteFile(const std::string& path, const std::string& bytes,
                      const std::string& compression = "");

// A pipeline that records into a trace model. Finish() stops the pipeline and the recorder;
// the model is complete after it.
struct RecordedPipeline {
  std::unique_ptr<record::Recorder> recorder;
  std::unique_ptr<trace::Model> model;
  std::unique_ptr<Pipeline> pipeline;
  void Finish();
};
RecordedPipeline MakeRecordedPipeline(const std::string& text);
// `text`'s pipeline drained and finished, its model complete; the test fails unless it handed
// out `elements` elements.
RecordedPipeline DrainedRecording(const std::string& text, size_t elements);

// What the device's step track says, walked step by step for tests that check device gaps
// against their own count: time in steps, and the stretches between them (and after the
// last) as gaps. Fails the test if steps overlap (a simulated device runs one at a time).
struct StepTrackGaps {
  int64_t busy_ns = 0;
  int64_t gaps = 0;
  int64_t longest_ns = 0;
  size_t steps = 0;
};
StepTrackGaps WalkStepTrack(const trace::Model& model);

}  // namespace pipescope::engine::testing
