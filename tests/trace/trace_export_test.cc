// Exported traces hold what the recording holds, checked field by field: Perfetto's
// packets (read back with the same messages, by their published field numbers) and Chrome
// JSON's events (read back with a JSON parser): every span with its times, lane and
// element, counters, flows through an element's spans, instants for markers, knob changes
// and notes; a cancelled export leaves no file.
#include "instrumentation/trace/export/trace_export.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "instrumentation/trace/export/export_lanes.h"
#include "instrumentation/trace/export/perfetto_trace.pb.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

void Add(Model& m, int64_t start, int64_t end, uint64_t element, uint32_t value, uint32_t thread,
         uint16_t op, EventKind kind) {
  m.AddEvent({start, end, element, value, thread, op, kind, 0});
}

// decode works on elements 1 and 2 on its worker; the consumer waits, then the device
// steps and runs a GPU kernel; a buffer level counter; a marker, a knob change and a note.
std::unique_ptr<Model> SmallTrace() {
  auto m = std::make_unique<Model>();
  m->run_info().pipeline_name = "small \"demo\"";
  m->AddStage({0, "decode", "map", 0, 0, -1, true, 1, 0, record::kTraitParallelFunction});
  m->AddThread({1, "decode/0"});
  m->AddThread({2, "consumer"});
  Add(*m, 1'000, 4'000, 1, 0, 1, 0, EventKind::kWork);
  Add(*m, 5'000, 9'500, 2, 0, 1, 0, EventKind::kWork);
  Add(*m, 2'000, 4'500, 1, 0, 2, record::kConsumerOp, EventKind::kInputWait);
  Add(*m, 4'500, 12'345, 1, 0, 0, record::kDeviceOp, EventKind::kStep);
  Add(*m, 5'000, 8'000, 0, 0, 0, record::kDeviceOp, EventKind::kGpuKernel);
  Add(*m, 3'000, 3'000, 0, 2, 0, 0, EventKind::kBufferLevel);
  Add(*m, 7'000, 7'000, 0, 1, 0, 0, EventKind::kBufferLevel);
  m->AddMarker({6'000, "pipeline rebuilt"});
  m->AddKnobChange({8'000, 0, "num_parallel_calls", 1, 2, "user"});
  m->AddAnnotation({9'000, 9'000, "decode lags", "ana"});
  m->Finish();
  return m;
}

std::string Path(const std::string& name) { return ::testing::TempDir() + "/export_" + name; }

std::string ReadAll(const std::string& path) {
  if (path.ends_with(".gz")) {
    gzFile f = gzopen(path.c_str(), "rb");
    std::string out;
    char buf[4096];
    for (int n; f && (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    if (f) gzclose(f);
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(TraceExportTest, PerfettoPacketsCarryEveryTrackSpanCounterAndInstant) {
  const auto model = SmallTrace();
  const std::string path = Path("small.perfetto-trace");
  ASSERT_TRUE(ExportPerfetto(*model, path).ok());
  perfetto::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(ReadAll(path))) << "a Trace message, packet by packet";

  std::map<uint64_t, std::string> track_names;
  std::map<uint64_t, std::string> interned_names;
  uint64_t process = 0;
  std::map<uint64_t, bool> counter_tracks;
  struct Slice {
    uint64_t begin, end;
    std::string name;
    std::vector<uint64_t> flows;
  };
  std::map<uint64_t, std::vector<Slice>> slices;  // by track
  std::map<uint64_t, std::vector<std::pair<uint64_t, int64_t>>> counters;
  std::vector<std::string> instants;
  for (const auto& p : trace.packet()) {
    EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
    if (p.has_track_descriptor()) {
      const auto& d = p.track_descriptor();
      if (d.has_process()) {
        process = d.uuid();
        EXPECT_EQ(d.process().pid(), 1);
        EXPECT_EQ(d.process().process_name(), "pipescope: small \"demo\"");
        continue;
      }
      EXPECT_EQ(d.parent_uuid(), process) << "every track hangs under the process";
      track_names[d.uuid()] = d.name();
      counter_tracks[d.uuid()] = d.has_counter();
      continue;
    }
    ASSERT_TRUE(p.has_track_event());
    for (const auto& n : p.interned_data().event_names()) interned_names[n.iid()] = n.name();
    const auto& e = p.track_event();
    switch (e.type()) {
      case perfetto::TrackEvent::TYPE_SLICE_BEGIN:
        EXPECT_EQ(p.sequence_flags(), 2u) << "a slice's interned name needs the sequence's state";
        ASSERT_TRUE(interned_names.count(e.name_iid())) << "names are interned before use";
        slices[e.track_uuid()].push_back({p.timestamp(),
                                          0,
                                          interned_names[e.name_iid()],
                                          {e.flow_ids().begin(), e.flow_ids().end()}});
        break;
      case perfetto::TrackEvent::TYPE_SLICE_END:
        ASSERT_FALSE(slices[e.track_uuid()].empty());
        slices[e.track_uuid()].back().end = p.timestamp();
        break;
      case perfetto::TrackEvent::TYPE_COUNTER:
        EXPECT_TRUE(counter_tracks[e.track_uuid()]);
        counters[e.track_uuid()].push_back({p.timestamp(), e.counter_value()});
        break;
      case perfetto::TrackEvent::TYPE_INSTANT:
        instants.push_back(e.name());
        break;
      default:
        ADD_FAILURE() << "unexpected event type " << e.type();
    }
  }
  auto track = [&](const std::string& name) {
    for (const auto& [uuid, n] : track_names)
      if (n == name) return uuid;
    ADD_FAILURE() << "no track " << name;
    return uint64_t{0};
  };
  const auto& work = slices[track("decode: work (decode/0)")];
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(work[0].begin, 1000u);
  EXPECT_EQ(work[0].end, 4000u);
  EXPECT_EQ(work[0].name, "decode work");
  EXPECT_EQ(work[0].flows, std::vector<uint64_t>{1});
  EXPECT_EQ(work[1].flows, std::vector<uint64_t>{2});
  const auto& wait = slices[track("consumer: consumer waiting for input (consumer)")];
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_EQ(wait[0].flows, std::vector<uint64_t>{1}) << "element 1's flow reaches the consumer";
  const auto& step = slices[track("device: device step")];
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0].end, 12'345u);
  ASSERT_EQ(slices[track("device: GPU kernel")].size(), 1u);
  EXPECT_EQ(slices[track("device: GPU kernel")][0].begin, 5000u);
  const auto& level = counters[track("decode: buffer level")];
  ASSERT_EQ(level.size(), 2u);
  EXPECT_EQ(level[0], (std::pair<uint64_t, int64_t>{3000, 2}));
  EXPECT_EQ(level[1], (std::pair<uint64_t, int64_t>{7000, 1}));
  EXPECT_EQ(instants,
            (std::vector<std::string>{"pipeline rebuilt",
                                      "user set decode.num_parallel_calls 1 -> 2", "decode lags"}));
}

TEST(TraceExportTest, ChromeJsonHasCompleteEventsCountersFlowsAndInstants) {
  const auto model = SmallTrace();
  for (const std::string name : {"small.json", "small.json.gz"}) {
    const std::string path = Path(name);
    ASSERT_TRUE(ExportChromeJson(*model, path).ok()) << name;
    const auto j = nlohmann::json::parse(ReadAll(path));
    EXPECT_EQ(j["otherData"]["pipeline"], "small \"demo\"");
    std::map<int, std::string> threads;
    std::vector<nlohmann::json> complete, counters, flows, instants;
    for (const auto& e : j["traceEvents"]) {
      const std::string ph = e["ph"];
      if (ph == "M" && e["name"] == "thread_name") threads[e["tid"]] = e["args"]["name"];
      if (ph == "X") complete.push_back(e);
      if (ph == "C") counters.push_back(e);
      if (ph == "s" || ph == "t" || ph == "f") flows.push_back(e);
      if (ph == "i") instants.push_back(e);
    }
    ASSERT_EQ(complete.size(), 5u) << "every span";
    const auto& first = complete[0];
    EXPECT_EQ(threads[first["tid"]], "decode: work (decode/0)");
    EXPECT_EQ(first["name"], "decode work");
    EXPECT_EQ(first["cat"], "work");
    EXPECT_DOUBLE_EQ(first["ts"].get<double>(), 1.0) << "microseconds";
    EXPECT_DOUBLE_EQ(first["dur"].get<double>(), 3.0);
    EXPECT_EQ(first["args"]["element"], 1);
    bool step_found = false;
    for (const auto& e : complete) {
      if (e["name"] != "device step") continue;
      step_found = true;
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 7.845) << "nanoseconds survive as decimals";
    }
    EXPECT_TRUE(step_found);
    ASSERT_EQ(counters.size(), 2u);
    EXPECT_EQ(counters[0]["name"], "decode: buffer level");
    EXPECT_EQ(counters[0]["args"]["value"], 2);
    // Element 1: work (1 us), consumer wait (2 us), step (4.5 us) -> s, t, f.
    ASSERT_EQ(flows.size(), 3u) << "element 2 has one span: no flow";
    EXPECT_EQ(flows[0]["ph"], "s");
    EXPECT_EQ(flows[1]["ph"], "t");
    EXPECT_EQ(flows[2]["ph"], "f");
    EXPECT_EQ(flows[2]["bp"], "e");
    for (const auto& f : flows) EXPECT_EQ(f["id"], 1);
    EXPECT_DOUBLE_EQ(flows[2]["ts"].get<double>(), 4.5);
    ASSERT_EQ(instants.size(), 3u);
    EXPECT_EQ(instants[0]["name"], "pipeline rebuilt");
    EXPECT_EQ(instants[2]["cat"], "note");
  }
}

// The disk's busy time and the device's per mille, sampled every 50 ms: both formats write
// the percent of each interval (the first point's interval as long as the next one's), at
// most 100, with the unit on Perfetto's counter tracks; a buffer level stays a whole number.
TEST(TraceExportTest, AmountsSinceTheLastSampleAreWrittenAsPercentOfTheInterval) {
  Model m;
  m.run_info().pipeline_name = "disk";
  m.AddStage({0, "read", "map", 0, 0, -1, true, 1, 0, 0});
  constexpr int64_t kMs = 1'000'000;
  Add(m, 50 * kMs, 50 * kMs, 0, 25 * kMs, 0, record::kNoOp, EventKind::kStorageBusy);
  Add(m, 100 * kMs, 100 * kMs, 0, 40 * kMs, 0, record::kNoOp, EventKind::kStorageBusy);
  Add(m, 150 * kMs, 150 * kMs, 0, 60 * kMs, 0, record::kNoOp, EventKind::kStorageBusy);
  Add(m, 150 * kMs, 150 * kMs, 0, 500, 0, record::kDeviceOp, EventKind::kDeviceUtil);
  m.Finish();
  const std::vector<double> disk = {50, 80, 100};

  const std::string path = Path("disk.perfetto-trace");
  ASSERT_TRUE(ExportPerfetto(m, path).ok());
  perfetto::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(ReadAll(path)));
  std::map<uint64_t, std::string> names, units;
  std::map<uint64_t, std::vector<double>> readings;
  for (const auto& p : trace.packet()) {
    if (p.has_track_descriptor() && p.track_descriptor().has_counter()) {
      names[p.track_descriptor().uuid()] = p.track_descriptor().name();
      units[p.track_descriptor().uuid()] = p.track_descriptor().counter().unit_name();
    }
    if (p.has_track_event() && p.track_event().type() == perfetto::TrackEvent::TYPE_COUNTER) {
      EXPECT_TRUE(p.track_event().has_double_counter_value());
      readings[p.track_event().track_uuid()].push_back(p.track_event().double_counter_value());
    }
  }
  for (const auto& [uuid, name] : names) {
    EXPECT_EQ(units[uuid], "%") << name;
    if (name == "disk busy") EXPECT_EQ(readings[uuid], disk);
    if (name == "device: device utilisation") EXPECT_EQ(readings[uuid], std::vector<double>{50});
  }
  EXPECT_EQ(names.size(), 2u);

  const std::string json_path = Path("disk.json");
  ASSERT_TRUE(ExportChromeJson(m, json_path).ok());
  std::vector<double> json_disk;
  const auto json = nlohmann::json::parse(ReadAll(json_path));
  for (const auto& e : json["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == "disk busy") json_disk.push_back(e["args"]["value"]);
  }
  EXPECT_EQ(json_disk, disk);
}

TEST(TraceExportTest, ACancelledExportLeavesNoFile) {
  const auto model = SmallTrace();
  const std::string path = Path("cancelled.json");
  std::remove(path.c_str());
  const auto status = ExportChromeJson(*model, path, [](double) { return false; });
  EXPECT_EQ(status.code(), engine::StatusCode::kCancelled);
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(std::ifstream(path + ".partial").good());
}

TEST(TraceExportTest, MicrosecondsAreExact) {
  std::string s;
  AppendMicros(s, 1'234'567);
  s += ' ';
  AppendMicros(s, 5);
  s += ' ';
  AppendMicros(s, -1'500);
  EXPECT_EQ(s, "1234.567 0.005 -1.500");
}

}  // namespace
}  // namespace pipescope::trace
