// A real profiler trace (tests/trace/data/real) imported, saved as .pstrace and opened
// again keeps every span exactly: its track (kind, op, thread, depth), start, duration,
// own time, name and category, arguments, and every flow. Also: a version 1 file (before
// names and depths) still opens.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

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

}  // namespace
}  // namespace pipescope::trace
