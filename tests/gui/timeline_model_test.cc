// The timeline's arithmetic and content without a display: time <-> pixel mapping, zoom
// around a point, pan, tick steps, and the lanes built from a recorded run (consumer,
// device, a lane per op and thread, counters). The level-of-detail summaries the lanes are
// drawn from are tested against brute force in trace_model_test (Track::Summarize).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "app/session/recorded_run.h"
#include "app/session/trace_files.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/import/chrome_trace_import.h"
#include "instrumentation/trace/import/host_merge.h"
#include "ui/timeline/counter_values.h"
#include "ui/timeline/coverage.h"
#include "ui/timeline/lanes.h"
#include "ui/timeline/legend.h"
#include "ui/timeline/markers_in_view.h"
#include "ui/timeline/rate_plot.h"
#include "ui/timeline/span_caption.h"
#include "ui/timeline/summary_cache.h"
#include "ui/timeline/time_axis.h"
#include "ui/timeline/timeline_layout.h"

namespace pipescope::ui {
namespace {

// The (last) counter lane of `kind`, nullptr when there is none.
const Lane* CounterLaneOf(const std::vector<Lane>& lanes, CounterKind kind) {
  const Lane* found = nullptr;
  for (const Lane& l : lanes) {
    if (l.kind == LaneKind::kCounter && l.counter == kind) found = &l;
  }
  return found;
}

// A partly covered pixel is as high as its coverage: 60% busy looks 60% busy zoomed out.
TEST(CoverageTest, APixelsHeightIsItsCoveredShare) {
  const float lane = 20;
  EXPECT_FLOAT_EQ(CoveredHeight(0, 1000, lane), 0);
  EXPECT_FLOAT_EQ(CoveredHeight(600, 1000, lane), 12) << "60% of the pixel, 60% of the lane";
  EXPECT_FLOAT_EQ(CoveredHeight(250, 1000, lane), 5);
  EXPECT_FLOAT_EQ(CoveredHeight(950, 1000, lane), lane) << "nearly full is drawn whole";
  EXPECT_FLOAT_EQ(CoveredHeight(1000, 1000, lane), lane);
  EXPECT_FLOAT_EQ(CoveredHeight(3000, 1000, lane), lane) << "overlapping spans never overflow";
  EXPECT_FLOAT_EQ(CoveredHeight(1, 1'000'000, lane), 1) << "a short span still shows";
  EXPECT_LT(CoveredHeight(600, 1000, lane), CoveredHeight(900, 1000, lane))
      << "60% and 90% busy must look different";
}

// Intervals summed per pixel: 10 pixels of 100 ns over [1000, 2000).
TEST(CoverageTest, IntervalsAreSummedPerPixel) {
  std::vector<double> covered;
  CoverageByPixel({{0, 1050}, {1120, 1180}, {1250, 1450}, {1990, 5000}}, 1000, 2000, 10, covered);
  ASSERT_EQ(covered.size(), 10u);
  const std::vector<double> expected = {50, 60, 50, 100, 50, 0, 0, 0, 0, 10};
  for (size_t p = 0; p < 10; ++p) EXPECT_DOUBLE_EQ(covered[p], expected[p]) << "pixel " << p;
  CoverageByPixel({{0, 500}, {2500, 3000}}, 1000, 2000, 10, covered);
  for (double c : covered) EXPECT_EQ(c, 0) << "nothing in view";
}

TEST(TimeAxisTest, TimesAndPixelsMapBothWays) {
  TimeAxis a{1'000, 2'001'000, 100, 1000};  // 2 ms over 1000 px from x = 100
  EXPECT_FLOAT_EQ(a.ToPixel(1'000), 100);
  EXPECT_FLOAT_EQ(a.ToPixel(1'001'000), 600);
  EXPECT_EQ(a.ToTime(600), 1'001'000);
  EXPECT_DOUBLE_EQ(a.ns_per_pixel(), 2'000);
  for (float px : {100.0f, 333.0f, 1099.0f}) EXPECT_NEAR(a.ToPixel(a.ToTime(px)), px, 1e-3);
}

TEST(TimeAxisTest, ZoomKeepsTheTimeUnderTheCursorInPlace) {
  TimeAxis a{0, 1'000'000, 0, 1000};
  const int64_t under = a.ToTime(250);
  a.ZoomAround(0.5, 250);
  EXPECT_EQ(a.t1 - a.t0, 500'000);
  EXPECT_NEAR(static_cast<double>(a.ToTime(250)), static_cast<double>(under), 1.0);
  a.ZoomAround(1e-9, 250);
  EXPECT_EQ(a.t1 - a.t0, static_cast<int64_t>(TimeAxis::kMinSpanNs)) << "zoom in stops at 100 ns";
}

TEST(TimeAxisTest, DraggingRightShowsEarlierTime) {
  TimeAxis a{1'000'000, 2'000'000, 0, 1000};
  a.PanPixels(100);
  EXPECT_EQ(a.t0, 900'000);
  EXPECT_EQ(a.t1, 1'900'000);
}

TEST(TimeAxisTest, FollowingKeepsTheSpanAndEndsAtTheNewestTime) {
  TimeAxis a{0, 2'000, 0, 100};
  a.EndAt(10'000);
  EXPECT_EQ(a.t0, 8'000);
  EXPECT_EQ(a.t1, 10'000);
  a.EndAt(500);  // shorter than the span: starts at 0
  EXPECT_EQ(a.t0, 0);
}

TEST(TimeAxisTest, TicksFallOnA125GridAbout100PixelsApart) {
  TimeAxis a{0, 1'000'000'000, 0, 1000};  // 1 s over 1000 px: 100 ms per 100 px
  EXPECT_DOUBLE_EQ(a.TickStep(), 100'000'000);
  a.t1 = 3'000'000'000;  // 300 ms per 100 px -> 500 ms
  EXPECT_DOUBLE_EQ(a.TickStep(), 500'000'000);
  a.t1 = 1'500'000;  // 150 us per 100 px -> 200 us
  EXPECT_DOUBLE_EQ(a.TickStep(), 200'000);
}

// A live run's lanes paint up to "now" and no further.
TEST(TimeAxisTest, PixelsBeforeATimeStopAtIt) {
  TimeAxis a;
  a.t0 = 1'000;
  a.t1 = 2'000;
  a.width = 100;  // 10 ns a pixel
  EXPECT_EQ(a.PixelsBefore(1'500, 100), 50);
  EXPECT_EQ(a.PixelsBefore(1'505, 100), 51) << "a pixel that starts before t is painted";
  EXPECT_EQ(a.PixelsBefore(900, 100), 0);
  EXPECT_EQ(a.PixelsBefore(5'000, 100), 100);
}

TEST(TimeAxisTest, NeighbouringTicksNeverReadAlike) {
  // Zoomed in at 2.5 s with ticks 1 ms apart: every label differs from the next.
  TimeAxis a;
  a.t0 = 2'510'000'000;
  a.t1 = 2'520'000'000;
  a.width = 1000;
  const double tick = a.TickStep();
  ASSERT_DOUBLE_EQ(tick, 1'000'000);
  std::string previous;
  for (double t = a.t0; t < a.t1; t += tick) {
    const std::string label = FormatTimeAt(static_cast<int64_t>(t), tick);
    EXPECT_NE(label, previous);
    previous = label;
  }
  EXPECT_EQ(FormatTimeAt(2'513'000'000, tick), "2.513 s");
  EXPECT_EQ(FormatTimeAt(2'500'000'000, 100'000'000), "2.5 s");
  EXPECT_EQ(FormatTimeAt(3'000'000'000, 1'000'000'000), "3 s");
  EXPECT_EQ(FormatTimeAt(0, 1'000'000'000), "0 s");
  EXPECT_EQ(FormatTimeAt(1'250'000, 50'000), "1.25 ms");
  EXPECT_EQ(FormatTimeAt(840, 1), "840 ns");
  EXPECT_EQ(FormatTimeAt(2'513'123'456, 100), "2.5131235 s");
}

TEST(TimeAxisTest, DurationsReadInTheirUnit) {
  EXPECT_EQ(FormatDuration(0), "0") << "the axis origin";
  EXPECT_EQ(FormatDuration(1'500), "1.5 µs");
  EXPECT_EQ(FormatDuration(2'500'000), "2.5 ms");
  EXPECT_EQ(FormatDuration(3e9), "3 s");
}

// Zoomed in, a recorded span reads like an imported one: its op, its element, its length.
TEST(SpanCaptionTest, ARecordedSpanSaysItsOpElementAndDuration) {
  trace::Model model;
  record::TraceBatch batch;
  record::StageDef decode;
  decode.id = 3;
  decode.name = "decode";
  batch.stages.push_back(decode);
  batch.events.push_back({0, 3'200'000, 841, 0, 1, 3, record::EventKind::kWork, 0});
  batch.events.push_back({4'000'000, 5'000'000, 842, 0, 1, 3, record::EventKind::kCall, 0, 10});
  batch.events.push_back({0, 1'500'000, 0, 0, 1, 3, record::EventKind::kWaitInput, 0});
  batch.events.push_back({0, 2'000'000, 7, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  batch.time_ns = 6'000'000;
  model.Consume(batch, true);
  auto caption = [&](record::EventKind kind, uint16_t op, size_t i = 0) {
    for (const auto& t : model.tracks()) {
      if (t->key().kind == kind && t->key().op == op) return SpanCaption(model, *t, i);
    }
    return std::string("no track");
  };
  EXPECT_EQ(caption(record::EventKind::kWork, 3), "decode #841 3.2 ms");
  EXPECT_EQ(caption(record::EventKind::kCall, 3), "decode #842-851 1 ms") << "a run of 10 calls";
  EXPECT_EQ(caption(record::EventKind::kWaitInput, 3), "waiting for input 1.5 ms");
  EXPECT_EQ(caption(record::EventKind::kStep, record::kDeviceOp), "step #7 2 ms");
}

// Steps every 10 ms for 1 s, then every 20 ms for 1 s: the plot reads 100, then 50 steps/s,
// at any zoom, and nothing before the first step or after the last.
trace::Track SteadyThenSlowSteps() {
  trace::Track steps({record::EventKind::kStep, record::kDeviceOp, 0});
  int64_t t = 100'000'000;
  for (int i = 0; i < 100; ++i, t += 10'000'000) steps.Append(t, t + 8'000'000, i, 0);
  for (int i = 0; i < 50; ++i, t += 20'000'000) steps.Append(t, t + 8'000'000, 100 + i, 0);
  return steps;
}

TEST(RatePlotTest, ASteadyStepReadsItsRateAtEveryZoom) {
  const trace::Track steps = SteadyThenSlowSteps();
  for (const float width : {300.0f, 1000.0f, 4000.0f}) {
    const TimeAxis axis{0, 2'500'000'000, 0, width};
    const RatePlot plot = BuildRatePlot(steps, axis);
    ASSERT_EQ(plot.rate.size(), static_cast<size_t>(width));
    auto at = [&](int64_t t) { return plot.rate[static_cast<size_t>(axis.ToPixel(t))]; };
    EXPECT_NEAR(at(500'000'000), 100, 0.5) << "width " << width;
    EXPECT_NEAR(at(1'600'000'000), 50, 0.5) << "width " << width;
    EXPECT_TRUE(std::isnan(at(50'000'000))) << "before the first step nothing is known";
    EXPECT_TRUE(std::isnan(at(2'300'000'000))) << "after the last step nothing is drawn";
    EXPECT_NEAR(plot.max, 100, 1);
    EXPECT_NEAR(plot.mean_in_view, 149 / 1.98, 0.5) << "149 steps from 0.1 s to 2.08 s";
    EXPECT_EQ(plot.axis_top, 100);
    EXPECT_GE(plot.window_ns, 20'000'000) << "at least two step intervals";
  }
  // Zoomed in to 30 ms: within one steady stretch the rate stays flat, no sawtooth.
  const TimeAxis close{500'000'000, 530'000'000, 0, 1200};
  const RatePlot plot = BuildRatePlot(steps, close);
  for (const float r : plot.rate) EXPECT_NEAR(r, 100, 0.01);
}

// The label column: the widest label and some room, never more than 40% of the timeline
// (70% once a person dragged it), never under kMinLabelWidth unless the timeline is tiny.
TEST(TimelineLayoutTest, TheLabelColumnFollowsItsLabelsWithinLimits) {
  EXPECT_FLOAT_EQ(LabelColumnWidth(126, 0, 1000), 126 + kLabelPadding);
  EXPECT_FLOAT_EQ(LabelColumnWidth(40, 0, 1000), kMinLabelWidth) << "short labels";
  EXPECT_FLOAT_EQ(LabelColumnWidth(500, 0, 1000), 400) << "40% at most";
  // Presenter mode on a lesson: 325 logical px of timeline, labels of 230.
  EXPECT_LE(LabelColumnWidth(230, 0, 325), 0.4f * 325 + 0.01f);
  EXPECT_FLOAT_EQ(LabelColumnWidth(126, 600, 1000), 600) << "a dragged width";
  EXPECT_FLOAT_EQ(LabelColumnWidth(126, 900, 1000), 700) << "70% at most";
  EXPECT_FLOAT_EQ(LabelColumnWidth(126, 0, 100), 50) << "a tiny timeline: half of it";
}

TEST(RatePlotTest, TheAxisTopIsARoundNumberAboveTheMaximum) {
  EXPECT_EQ(engine::RoundAxisTop(0), 1);
  EXPECT_EQ(engine::RoundAxisTop(76.3), 100);
  EXPECT_EQ(engine::RoundAxisTop(100), 100);
  EXPECT_EQ(engine::RoundAxisTop(122.9), 200);
  EXPECT_EQ(engine::RoundAxisTop(210), 250);
  EXPECT_EQ(engine::RoundAxisTop(4.2), 5);
  EXPECT_DOUBLE_EQ(engine::RoundAxisTop(0.3), 0.5);
}

// Imported spans are coloured by name: one name, one colour; light text reads on all.
TEST(LegendTest, ANamesColourIsStableAndMidToned) {
  EXPECT_EQ(NameColor("aten::conv2d"), NameColor("aten::conv2d"));
  EXPECT_NE(NameColor("aten::conv2d"), NameColor("aten::relu"));
  for (int i = 0; i < 2000; ++i) {  // every hue, through many names
    const std::string name = "aten::op" + std::to_string(i);
    const ImU32 c = NameColor(name);
    const double luma = 0.299 * (c & 0xFF) + 0.587 * ((c >> 8) & 0xFF) + 0.114 * ((c >> 16) & 0xFF);
    EXPECT_LT(luma, 170) << name << ": the span text (250, 250, 250) must stand out";
    EXPECT_GT(luma, 60) << name;
  }
  EXPECT_EQ(NameColor("x", 70) >> 24, 70u) << "dimmed by a search";
}

// The legend lists the colours the trace uses, each with the colour its lanes are drawn in.
TEST(LegendTest, ListsTheColoursTheTraceUsesAndNoOthers) {
  auto labels_of = [](const std::vector<LegendEntry>& legend) {
    std::vector<std::string> out;
    out.reserve(legend.size());
    for (const LegendEntry& e : legend) out.push_back(e.label);
    return out;
  };
  auto color_of = [](const std::vector<LegendEntry>& legend, const std::string& label) {
    for (const LegendEntry& e : legend) {
      if (e.label == label) return e.color;
    }
    return ImU32{0};
  };
  const Palette palette = Palette::Dark();
  trace::Model recorded;
  record::TraceBatch batch;
  batch.events.push_back({0, 900, 1, 0, 1, 3, record::EventKind::kWork, 0});
  batch.events.push_back({900, 1000, 0, 0, 1, 3, record::EventKind::kBlocked, 0});
  batch.events.push_back({100, 300, 0, 0, 1, 3, record::EventKind::kLockWait, 0});
  batch.events.push_back({0, 500, 0, 0, 2, record::kConsumerOp, record::EventKind::kInputWait, 0});
  batch.events.push_back({500, 900, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  batch.knob_changes.push_back({400, 3, "num_parallel_calls", 1, 2, "autotuner"});
  batch.time_ns = 1000;
  recorded.Consume(batch, true);
  const auto legend = BuildLegend(recorded, palette);
  EXPECT_EQ(labels_of(legend),
            (std::vector<std::string>{"consumer waits for input", "device step", "device idle",
                                      "worker: work", "worker: blocked on output",
                                      "waiting for the interpreter lock", "tuner move",
                                      "bottleneck, culprit, match"}));
  EXPECT_EQ(color_of(legend, "worker: blocked on output"), ColorOf(record::EventKind::kBlocked));
  EXPECT_EQ(color_of(legend, "tuner move"), palette.tuner_line);

  trace::Model gpu;
  record::TraceBatch kernels;
  kernels.events.push_back(
      {100, 800, 7, 0, 0, record::kDeviceOp, record::EventKind::kGpuKernel, 0});
  kernels.time_ns = 1000;
  gpu.Consume(kernels, true);
  const auto gpu_labels = labels_of(BuildLegend(gpu, palette));
  EXPECT_NE(std::find(gpu_labels.begin(), gpu_labels.end(), "GPU kernel"), gpu_labels.end());
  EXPECT_EQ(std::find(gpu_labels.begin(), gpu_labels.end(), "worker: work"), gpu_labels.end())
      << "no colour the trace does not use";
}

// Each colour says one thing: with every kind of span, counter and change in one trace,
// no two legend entries drawn alike (two blocks, or two lines) are within 60 of each other
// in RGB, except the device's idle time, which is the consumer's red on purpose (both are
// time lost waiting). GPU copies and a person's knob changes were the highlight's yellow.
TEST(LegendTest, NoTwoColoursOfTheLegendReadAlike) {
  trace::Model model;
  record::TraceBatch batch;
  using record::EventKind;
  for (const EventKind kind : {EventKind::kCall, EventKind::kWork, EventKind::kWaitInput,
                               EventKind::kBlocked, EventKind::kIdle, EventKind::kLockWait}) {
    batch.events.push_back({0, 100, 1, 0, 1, 3, kind, 0});
  }
  batch.events.push_back({0, 500, 0, 0, 2, record::kConsumerOp, EventKind::kInputWait, 0});
  batch.events.push_back({500, 900, 1, 0, 0, record::kDeviceOp, EventKind::kStep, 0});
  for (const EventKind kind :
       {EventKind::kGpuKernel, EventKind::kGpuMemcpy, EventKind::kGpuMemset}) {
    batch.events.push_back({600, 700, 0, 0, 0, record::kDeviceOp, kind, 0});
  }
  batch.events.push_back({0, 0, 0, 2, 1, 3, EventKind::kBufferLevel, 0});
  batch.knob_changes.push_back({400, 3, "num_parallel_calls", 1, 2, "autotuner:pipescope"});
  batch.knob_changes.push_back({450, 3, "num_parallel_calls", 2, 3, "you"});
  batch.markers.push_back({300, "rebuilt"});
  batch.time_ns = 1000;
  model.Consume(batch, true);
  for (const Palette& palette : {Palette::Dark(), Palette::Light()}) {
    const auto legend = BuildLegend(model, palette);
    ASSERT_GE(legend.size(), 14u) << "every kind is in this trace";
    for (size_t i = 0; i < legend.size(); ++i) {
      for (size_t j = i + 1; j < legend.size(); ++j) {
        const LegendEntry &a = legend[i], &b = legend[j];
        if (a.line != b.line || b.label == "device idle") continue;
        auto channel = [](ImU32 c, int shift) { return static_cast<double>((c >> shift) & 0xFF); };
        const double distance = std::hypot(channel(a.color, 0) - channel(b.color, 0),
                                           channel(a.color, 8) - channel(b.color, 8),
                                           channel(a.color, 16) - channel(b.color, 16));
        EXPECT_GE(distance, 60) << a.label << " and " << b.label
                                << (palette.dark ? " (dark)" : " (light)");
      }
    }
  }
}

// The device's idle time is painted (and listed) on an imported trace that holds the GPU's
// own work, and not on one that holds only the host's steps (nothing says when it idled).
TEST(LegendTest, AnImportedGpuTraceListsTheDevicesIdleTime) {
  auto legend_of = [](const std::string& name) {
    auto opened =
        session::OpenTraceFile(std::string(PIPESCOPE_SOURCE_DIR) + "/tests/trace/data/" + name);
    EXPECT_TRUE(opened.ok()) << name;
    std::vector<std::string> labels;
    if (!opened.ok()) return labels;
    for (const LegendEntry& e : BuildLegend(*opened->model, Palette::Dark())) {
      labels.push_back(e.label);
    }
    return labels;
  };
  auto has = [](const std::vector<std::string>& labels, const char* label) {
    return std::find(labels.begin(), labels.end(), label) != labels.end();
  };
  // 8,772 "Kernel" events in the raw file (Python's json module counted them).
  const auto resnet = legend_of("real/kineto_resnet50_w0_1623143089861.pt.trace.json.gz");
  EXPECT_TRUE(has(resnet, "GPU kernel"));
  EXPECT_TRUE(has(resnet, "device idle"));
  // TensorFlow's trace viewer export here has no category at all: no device work.
  const auto tensorflow = legend_of("tensorflow_input_bound.json");
  EXPECT_FALSE(has(tensorflow, "GPU kernel"));
  EXPECT_FALSE(has(tensorflow, "device idle"));
}

// A real ResNet-50 trace holds 10,980 [memory] instants and 2 others (counted from the raw
// JSON with Python's json module): drawn as lines they covered the lanes in grey.
TEST(MarkersTest, ThousandsOfInstantsAreTicksAndAFewAreLines) {
  auto opened = session::OpenTraceFile(
      std::string(PIPESCOPE_SOURCE_DIR) +
      "/tests/trace/data/real/kineto_resnet50_w4_1623212756351.pt.trace.json.gz");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  const auto& markers = opened->model->markers();
  ASSERT_EQ(markers.size(), 10'982u);
  EXPECT_TRUE(std::is_sorted(markers.begin(), markers.end(), [](const auto& a, const auto& b) {
    return a.time_ns < b.time_ns;
  })) << "an import's instants come thread by thread; the timeline searches them by time";
  TimeAxis whole;
  whole.Fit(opened->model->duration_ns());
  whole.width = 300;
  const MarkersInView all = FindMarkersInView(markers, whole);
  // All but "Record Window End", 92 ms after the last span the trace holds.
  EXPECT_EQ(all.last - all.first, markers.size() - 1);
  EXPECT_EQ(markers.back().text, "Record Window End");
  EXPECT_GT(markers.back().time_ns, opened->model->duration_ns());
  EXPECT_TRUE(all.as_ticks);
  // Zoomed in around one marker until few are in view: lines, each found by time.
  TimeAxis close = whole;
  close.t0 = markers[5000].time_ns;
  close.t1 = close.t0 + 1;
  const MarkersInView few = FindMarkersInView(markers, close);
  EXPECT_FALSE(few.as_ticks);
  ASSERT_GE(few.last, few.first + 1);
  EXPECT_EQ(markers[few.first].time_ns, close.t0);
}

// A lane's label says the process once and keeps the thread in view: three threads of a
// process named "penv#native-main#platform-runtime#python#py_version_3_10" were three
// identical cut-off labels.
// Lanes keep one order whatever ids the threads got (decode/2 before decode/10), and a
// rebuilt pipeline's op (defined again under a new id) continues its lanes, where every
// lane was listed twice under the same label.
TEST(LanesTest, ARebuildContinuesItsOpsLanesInAStableOrder) {
  EXPECT_TRUE(NaturalLess("decode/2", "decode/10"));
  EXPECT_FALSE(NaturalLess("decode/10", "decode/2"));
  EXPECT_TRUE(NaturalLess("decode/1", "prefetch/producer"));
  EXPECT_FALSE(NaturalLess("decode/3", "decode/3"));
  trace::Model model;
  record::TraceBatch batch;
  record::StageDef before, after;
  before.id = 3;
  before.name = after.name = "decode";
  before.kind = after.kind = "map";
  before.buffer_size = after.buffer_size = 4;
  after.id = 7;  // the rebuild's definition
  batch.stages = {before, after};
  // Thread ids in an order their names do not have.
  batch.threads = {{9, "decode/10"}, {4, "decode/2"}, {5, "decode/0"}, {11, "decode/0"}};
  batch.events.push_back({0, 100, 1, 0, 9, 3, record::EventKind::kWork, 0});
  batch.events.push_back({0, 100, 2, 0, 4, 3, record::EventKind::kWork, 0});
  batch.events.push_back({0, 100, 3, 0, 5, 3, record::EventKind::kWork, 0});
  batch.events.push_back({0, 0, 0, 2, 1, 3, record::EventKind::kBufferLevel, 0});
  batch.markers.push_back({500, "pipeline rebuilt: moved prefetch"});
  batch.events.push_back({600, 700, 4, 0, 11, 7, record::EventKind::kWork, 0});
  batch.events.push_back({600, 600, 0, 3, 1, 7, record::EventKind::kBufferLevel, 0});
  batch.time_ns = 1000;
  model.Consume(batch, true);
  const std::vector<Lane> lanes = BuildLanes(model);
  std::vector<std::string> labels;
  int fill_lanes = 0;
  for (const Lane& l : lanes) {
    if (l.kind == LaneKind::kOp) labels.push_back(l.label);
    fill_lanes += l.kind == LaneKind::kCounter && l.label == "decode buffer fill";
  }
  // The op's name once, its threads under it.
  EXPECT_EQ(labels, (std::vector<std::string>{"decode  decode/0", "        decode/2",
                                              "        decode/10"}));
  EXPECT_EQ(fill_lanes, 1) << "one buffer lane, its samples from both definitions";
  // The op's other threads fold with its first one.
  const std::vector<int> parents = TrackParents(lanes);
  size_t first = lanes.size();
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].label == "decode  decode/0") first = i;
  }
  ASSERT_LT(first, lanes.size());
  EXPECT_EQ(parents[first], -1);
  EXPECT_EQ(parents[first + 1], static_cast<int>(first)) << lanes[first + 1].label;
  EXPECT_EQ(parents[first + 2], static_cast<int>(first)) << lanes[first + 2].label;
  for (const Lane& l : lanes) {
    if (l.label != "decode  decode/0") continue;
    EXPECT_EQ(l.track_count, 2) << "before and after the rebuild";
    EXPECT_EQ(l.op, 7) << "the newest definition: what the live verdict names";
  }
}

// A counter lane's values, computed before drawing: a buffer's level is the mean of its
// samples in a pixel and held where a pixel has none, a rebuilt op's newest definition is
// read from its start, and nothing is drawn after the trace's "now".
TEST(CounterValuesTest, BufferLevelsAreMeansHeldAndReadFromTheNewestDefinition) {
  constexpr int64_t kMs = 1'000'000;
  trace::Model model;
  record::TraceBatch batch;
  record::StageDef before, after;
  before.id = 3;
  after.id = 7;
  before.name = after.name = "decode";
  before.kind = after.kind = "map";
  before.buffer_size = after.buffer_size = 8;
  batch.stages = {before, after};
  for (const auto& [t, level] : {std::pair{0 * kMs, 2u}, {kMs / 2, 4u}, {10 * kMs, 1u}}) {
    batch.events.push_back({t, t, 0, level, 1, 3, record::EventKind::kBufferLevel, 0});
  }
  batch.events.push_back({100 * kMs, 100 * kMs, 0, 7, 1, 7, record::EventKind::kBufferLevel, 0});
  batch.time_ns = 200 * kMs;
  model.Consume(batch, true);
  const std::vector<Lane> lanes = BuildLanes(model);
  const Lane* fill = CounterLaneOf(lanes, CounterKind::kBufferLevel);
  ASSERT_NE(fill, nullptr);
  TimeAxis axis;  // 200 pixels of 1 ms
  axis.t0 = 0;
  axis.t1 = 200 * kMs;
  axis.width = 200;
  std::vector<float> v;
  CounterValues(*fill, axis, 200, 150 * kMs, v);
  ASSERT_EQ(v.size(), 200u);
  EXPECT_FLOAT_EQ(v[0], 3) << "the mean of the pixel's two samples";
  EXPECT_FLOAT_EQ(v[5], 3) << "held until the next sample";
  EXPECT_FLOAT_EQ(v[10], 1);
  EXPECT_FLOAT_EQ(v[99], 1);
  EXPECT_FLOAT_EQ(v[100], 7) << "the rebuild's definition from its first sample";
  EXPECT_FLOAT_EQ(v[149], 7);
  EXPECT_FLOAT_EQ(v[150], 0) << "after now";
  EXPECT_FLOAT_EQ(v[199], 0);
}

// The device's busy share over a window of at least 50 ms: two streams' overlapping work is
// capped at 100%, and an idle stretch reads 0.
TEST(CounterValuesTest, DeviceBusyIsAShareOfItsWindowCappedAtAll) {
  constexpr int64_t kMs = 1'000'000;
  trace::Model model;
  record::TraceBatch batch;
  batch.events.push_back({0, 400 * kMs, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  // Stream work (thread = stream): two streams both busy over [0, 200 ms), none after.
  for (uint32_t stream : {7u, 8u}) {
    batch.events.push_back(
        {0, 200 * kMs, 2, 0, stream, record::kDeviceOp, record::EventKind::kGpuKernel, 0});
  }
  batch.time_ns = 400 * kMs;
  model.Consume(batch, true);
  const std::vector<Lane> lanes = BuildLanes(model);
  const Lane* busy = CounterLaneOf(lanes, CounterKind::kDeviceBusy);
  ASSERT_NE(busy, nullptr);
  TimeAxis axis;  // 400 pixels of 1 ms: a 50 ms window
  axis.t1 = 400 * kMs;
  axis.width = 400;
  EXPECT_EQ(CounterWindowNs(axis), 50 * kMs);
  std::vector<float> v;
  CounterValues(*busy, axis, 400, 400 * kMs, v);
  EXPECT_FLOAT_EQ(v[100], 1) << "two streams' 200% is 100%";
  EXPECT_FLOAT_EQ(v[300], 0);
  EXPECT_NEAR(v[200], 0.5, 0.03) << "half the window before the work ends";
}

// The disk's lane (a spec that names one): its samples are the busy time since the previous
// one, so a pixel's height is the share of its window they cover: all of it while every 50 ms
// brought 50 ms of reads, a fifth where they brought 10 ms.
TEST(CounterValuesTest, TheDisksLaneIsItsBusyShareOfTheWindow) {
  constexpr int64_t kMs = 1'000'000;
  trace::Model model;
  record::TraceBatch batch;
  batch.events.push_back({0, 400 * kMs, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  for (int64_t t = 50 * kMs; t <= 400 * kMs; t += 50 * kMs) {
    const auto busy = static_cast<uint32_t>(t <= 200 * kMs ? 50 * kMs : 10 * kMs);
    batch.events.push_back({t, t, 0, busy, 0, record::kNoOp, record::EventKind::kStorageBusy, 0});
  }
  batch.time_ns = 400 * kMs;
  model.Consume(batch, true);
  const std::vector<Lane> lanes = BuildLanes(model);
  const Lane* disk = CounterLaneOf(lanes, CounterKind::kStorageBusy);
  ASSERT_NE(disk, nullptr);
  EXPECT_EQ(disk->label, "disk busy");
  EXPECT_TRUE(IsBusyShare(disk->counter));
  TimeAxis axis;  // 400 pixels of 1 ms: a 50 ms window
  axis.t1 = 400 * kMs;
  axis.width = 400;
  std::vector<float> v;
  CounterValues(*disk, axis, 400, 400 * kMs, v);
  EXPECT_NEAR(v[100], 1, 0.01);
  EXPECT_NEAR(v[300], 0.2, 0.01);
  // A trace without a disk has no such lane.
  trace::Model no_disk;
  record::TraceBatch steps;
  steps.events.push_back({0, 400 * kMs, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  steps.time_ns = 400 * kMs;
  no_disk.Consume(steps, true);
  EXPECT_EQ(CounterLaneOf(BuildLanes(no_disk), CounterKind::kStorageBusy), nullptr);
}

// Read from the frame's per-pixel summaries, the device's busy share is the exact one
// within the pixel the window's edges cut (taken as a fraction of it): zoomed out (a window
// of four pixels over thousands of steps) and zoomed in (50 pixels), where the pixels whose
// window leaves the view are read from the track as before.
TEST(CounterValuesTest, DeviceBusyReadFromTheSummariesIsTheExactShare) {
  constexpr int64_t kUs = 1'000;
  trace::Model model;
  record::TraceBatch batch;
  std::mt19937_64 rng(5);
  int64_t t = 0;
  for (uint64_t i = 1; t < 40'000'000 * kUs; ++i) {  // 40 s of steps
    const int64_t d = static_cast<int64_t>(100 + rng() % 900) * kUs;
    batch.events.push_back({t, t + d, i, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
    t += d + static_cast<int64_t>(rng() % 1500) * kUs;
  }
  batch.time_ns = t;
  model.Consume(batch, true);
  const std::vector<Lane> lanes = BuildLanes(model);
  const Lane* busy = CounterLaneOf(lanes, CounterKind::kDeviceBusy);
  ASSERT_NE(busy, nullptr);
  for (const int64_t view_ms : {36'000, 400}) {  // 36 ms a pixel (a 4-pixel window), 1 ms
    TimeAxis axis;
    axis.t0 = 1'000'000 * kUs;
    axis.t1 = axis.t0 + view_ms * 1'000 * kUs;
    axis.width = view_ms == 400 ? 400 : 1000;
    const int pixels = static_cast<int>(axis.width);
    std::vector<float> exact, summarized;
    SummaryCache cache;
    CounterValues(*busy, axis, pixels, t, exact);
    CounterValues(*busy, axis, pixels, t, summarized, &cache);
    EXPECT_GT(cache.summarized(), 0) << "read from the summaries";
    const double window_px = static_cast<double>(CounterWindowNs(axis)) / axis.ns_per_pixel();
    double worst = 0;
    for (int p = 0; p < pixels; ++p) {
      worst = std::max(worst, std::fabs(static_cast<double>(exact[static_cast<size_t>(p)]) -
                                        summarized[static_cast<size_t>(p)]));
    }
    // The edges' pixels hold at most half a pixel of misplaced busy time each.
    EXPECT_LE(worst, view_ms == 400 ? 0.02 : 0.05)
        << "view " << view_ms << " ms, window " << window_px << " pixels";
    EXPECT_GT(exact[static_cast<size_t>(pixels / 2)], 0.1);
  }
}

// An imported process is a group of its threads, each thread a track of its nested rows:
// the process is named once, on its first thread's lane; the next thread's lane folds into
// it, and that thread's nested row into the thread's own lane.
TEST(LanesTest, AnImportedProcessGroupsItsThreadsAndEachThreadItsRows) {
  auto imported = trace::ImportChromeTraceText(R"({"traceEvents":[
    {"ph":"M","name":"process_name","pid":7,"args":{"name":"python3"}},
    {"ph":"M","name":"thread_name","pid":7,"tid":1,"args":{"name":"main"}},
    {"ph":"M","name":"thread_name","pid":7,"tid":2,"args":{"name":"worker"}},
    {"ph":"X","name":"step","pid":7,"tid":1,"ts":0,"dur":100},
    {"ph":"X","name":"load","pid":7,"tid":2,"ts":0,"dur":100},
    {"ph":"X","name":"decode","pid":7,"tid":2,"ts":10,"dur":50}]})",
                                               "two_threads.json");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const std::vector<Lane> lanes = BuildLanes(*imported->model);
  const std::vector<int> parents = TrackParents(lanes);
  std::vector<size_t> op_lanes;
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].kind == LaneKind::kOp) op_lanes.push_back(i);
  }
  ASSERT_EQ(op_lanes.size(), 3u) << "main; worker and its nested row";
  const Lane& main = lanes[op_lanes[0]];
  const Lane& worker = lanes[op_lanes[1]];
  const Lane& nested = lanes[op_lanes[2]];
  EXPECT_EQ(main.label, "python3  main");
  EXPECT_EQ(worker.label, "         worker") << "the thread under the thread above";
  EXPECT_TRUE(worker.continues_op);
  EXPECT_EQ(nested.depth, 1);
  EXPECT_TRUE(nested.label.empty());
  EXPECT_EQ(parents[op_lanes[0]], -1);
  EXPECT_EQ(parents[op_lanes[1]], static_cast<int>(op_lanes[0])) << "the process's group";
  EXPECT_EQ(parents[op_lanes[2]], static_cast<int>(op_lanes[1])) << "its own thread's track";
}

// Two hosts' traces in one view: each host is a group, named once on its first lane, its
// other lanes saying only their own part under it and folding into it.
TEST(LanesTest, EachHostOfAMergedViewIsAGroupNamedOnce) {
  std::vector<trace::HostTrace> hosts;
  for (const char* name : {"pytorch_compute_bound", "pytorch_input_bound"}) {
    auto imported = trace::ImportChromeTrace(std::string(PIPESCOPE_SOURCE_DIR) +
                                             "/tests/trace/data/" + name + ".json");
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    hosts.push_back(
        trace::HostTrace{name, std::shared_ptr<const trace::Model>(std::move(imported->model))});
  }
  const trace::MergedHosts merged = trace::MergeHosts(hosts);
  const std::vector<Lane> lanes = BuildLanes(*merged.model);
  const std::vector<int> parents = TrackParents(lanes);
  // The hosts in the order they were given (worker0 before worker1).
  std::vector<std::string> order;
  for (const Lane& l : lanes) {
    if (!l.host.empty() && (order.empty() || order.back() != l.host)) order.push_back(l.host);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"pytorch_compute_bound", "pytorch_input_bound"}));
  for (const std::string host : {"pytorch_compute_bound", "pytorch_input_bound"}) {
    std::vector<size_t> of_host;
    for (size_t i = 0; i < lanes.size(); ++i) {
      if (lanes[i].host == host && lanes[i].kind != LaneKind::kCounter) of_host.push_back(i);
    }
    ASSERT_GE(of_host.size(), 3u) << host << ": steps, input wait, GPU, its threads";
    const size_t head = of_host.front();
    EXPECT_EQ(parents[head], -1) << host;
    EXPECT_TRUE(lanes[head].label.starts_with(host + ": ")) << lanes[head].label;
    for (size_t k = 1; k < of_host.size(); ++k) {
      const size_t i = of_host[k];
      EXPECT_EQ(lanes[i].label.find(host), std::string::npos)
          << "the host said once: \"" << lanes[i].label << "\"";
      size_t up = i;  // every lane of the host folds into its first one
      while (parents[up] >= 0 && static_cast<size_t>(parents[up]) != head)
        up = static_cast<size_t>(parents[up]);
      EXPECT_EQ(parents[up], static_cast<int>(head)) << lanes[i].label;
    }
  }
}

TEST(LanesTest, OpThreadLabelsSayTheProcessOnceAndKeepTheThread) {
  EXPECT_EQ(OpThreadLabel("GPU 0", "GPU 0 / stream 7"), "GPU 0  stream 7");
  EXPECT_EQ(OpThreadLabel("decode", "decode/0"), "decode  decode/0") << "a recording's own";
  const std::string process = "penv#native-main#platform-runtime#python#py_version_3_10";
  const std::string a = OpThreadLabel(process, process + " / thread 1102 (pt_main_thread)");
  const std::string b = OpThreadLabel(process, process + " / thread 1262 (pt_autograd_0)");
  EXPECT_EQ(a, "penv#...n_3_10  thread 1102 (pt_main_thread)") << "14 characters";
  EXPECT_NE(a.substr(0, 40), b.substr(0, 40)) << "the threads differ within the label column";
}

TEST(LanesTest, ARecordedRunHasConsumerDeviceOpAndCounterLanes) {
  auto spec = engine::ParseSpecText(R"(
    source { name: "read" synthetic { records: 400 record_bytes: 64 } }
    ops { name: "decode" map { fn { cpu_work { duration: "100us" } } num_parallel_calls: 2 } }
    ops { name: "batch" batch { batch_size: 4 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } }
    train_step { step_time: "200us" device: simulated })",
                                    "lanes");
  ASSERT_TRUE(spec.ok());
  auto run = session::RunRecorded(*spec, {});
  ASSERT_TRUE(run.ok() && run->run_status.ok());
  const std::vector<Lane> lanes = BuildLanes(*run->model);
  ASSERT_GE(lanes.size(), 6u);
  EXPECT_EQ(lanes[0].kind, LaneKind::kConsumer);
  EXPECT_EQ(lanes[1].kind, LaneKind::kDevice);
  // Ops from the consumer's end: prefetch lanes come before decode's, decode has a lane
  // per worker.
  std::vector<std::string> op_order;
  int decode_workers = 0;
  for (const Lane& l : lanes) {
    if (l.kind != LaneKind::kOp) continue;
    const std::string name = run->model->Stage(static_cast<uint16_t>(l.op))->name;
    if (op_order.empty() || op_order.back() != name) op_order.push_back(name);
    if (name == "decode" && l.label.find("decode/") != std::string::npos) ++decode_workers;
  }
  ASSERT_GE(op_order.size(), 3u);
  EXPECT_EQ(op_order.front(), "prefetch");
  EXPECT_EQ(op_order.back(), "read");
  EXPECT_EQ(decode_workers, 2);
  int buffer_lanes = 0, busy_lanes = 0;
  for (const Lane& l : lanes) {
    if (l.kind != LaneKind::kCounter) continue;
    buffer_lanes += l.counter == CounterKind::kBufferLevel;
    busy_lanes += l.counter == CounterKind::kDeviceBusy;
  }
  EXPECT_EQ(buffer_lanes, 2) << "decode and prefetch have buffers";
  EXPECT_EQ(busy_lanes, 1);
  EXPECT_NE(StepTrackOf(lanes), nullptr) << "the steps/s plot counts the device's steps";
  EXPECT_EQ(LaneFingerprint(*run->model), LaneFingerprint(*run->model));
}

TEST(LanesTest, AGpuTraceHasKernelAndCopyLanesAndUtilisationFromThem) {
  trace::Model model;
  record::TraceBatch batch;
  batch.events.push_back({0, 900, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  batch.events.push_back({100, 800, 7, 0, 0, record::kDeviceOp, record::EventKind::kGpuKernel, 0});
  batch.events.push_back({0, 100, 6, 4096, 0, record::kDeviceOp, record::EventKind::kGpuMemcpy, 0});
  batch.time_ns = 1000;
  model.Consume(batch, true);
  const auto lanes = BuildLanes(model);
  std::vector<std::string> labels;
  labels.reserve(lanes.size());
  for (const Lane& l : lanes) labels.push_back(l.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"device", "GPU kernels", "GPU copies", "GPU utilisation"}));
  EXPECT_EQ(lanes.back().kind, LaneKind::kCounter);
  EXPECT_EQ(lanes.back().track_count, 2) << "utilisation from the kernels and the copies";
}

// The consumer lane's label says what its red means: every wait, or on a device whose own
// work the trace holds (a GPU running queued steps), only the waits while it idled.
TEST(LanesTest, TheConsumerLabelSaysWhatItsRedMeans) {
  trace::Model model;
  record::TraceBatch batch;
  batch.events.push_back({0, 900, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  batch.events.push_back({0, 300, 1, 0, 0, record::kConsumerOp, record::EventKind::kInputWait, 0});
  batch.time_ns = 1000;
  model.Consume(batch, true);
  EXPECT_FALSE(RedOnlyWhileDeviceIdles(model));
  EXPECT_EQ(BuildLanes(model).front().label, "consumer (waits in red)");
  record::TraceBatch gpu;
  gpu.events.push_back({100, 800, 7, 0, 0, record::kDeviceOp, record::EventKind::kGpuKernel, 0});
  gpu.time_ns = 1000;
  model.Consume(gpu, true);
  EXPECT_TRUE(RedOnlyWhileDeviceIdles(model));
  EXPECT_EQ(BuildLanes(model).front().label, "consumer (red: device idle)");
}

// The timeline's summaries are reused while the zoom and the track stay the same, and
// computed again (and equal to the track's own) where either changes: a zoom everywhere, a
// live track that grew from its old end on.
TEST(SummaryCacheTest, ReusesASummaryUntilTheZoomOrTheTrackChanges) {
  trace::Track track({record::EventKind::kCall, 1, 1});
  for (int i = 0; i < 1000; ++i) track.Append(i * 100, i * 100 + 60, 0, 0);
  SummaryCache cache;
  std::vector<trace::Track::Bucket> direct;
  const auto same = [&](int64_t t0, int64_t t1, int pixels) {
    const auto& cached = cache.Of(track, t0, t1, pixels);
    track.Summarize(t0, t1, pixels, direct);
    if (cached.size() != direct.size()) return false;
    for (size_t p = 0; p < direct.size(); ++p) {
      if (cached[p].covered_ns != direct[p].covered_ns || cached[p].events != direct[p].events)
        return false;
    }
    return true;
  };
  EXPECT_TRUE(same(0, 100'000, 300));
  EXPECT_TRUE(same(0, 100'000, 300));
  EXPECT_EQ(cache.summarized(), 1) << "the same view is not summarized twice";
  EXPECT_TRUE(same(0, 100'000, 200));
  EXPECT_EQ(cache.summarized(), 2) << "a zoom summarizes afresh";
  const int64_t cells = cache.cells_summarized();
  track.Append(100'000, 100'050, 0, 0);  // a live track grows
  EXPECT_TRUE(same(0, 100'000, 200));
  EXPECT_EQ(cache.summarized(), 3);
  EXPECT_EQ(cache.cells_summarized() - cells, 2)
      << "the cells from the one holding its old end (99,960 ns, cell 199) and one before";
  cache.Clear();
  EXPECT_TRUE(same(1, 100'001, 200));
  EXPECT_EQ(cache.summarized(), 4);
}

// A pan keeps the zoom's grid: k pixels summarize k cells, and each pixel shows the cell
// of the grid nearest to it, what the track's own summary of that cell's times says.
TEST(SummaryCacheTest, APanSummarizesOnlyTheCellsItBringsIntoView) {
  trace::Track track({record::EventKind::kCall, 1, 1});
  for (int i = 0; i < 1000; ++i) track.Append(i * 100 + (i * 37) % 50, i * 100 + 60, 0, 0);
  SummaryCache cache;
  const int pixels = 250;  // 400 ns a pixel over 100 µs
  cache.Of(track, 0, 100'000, pixels);
  const int64_t before = cache.cells_summarized();
  EXPECT_EQ(before, pixels);
  std::vector<trace::Track::Bucket> direct;
  for (const int64_t shift : {1'200, -400, 50'000, 130, 400'000}) {
    const int64_t t0 = 1'000 + shift;
    cache.Of(track, 1'000, 101'000, pixels);  // the view before the pan: cells 3 to 252
    const int64_t cells_before = cache.cells_summarized();
    const auto& cached = cache.Of(track, t0, t0 + 100'000, pixels);
    // The grid is at 0 ns; the nearest cell to t0 is its pixel 0.
    const int64_t first_cell = std::llround(static_cast<double>(t0) / 400);
    track.Summarize(first_cell * 400, first_cell * 400 + 100'000, pixels, direct);
    ASSERT_EQ(cached.size(), direct.size());
    for (size_t p = 0; p < direct.size(); ++p) {
      EXPECT_EQ(cached[p].covered_ns, direct[p].covered_ns) << "shift " << shift << " pixel " << p;
      EXPECT_EQ(cached[p].events, direct[p].events) << "shift " << shift << " pixel " << p;
      EXPECT_EQ(cached[p].first, direct[p].first) << "shift " << shift << " pixel " << p;
    }
    EXPECT_EQ(cache.cells_summarized() - cells_before,
              std::min<int64_t>(pixels, std::abs(first_cell - 3)))
        << "shift " << shift;
  }
  cache.Of(track, 400 * 7, 400 * 7 + 100'000, pixels);
  const int64_t cells = cache.cells_summarized();
  cache.Of(track, 400 * 10, 400 * 10 + 100'000, pixels);
  EXPECT_EQ(cache.cells_summarized() - cells, 3) << "a pan of 3 pixels";
}

}  // namespace
}  // namespace pipescope::ui
