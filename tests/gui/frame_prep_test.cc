// The timeline's preprocessing without a display (frame_prep.h): what a frame shows is read
// from the model into plain data, the span names, the device's idle time up to "now", the
// hover tooltip, knob changes, a search's marks, and nothing for lanes off screen.
#include "ui/timeline/frame_prep.h"

#include <gtest/gtest.h>

#include <memory>

#include "ui/timeline/palette.h"

namespace pipescope::ui {
namespace {

using record::EventKind;
constexpr int64_t kMs = 1'000'000;

// A live run 100 ms in: decode (op 3) works on element 841 from 10 to 40 ms and on short
// elements after it; the device steps over [0, 20) and [50, 60) ms; the consumer waits
// between them; decode's parallelism went 1 -> 2 at 30 ms.
std::unique_ptr<trace::Model> LiveRun() {
  auto model = std::make_unique<trace::Model>();
  record::TraceBatch batch;
  record::StageDef decode;
  decode.id = 3;
  decode.name = "decode";
  decode.kind = "map";
  batch.stages = {decode};
  batch.threads = {{1, "decode/0"}};
  batch.events.push_back({10 * kMs, 40 * kMs, 841, 0, 1, 3, EventKind::kCall, 0});
  for (int i = 0; i < 20; ++i) {
    const int64_t t = 45 * kMs + i * kMs;
    batch.events.push_back(
        {t, t + kMs / 2, 842 + static_cast<uint64_t>(i), 0, 1, 3, EventKind::kCall, 0});
  }
  batch.events.push_back({0, 20 * kMs, 1, 0, 0, record::kDeviceOp, EventKind::kStep, 0});
  batch.events.push_back(
      {20 * kMs, 50 * kMs, 2, 0, 0, record::kConsumerOp, EventKind::kInputWait, 0});
  batch.events.push_back({50 * kMs, 60 * kMs, 2, 0, 0, record::kDeviceOp, EventKind::kStep, 0});
  batch.knob_changes.push_back({30 * kMs, 3, "num_parallel_calls", 1, 2, "you"});
  batch.time_ns = 100 * kMs;
  model->Consume(batch, true);
  return model;
}

int LaneOf(const std::vector<Lane>& lanes, LaneKind kind) {
  for (size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].kind == kind) return static_cast<int>(i);
  return -1;
}

FrameRequest RequestFor(const trace::Model& model, const std::vector<Lane>& lanes,
                        const SpanSearch& search) {
  FrameRequest r;
  r.model = &model;
  r.lanes = &lanes;
  r.in_view.assign(lanes.size(), true);
  r.axis.t0 = 0;  // 200 pixels of 1 ms
  r.axis.t1 = 200 * kMs;
  r.axis.x = 300;  // where the lanes start on screen: the content does not depend on it
  r.axis.width = 200;
  r.search = &search;
  return r;
}

TEST(FramePrepTest, AFrameIsReadIntoPlainDataThatOutlivesTheModel) {
  auto model = LiveRun();
  const std::vector<Lane> lanes = BuildLanes(*model);
  const int decode = LaneOf(lanes, LaneKind::kOp);
  const int device = LaneOf(lanes, LaneKind::kDevice);
  ASSERT_GE(decode, 0);
  ASSERT_GE(device, 0);
  const SpanSearch no_search;
  FrameRequest r = RequestFor(*model, lanes, no_search);
  r.hovered_lane = decode;
  r.hovered_t = 25 * kMs;
  r.steps = StepTrackOf(lanes);
  FramePrep prep;
  FrameContent frame;
  prep.Prepare(r, frame);
  model.reset();  // what follows reads the content alone

  ASSERT_EQ(frame.lanes.size(), lanes.size());
  EXPECT_EQ(frame.pixels, 200);
  const LaneContent& ops = frame.lanes[static_cast<size_t>(decode)];
  ASSERT_EQ(ops.tracks.size(), 1u);
  ASSERT_FALSE(ops.tracks[0].runs.empty());
  EXPECT_EQ(ops.tracks[0].runs[0].p, 10) << "pixels from the lanes' left edge, not the screen";
  EXPECT_EQ(ops.tracks[0].runs[0].q, 39);
  ASSERT_EQ(ops.tracks[0].names.size(), 1u) << "only the span wide enough to hold its name";
  EXPECT_EQ(ops.tracks[0].names[0].caption.rfind("decode #841 ", 0), 0u)
      << ops.tracks[0].names[0].caption;
  EXPECT_FLOAT_EQ(ops.tracks[0].names[0].a, 10);
  EXPECT_FLOAT_EQ(ops.tracks[0].names[0].b, 40);
  EXPECT_EQ(ops.tracks[0].color, ColorOf(EventKind::kCall));

  // The device idles between its steps and after its last, up to "now" and not past it.
  const std::vector<double>& idle = frame.lanes[static_cast<size_t>(device)].device_idle_ns;
  ASSERT_EQ(idle.size(), 200u);
  EXPECT_EQ(idle[5], 0) << "stepping";
  EXPECT_NEAR(idle[30], kMs, 1) << "between steps";
  EXPECT_NEAR(idle[80], kMs, 1) << "after the last step, before now";
  EXPECT_EQ(idle[100], 0) << "past now nothing is known";
  EXPECT_EQ(idle[150], 0);

  // The tooltip of the span under the pointer, its lane, element and start at this zoom.
  ASSERT_TRUE(frame.tooltip.shown);
  bool element = false, lane = false;
  for (const TooltipLine& line : frame.tooltip.lines) {
    element = element || line.text == "element 841 (click: its path)";
    lane = lane || line.text == lanes[static_cast<size_t>(decode)].label;
  }
  EXPECT_TRUE(element);
  EXPECT_TRUE(lane);

  ASSERT_EQ(frame.knob_changes.size(), 1u);
  EXPECT_EQ(frame.knob_changes[0].what, "decode.num_parallel_calls");
  EXPECT_TRUE(frame.has_plot);
  EXPECT_EQ(frame.plot.rate.size(), 200u);
}

TEST(FramePrepTest, LanesOffScreenAreNotReadAndASearchDimsTheOthers) {
  auto model = LiveRun();
  const std::vector<Lane> lanes = BuildLanes(*model);
  const int decode = LaneOf(lanes, LaneKind::kOp);
  const int device = LaneOf(lanes, LaneKind::kDevice);
  const int consumer = LaneOf(lanes, LaneKind::kConsumer);
  SpanSearch search;
  search.Set("Decode", model.get());
  FrameRequest r = RequestFor(*model, lanes, search);
  r.in_view[static_cast<size_t>(consumer)] = false;  // scrolled away
  FramePrep prep;
  FrameContent frame;
  prep.Prepare(r, frame);
  EXPECT_FALSE(frame.lanes[static_cast<size_t>(consumer)].in_view);
  EXPECT_TRUE(frame.lanes[static_cast<size_t>(consumer)].tracks.empty());
  const LaneContent& ops = frame.lanes[static_cast<size_t>(decode)];
  EXPECT_TRUE(ops.matches) << "the search matches the op's lane";
  EXPECT_EQ(ops.tracks[0].color >> 24, 255u);
  const LaneContent& steps = frame.lanes[static_cast<size_t>(device)];
  EXPECT_FALSE(steps.matches);
  ASSERT_FALSE(steps.tracks.empty());
  EXPECT_EQ(steps.tracks[0].color >> 24, 70u) << "a lane the search does not match is faint";
  EXPECT_FALSE(frame.tooltip.shown) << "no pointer, no tooltip";
}

}  // namespace
}  // namespace pipescope::ui
