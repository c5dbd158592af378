// A real profiler trace (tests/trace/data/real) imported, saved as .pstrace and opened
// again keeps every span exactly: its track (kind, op, thread, depth), start, duration,
// own time, name and category, arguments, and every flow. Exported to Chrome JSON and
// imported again, and exported to Perfetto (read back here with its own messages), every
// span keeps its name, start, duration and nesting depth, and every flow is there.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/core/text_file.h"
#include "instrumentation/trace/export/perfetto_trace.pb.h"
#include "instrumentation/trace/export/trace_export.h"
#include "instrumentation/trace/format/model_writer.h"
#include "instrumentation/trace/format/record_framing.h"
#include "instrumentation/trace/format/trace_reader.h"
#include "instrumentation/trace/import/chrome_trace_import.h"

namespace pipescope::trace {
namespace {

void ExpectSameSpans(const Model& a, const Model& b) {
  ASSERT_EQ(a.tracks().size(), b.tracks().size());
  size_t named = 0, nested = 0;
  for (const auto& ta : a.tracks()) {
    const Track* tb = b.FindTrack(ta->key());
    ASSERT_NE(tb, nullptr) << "track kind " << static_cast<int>(ta->key().kind) << " depth "
                           << static_cast<int>(ta->key().depth);
    ASSERT_EQ(ta->size(), tb->size());
    for (size_t i = 0; i < ta->size(); ++i) {
      ASSERT_EQ(ta->start(i), tb->start(i));
      ASSERT_EQ(ta->duration(i), tb->duration(i));
      ASSERT_EQ(ta->value(i), tb->value(i));
      ASSERT_EQ(a.SpanName(*ta, i), b.SpanName(*tb, i));
      ASSERT_EQ(a.labels()[ta->label(i)].category, b.labels()[tb->label(i)].category);
      ASSERT_EQ(a.args()[ta->args(i)], b.args()[tb->args(i)]);
      named += ta->label(i) != 0;
    }
    nested += ta->key().depth > 0 ? ta->size() : 0;
  }
  EXPECT_GT(named, 40'000u);
  EXPECT_GT(nested, 20'000u) << "most spans of a real trace are nested";
  // Flows are sorted by their tracks' ids, which follow the order tracks were made in:
  // compared as sets of (from track, index, to track, index, name).
  auto flows_of = [](const Model& m) {
    std::vector<std::tuple<uint64_t, uint32_t, uint64_t, uint32_t, std::string>> out;
    for (const Flow& f : m.flows()) {
      out.emplace_back(PackTrackKey(m.tracks()[f.from.track]->key()), f.from.index,
                       PackTrackKey(m.tracks()[f.to.track]->key()), f.to.index,
                       m.labels()[f.label].name);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(flows_of(a), flows_of(b));
}

TEST(ImportedRoundTripTest, ARealTraceSavedAsPstraceOpensWithEverySpanAsItWas) {
  auto imported = ImportChromeTrace(std::string(PIPESCOPE_TEST_DATA) +
                                    "/real/hta_ns_resolution_rank-0.pt.trace.json.gz");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const std::string path = ::testing::TempDir() + "/round_trip.pstrace";
  ASSERT_TRUE(pstrace::WriteModel(*imported->model, path).ok());
  auto loaded = pstrace::ReadTraceFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->header.format_version(), pstrace::kFormatVersion);
  EXPECT_EQ(loaded->model->run_info().imported_from, "pytorch");
  EXPECT_EQ(imported->model->flows().size(), 7000u);
  ExpectSameSpans(*imported->model, *loaded->model);
}

// (depth, start, duration, name) of every span as the profiler wrote it: on its thread or
// stream (the steps and input waits derived from them are copies).
using SpanKey = std::tuple<int, int64_t, int64_t, std::string>;
std::vector<SpanKey> SpansOf(const Model& m) {
  std::vector<SpanKey> out;
  for (const auto& t : m.tracks()) {
    if (t->key().kind != record::EventKind::kCall && !record::IsGpuActivity(t->key().kind))
      continue;
    for (size_t i = 0; i < t->size(); ++i)
      out.emplace_back(t->key().depth, t->start(i), t->duration(i), m.SpanName(*t, i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Equal span lists, or the first few that differ on each side (a real trace has tens of
// thousands: printing them all helps nobody).
void ExpectSameSpanKeys(const std::vector<SpanKey>& got, const std::vector<SpanKey>& want) {
  std::vector<SpanKey> extra, missing;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  EXPECT_EQ(got.size(), want.size());
  EXPECT_EQ(extra.size(), 0u);
  EXPECT_EQ(missing.size(), 0u);
  for (size_t i = 0; i < std::min<size_t>(4, extra.size()); ++i) {
    const auto& [d, s, n, name] = extra[i];
    ADD_FAILURE() << "unexpected: depth " << d << " start " << s << " dur " << n << " "
                  << name.substr(0, 60);
  }
  for (size_t i = 0; i < std::min<size_t>(4, missing.size()); ++i) {
    const auto& [d, s, n, name] = missing[i];
    ADD_FAILURE() << "missing: depth " << d << " start " << s << " dur " << n << " "
                  << name.substr(0, 60);
  }
}

ImportedTrace ImportReal(const std::string& name) {
  auto imported = ImportChromeTrace(std::string(PIPESCOPE_TEST_DATA) + "/real/" + name);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  return imported.ok() ? std::move(imported).value() : ImportedTrace{};
}

TEST(ImportedRoundTripTest, ARealTraceExportedToChromeJsonImportsAsItWas) {
  const ImportedTrace original = ImportReal("hta_trace_diff_control_rank3.json.gz");
  ASSERT_NE(original.model, nullptr);
  const std::string path = ::testing::TempDir() + "/round_trip.json";
  ASSERT_TRUE(ExportChromeJson(*original.model, path).ok());
  auto again = ImportChromeTrace(path);
  ASSERT_TRUE(again.ok()) << again.status().message();
  const auto before = SpansOf(*original.model);
  EXPECT_EQ(before.size(), 74'937u);
  ExpectSameSpanKeys(SpansOf(*again->model), before);
  EXPECT_EQ(again->model->flows().size(), original.model->flows().size());
  EXPECT_EQ(again->framework, "pytorch");
}

TEST(ImportedRoundTripTest, ARealTraceExportedToPerfettoKeepsNamesNestingAndFlows) {
  const ImportedTrace original = ImportReal("hta_ns_resolution_rank-0.pt.trace.json.gz");
  ASSERT_NE(original.model, nullptr);
  const std::string path = ::testing::TempDir() + "/round_trip.perfetto-trace";
  ASSERT_TRUE(ExportPerfetto(*original.model, path).ok());
  auto bytes = engine::ReadWholeFile(path, "trace");
  ASSERT_TRUE(bytes.ok());
  perfetto::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(*bytes));
  // Slices rebuilt from begin/end pairs per track, their depth from the open ones.
  std::map<uint64_t, std::string> names;
  std::map<uint64_t, std::vector<std::pair<int64_t, std::string>>> open;  // by track
  std::map<uint64_t, std::string> track_names;
  std::vector<SpanKey> spans;
  std::set<uint64_t> flow_starts, flow_ends;
  std::map<uint64_t, int> depth_of_overlapping;
  size_t overlapping_spans = 0, nested_spans = 0;
  for (const auto& p : trace.packet()) {
    if (p.has_track_descriptor())
      track_names[p.track_descriptor().uuid()] = p.track_descriptor().name();
    for (const auto& n : p.interned_data().event_names()) names[n.iid()] = n.name();
    if (!p.has_track_event()) continue;
    const auto& e = p.track_event();
    auto& stack = open[e.track_uuid()];
    if (e.type() == perfetto::TrackEvent::TYPE_SLICE_BEGIN) {
      // A span that does not nest in its thread's track sits alone on an overlapping
      // track, its depth annotated.
      for (const auto& a : e.debug_annotations())
        if (a.name() == "depth")
          depth_of_overlapping[e.track_uuid()] = static_cast<int>(a.int_value());
      stack.push_back({static_cast<int64_t>(p.timestamp()), names.at(e.name_iid())});
      flow_starts.insert(e.flow_ids().begin(), e.flow_ids().end());
      flow_ends.insert(e.terminating_flow_ids().begin(), e.terminating_flow_ids().end());
    } else if (e.type() == perfetto::TrackEvent::TYPE_SLICE_END) {
      ASSERT_FALSE(stack.empty());
      const auto [start, name] = stack.back();
      stack.pop_back();
      auto overlapping = depth_of_overlapping.find(e.track_uuid());
      spans.emplace_back(overlapping != depth_of_overlapping.end() ? overlapping->second
                                                                   : static_cast<int>(stack.size()),
                         start, static_cast<int64_t>(p.timestamp()) - start, name);
      ++(overlapping != depth_of_overlapping.end() ? overlapping_spans : nested_spans);
    }
  }
  std::sort(spans.begin(), spans.end());
  ExpectSameSpanKeys(spans, SpansOf(*original.model));
  EXPECT_LT(overlapping_spans * 20, nested_spans) << "most spans nest on their thread's track";
  EXPECT_EQ(flow_starts, flow_ends);
  EXPECT_EQ(flow_starts.size(), original.model->flows().size());
  bool stream_track = false;
  for (const auto& [uuid, name] : track_names) stream_track |= name == "GPU 0 / stream 7";
  EXPECT_TRUE(stream_track) << "a track per GPU stream";
}

}  // namespace
}  // namespace pipescope::trace
