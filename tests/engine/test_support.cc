#include "tests/engine/test_support.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>

#include "engine/spec/spec_loader.h"

namespace pipescope::engine::testing {

spec::PipelineSpec Spec(const std::string& text) {
  auto parsed = ParseSpecText(text, "test.pbtxt");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : spec::PipelineSpec();
}

std::unique_ptr<Pipeline> MakePipeline(const std::string& text) {
  auto p = Pipeline::Create(Spec(text), Pipeline::Options{});
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : nullptr;
}

std::vector<Element> Drain(Pipeline& pipeline, int64_t limit) {
  std::vector<Element> out;
  while (static_cast<int64_t>(out.size()) < limit) {
    Element e;
    bool end = false;
    Status s = pipeline.GetNext(e, end);
    EXPECT_TRUE(s.ok()) << s.message();
    if (!s.ok() || end) break;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<int64_t> Values(const std::vector<Element>& elements) {
  std::vector<int64_t> v;
  for (const auto& e : elements) v.push_back(e.value.scalar_int64());
  return v;
}

std::vector<int64_t> DrainValues(const std::string& spec_text, int64_t limit) {
  auto p = MakePipeline(spec_text);
  if (!p) return {};
  return Values(Drain(*p, limit));
}

void RecordedPipeline::Finish() {
  pipeline.reset();
  recorder->Stop();
}

RecordedPipeline MakeRecordedPipeline(const std::string& text) {
  RecordedPipeline r;
  r.recorder = std::make_unique<record::Recorder>();
  r.model = std::make_unique<trace::Model>();
  r.recorder->AddSink(r.model.get());
  Pipeline::Options options;
  options.recorder = r.recorder.get();
  auto p = Pipeline::Create(Spec(text), options);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (p.ok()) r.pipeline = std::move(p).value();
  r.recorder->Start();
  return r;
}

RecordedPipeline DrainedRecording(const std::string& text, size_t elements) {
  RecordedPipeline r = MakeRecordedPipeline(text);
  if (r.pipeline) EXPECT_EQ(Drain(*r.pipeline).size(), elements) << text;
  r.Finish();
  return r;
}

StepTrackGaps WalkStepTrack(const trace::Model& model) {
  StepTrackGaps out;
  const trace::Track* steps = model.FindTrack({record::EventKind::kStep, record::kDeviceOp, 0});
  EXPECT_NE(steps, nullptr) << "no step track";
  if (!steps) return out;
  out.steps = steps->size();
  int64_t previous_end = 0;
  auto gap_until = [&](int64_t t) {
    if (t <= previous_end) return;
    ++out.gaps;
    out.longest_ns = std::max(out.longest_ns, t - previous_end);
  };
  for (size_t i = 0; i < steps->size(); ++i) {
    EXPECT_GE(steps->start(i), previous_end) << "the simulated device runs one step at a time";
    gap_until(steps->start(i));
    out.busy_ns += steps->end(i) - steps->start(i);
    previous_end = steps->end(i);
  }
  gap_until(model.duration_ns());
  return out;
}

std::string WriteFile(const std::string& path, const std::string& bytes,
                      const std::string& compression) {
  if (compression == "GZIP") {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  } else if (compression == "ZLIB") {
    uLongf size = compressBound(bytes.size());
    std::string out(size, '\0');
    compress2(reinterpret_cast<Bytef*>(out.data()), &size,
              reinterpret_cast<const Bytef*>(bytes.data()), bytes.size(), 6);
    out.resize(size);
    std::ofstream(path, std::ios::binary) << out;
  } else {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  return path;
}

}  // namespace pipescope::engine::testing
