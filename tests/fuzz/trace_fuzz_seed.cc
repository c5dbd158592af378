#include <cstdio>
#include <fstream>
#include <sstream>

#include "instrumentation/trace/format/trace_writer.h"
#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

std::string FuzzSeed() {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/pipescope_fuzz_seed.pstrace";
  pstrace::TraceHeader header;
  header.mutable_spec()->set_name("seed");
  header.mutable_machine()->set_cpu_budget(2);
  pstrace::TraceWriter::Options options;
  options.chunk_events = 1;
  auto writer = pstrace::TraceWriter::Create(path, header, options);
  if (!writer.ok()) return {};
  for (int b = 0; b < 2; ++b) {
    record::TraceBatch batch;
    if (b == 0) {
      batch.stages.push_back({0, "src", "synthetic", 0, 0, -1, false, 1, 0});
      batch.stages.push_back({1, "decode", "map", 0, 1, 0, true, 2, 0});
      batch.threads.push_back({1, "decode/0"});
      batch.knob_changes.push_back({10, 1, "num_parallel_calls", 2, 3, "seed"});
      batch.markers.push_back({20, "mark"});
    }
    for (int i = 0; i < 40; ++i) {
      const int64_t t = (b * 40 + i) * 1000;
      batch.events.push_back(
          {t, t + 600, static_cast<uint64_t>(i + 1), 100, 1, 0, record::EventKind::kCall, 0});
      batch.events.push_back(
          {t + 600, t + 900, static_cast<uint64_t>(i + 1), 0, 1, 1, record::EventKind::kWork, 0});
      batch.events.push_back({t, t + 500, static_cast<uint64_t>(i + 1), 0, 2, record::kConsumerOp,
                              record::EventKind::kInputWait, 0});
      batch.events.push_back(
          {t + 500, t + 1000, 0, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
      batch.events.push_back(
          {t, t, 0, static_cast<uint32_t>(i % 3), 0, 1, record::EventKind::kBufferLevel, 0});
    }
    batch.time_ns = (b + 1) * 40'000;
    if (b == 0) {
      (*writer)->Consume(batch, false);
      continue;
    }
    // Version 2's columns: spans nested one deep on thread 3 with names and arguments, and
    // a flow from a call on thread 1 to one of them.
    pstrace::TraceWriter::Extras extras;
    extras.details.resize(batch.events.size());
    extras.labels = {{1, {"aten::add", "cpu_op"}}, {2, {"gemm}, {", "kernel"}}};
    for (int i = 0; i < 40; ++i) {
      const int64_t t = (40 + i) * 1000;
      batch.events.push_back({t + 100, t + 300, 0, 50, 3, 0, record::EventKind::kCall, 0});
      extras.details.push_back({1, static_cast<uint32_t>(1 + i % 2), "{\"a\":[{\"b\":1}]}"});
    }
    pstrace::FlowRecord flow;
    flow.set_from_track(trace::PackTrackKey({record::EventKind::kCall, 0, 1, 0}));
    flow.set_from_index(41);
    flow.set_to_track(trace::PackTrackKey({record::EventKind::kCall, 0, 3, 1}));
    flow.set_to_index(0);
    flow.set_label(1);
    extras.flows.push_back(flow);
    (*writer)->ConsumeWithExtras(batch, extras, true);
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::remove(path.c_str());
  return std::move(bytes).str();
}

}  // namespace pipescope::fuzz
