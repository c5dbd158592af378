// Navigating the timeline with the keyboard and the mouse, as users do: W/S/A/D and F,
// the wheel around the cursor, drag to pan, Shift+drag to select a range (the statistics
// follow it), a click on a red gap naming the op that caused it, a click on a span
// highlighting its element's path, and search.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QSettings>
#include <QTest>
#include <QWheelEvent>

#include "gui_test_support.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/device_gaps.h"
#include "ui/main_window.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

class TimelineGuiTest : public ::testing::Test {
 protected:
  // Simulated: the same timeline (waits, spans, their places) however busy the machine.
  static void SetUpTestSuite() { model_ = SimulatePipeline("input_bound_demo", 1.0); }
  static void TearDownTestSuite() { model_.reset(); }

  void SetUp() override {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1280, 800);
    window_->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
    window_->ShowModel(model_, "demo");
    DrawFrames(*window_);
    timeline_ = window_->timeline();
    timeline_->setFocus();
  }

  size_t LaneOf(const trace::Track* track) const {
    size_t lane = 0;
    for (; lane < timeline_->lanes().size(); ++lane) {
      const Lane& l = timeline_->lanes()[lane];
      for (int k = 0; k < l.track_count; ++k)
        if (l.tracks[k] == track) return lane;
    }
    return lane;
  }
  int64_t span() const { return timeline_->view_end() - timeline_->view_start(); }
  QPoint At(int64_t t, size_t lane) const {
    return QPoint(static_cast<int>(timeline_->axis().ToPixel(t)),
                  static_cast<int>(timeline_->lane_top(lane)) + 8);
  }
  void Key(Qt::Key key) {
    QTest::keyClick(timeline_, key);
    QTest::qWait(80);
  }
  // Shows [start, end) in the middle third of the view and clicks its middle on `lane`.
  void ClickMiddleOf(int64_t start, int64_t end, size_t lane) {
    timeline_->SetView(start - (end - start), end + (end - start));
    QTest::qWait(50);
    QTest::mouseClick(timeline_, Qt::LeftButton, Qt::NoModifier, At((start + end) / 2, lane));
    QTest::qWait(150);
  }
  // Whether a label of the window (the Verdict dock's, the status bar's) says `text`, or
  // comes to within 10 s: the docks refresh on their own timer, late on a busy machine.
  bool SomeLabelSays(const QString& text) const {
    return QTest::qWaitFor(
        [&] {
          for (QLabel* l : window_->findChildren<QLabel*>())
            if (l->text().contains(text)) return true;
          return false;
        },
        10'000);
  }

  static std::shared_ptr<trace::Model> model_;
  std::unique_ptr<MainWindow> window_;
  TimelineWidget* timeline_ = nullptr;
};
std::shared_ptr<trace::Model> TimelineGuiTest::model_;

TEST_F(TimelineGuiTest, KeysZoomPanAndFit) {
  const int64_t full = span();
  Key(Qt::Key_W);
  EXPECT_LT(span(), full) << "W zooms in";
  const int64_t zoomed = span();
  const int64_t start = timeline_->view_start();
  Key(Qt::Key_D);
  EXPECT_GT(timeline_->view_start(), start) << "D pans towards later time";
  EXPECT_EQ(span(), zoomed);
  Key(Qt::Key_A);
  EXPECT_EQ(timeline_->view_start(), start) << "A pans back";
  Key(Qt::Key_S);
  EXPECT_GT(span(), zoomed) << "S zooms out";
  Key(Qt::Key_F);
  EXPECT_EQ(timeline_->view_start(), 0);
  EXPECT_EQ(timeline_->view_end(), model_->duration_ns()) << "F fits the whole trace";
}

TEST_F(TimelineGuiTest, TheWheelZoomsAroundTheCursor) {
  const QPoint p(static_cast<int>(timeline_->axis().x + timeline_->axis().width / 4), 60);
  const int64_t under = timeline_->axis().ToTime(static_cast<float>(p.x()));
  QWheelEvent wheel(p, timeline_->mapToGlobal(p), QPoint(), QPoint(0, 240), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(timeline_, &wheel);
  QTest::qWait(80);
  EXPECT_LT(span(), model_->duration_ns() * 0.7);
  EXPECT_NEAR(static_cast<double>(timeline_->axis().ToTime(static_cast<float>(p.x()))),
              static_cast<double>(under), span() / 500.0)
      << "the time under the cursor stays under it";
}

// The label column is as wide as its labels (the demo's are short: well under the 230 px it
// always took), its edge drags to a width that persists, and a double click fits it again.
TEST_F(TimelineGuiTest, TheLabelColumnFitsItsLabelsAndItsEdgeDrags) {
  const float fitted = timeline_->label_width();
  EXPECT_GE(fitted, kMinLabelWidth);
  EXPECT_LT(fitted, 200) << "fitted to \"prefetch  prefetch/producer\" and the plot's labels";
  EXPECT_GE(timeline_->axis().x, fitted) << "the lanes start where the labels end";
  EXPECT_LE(timeline_->axis().x, fitted + 16) << "past the window's padding";
  const QPoint edge(static_cast<int>(timeline_->axis().x), timeline_->height() / 3);
  QTest::mousePress(timeline_, Qt::LeftButton, Qt::NoModifier, edge);
  QTest::qWait(50);
  QTest::mouseMove(timeline_, edge + QPoint(80, 0));
  QTest::qWait(50);
  QTest::mouseRelease(timeline_, Qt::LeftButton, Qt::NoModifier, edge + QPoint(80, 0));
  QTest::qWait(80);
  EXPECT_NEAR(timeline_->label_width(), fitted + 80, 2);
  EXPECT_NEAR(QSettings().value("timeline/label_width").toFloat(), fitted + 80, 2)
      << "the width persists";
  TimelineWidget another;
  EXPECT_NEAR(another.dragged_label_width(), fitted + 80, 2) << "and the next timeline has it";
  const QPoint moved(static_cast<int>(timeline_->axis().x), timeline_->height() / 3);
  QTest::mouseDClick(timeline_, Qt::LeftButton, Qt::NoModifier, moved);
  QTest::qWait(80);
  EXPECT_EQ(timeline_->dragged_label_width(), 0) << "a double click fits it to the labels again";
  EXPECT_NEAR(timeline_->label_width(), fitted, 1);
  timeline_->SetDraggedLabelWidth(0);
}

TEST_F(TimelineGuiTest, DraggingPansAndShiftDraggingSelectsARangeTheStatisticsFollow) {
  const int64_t start = timeline_->view_start();
  const QPoint a = At(model_->duration_ns() / 2, 2);
  QTest::mousePress(timeline_, Qt::LeftButton, Qt::NoModifier, a);
  QTest::qWait(50);
  QTest::mouseMove(timeline_, a + QPoint(-200, 0));
  QTest::qWait(50);
  QTest::mouseRelease(timeline_, Qt::LeftButton, Qt::NoModifier, a + QPoint(-200, 0));
  QTest::qWait(80);
  EXPECT_GT(timeline_->view_start(), start) << "dragging left shows later time";

  Key(Qt::Key_F);
  const QPoint from = At(model_->duration_ns() / 4, 2), to = At(model_->duration_ns() / 2, 2);
  QTest::mousePress(timeline_, Qt::LeftButton, Qt::ShiftModifier, from);
  QTest::qWait(50);
  QTest::mouseMove(timeline_, to);
  QTest::qWait(50);
  QTest::mouseRelease(timeline_, Qt::LeftButton, Qt::ShiftModifier, to);
  QTest::qWait(120);
  EXPECT_GT(timeline_->selection_end(), timeline_->selection_start());
  EXPECT_NEAR(static_cast<double>(timeline_->selection_end() - timeline_->selection_start()),
              model_->duration_ns() / 4.0, model_->duration_ns() / 50.0);
  EXPECT_EQ(window_->analysis().t0, timeline_->selection_start()) << "statistics of the range";
  EXPECT_EQ(window_->analysis().t1, timeline_->selection_end());
  bool label = false;
  for (QLabel* l : window_->findChildren<QLabel*>()) label |= l->text().startsWith("Selection:");
  EXPECT_TRUE(label);
  Key(Qt::Key_Escape);
  EXPECT_LE(timeline_->selection_end(), timeline_->selection_start());
  EXPECT_EQ(window_->analysis().t0, trace::FirstStepNs(*model_))
      << "back to the whole trace after its first step";
  window_->grab().save("timeline_selection.png");
}

// The longest wait of the consumer in the steady state (after the first quarter: the
// first batch's wait is start-up, where the pipeline is still filling), where a click
// surely lands on red.
std::pair<int64_t, int64_t> LongestWait(const trace::Model& model) {
  std::pair<int64_t, int64_t> best{0, 0};
  const int64_t steady = model.duration_ns() / 4;
  for (const auto* t : model.TracksOf(record::EventKind::kInputWait, record::kConsumerOp)) {
    for (size_t i = t->FirstStartingAtOrAfter(steady); i < t->size(); ++i) {
      if (t->duration(i) > best.second - best.first) best = {t->start(i), t->end(i)};
    }
  }
  return best;
}

TEST_F(TimelineGuiTest, ClickingARedGapNamesTheOpThatCausedIt) {
  const auto [start, end] = LongestWait(*model_);
  ASSERT_GT(end, start);
  ClickMiddleOf(start, end, 0);
  const auto& gap = timeline_->gap();
  ASSERT_TRUE(gap.active);
  EXPECT_EQ(gap.start, start);
  EXPECT_EQ(gap.end, end);
  ASSERT_GE(gap.op, 0);
  EXPECT_EQ(model_->Stage(static_cast<uint16_t>(gap.op))->name, "decode") << gap.text;
  EXPECT_TRUE(SomeLabelSays("caused by decode"))
      << "the Verdict dock says which op caused the wait";
  window_->grab().save("timeline_gap.png");
}

// A tooltip's first frame only sizes it (ImGui draws a new window from its second frame):
// the widget draws that second frame itself, where the tooltip waited for the next move.
TEST_F(TimelineGuiTest, ATooltipIsDrawnWithoutAnotherMove) {
  const auto [start, end] = LongestWait(*model_);
  ASSERT_GT(end, start);
  timeline_->SetView(start - (end - start), end + (end - start));
  QTest::mouseMove(timeline_, At(start - (end - start) / 2, 0));  // not over a span yet
  QTest::qWait(200);
  const int64_t before = timeline_->frames_drawn();
  QTest::mouseMove(timeline_, At((start + end) / 2, 0));  // over the wait: a tooltip
  QTest::qWait(200);
  EXPECT_GE(timeline_->frames_drawn() - before, 2) << "the move's frame and the tooltip's";
}

// With the context menu open, a left click (on a menu item, or outside the menu to close
// it) is the menu's: the red gap under it is not explained. The menu opens on a lower lane,
// so that the click lands outside it.
TEST_F(TimelineGuiTest, AClickWhileTheMenuIsOpenIsNotAClickOnTheTimeline) {
  const auto [start, end] = LongestWait(*model_);
  ASSERT_GT(end, start);
  timeline_->SetView(start - (end - start), end + (end - start));
  QTest::qWait(50);
  const size_t low_lane = timeline_->lanes().size() - 1;
  QTest::mouseClick(timeline_, Qt::RightButton, Qt::NoModifier, At(start, low_lane));
  QTest::qWait(150);
  QTest::mouseClick(timeline_, Qt::LeftButton, Qt::NoModifier, At((start + end) / 2, 0));
  QTest::qWait(150);
  EXPECT_FALSE(timeline_->gap().active) << "the click closed the menu";
  ClickMiddleOf(start, end, 0);
  EXPECT_TRUE(timeline_->gap().active) << "with the menu closed, the same click explains the gap";
}

TEST_F(TimelineGuiTest, ClickingTheDevicesIdleTimeNamesItsCause) {
  // The longest device gap in the steady state, from the gaps the trace model lists.
  std::pair<int64_t, int64_t> longest{0, 0};
  for (const auto& gap :
       trace::DeviceGaps(*model_, model_->duration_ns() / 4, model_->duration_ns()))
    if (gap.second - gap.first > longest.second - longest.first) longest = gap;
  const auto [start, end] = longest;
  ASSERT_GT(end, start);
  ClickMiddleOf(start, end, 1);
  const auto& gap = timeline_->gap();
  ASSERT_TRUE(gap.active);
  EXPECT_TRUE(gap.device) << "lane 1 is the device";
  EXPECT_EQ(gap.start, start);
  EXPECT_EQ(gap.end, end);
  EXPECT_NE(gap.text.find("input: decode"), std::string::npos) << gap.text;
  EXPECT_TRUE(SomeLabelSays("The device idled")) << "the Verdict dock sums the device gaps up";
  window_->grab().save("timeline_device_gap.png");
}

TEST_F(TimelineGuiTest, CtrlDraggingMeasuresBetweenSpanEdges) {
  const auto [start, end] = LongestWait(*model_);
  const int64_t len = end - start;
  timeline_->SetView(start - len, end + len);  // the wait spans a third of the lanes
  QTest::qWait(50);
  // Press a few pixels inside the wait's start and release a few pixels inside its end:
  // both snap to the edges.
  const QPoint from = At(start, 0) + QPoint(3, 0), to = At(end, 0) - QPoint(3, 0);
  QTest::mousePress(timeline_, Qt::LeftButton, Qt::ControlModifier, from);
  QTest::qWait(50);
  QTest::mouseMove(timeline_, to);
  QTest::qWait(50);
  QTest::mouseRelease(timeline_, Qt::LeftButton, Qt::ControlModifier, to);
  QTest::qWait(80);
  ASSERT_TRUE(timeline_->measuring());
  EXPECT_EQ(timeline_->measure_from(), start);
  EXPECT_EQ(timeline_->measure_to(), end);
  EXPECT_EQ(timeline_->view_end() - timeline_->view_start(), 3 * len) << "measuring does not pan";
}

TEST_F(TimelineGuiTest, ClickingASpanHighlightsItsElementAcrossOps) {
  // A decode work span in the middle of the trace, and its element.
  const auto* decode = model_->StageNamed("decode");
  ASSERT_NE(decode, nullptr);
  const auto& works = model_->TracksOf(record::EventKind::kWork, decode->id);
  // A parallel map records work spans; a sequential one, calls.
  const trace::Track* work = works.empty()
                                 ? model_->TracksOf(record::EventKind::kCall, decode->id).front()
                                 : works.front();
  const size_t lane = LaneOf(work);
  ASSERT_LT(lane, timeline_->lanes().size());
  size_t i = work->size() / 2;
  while (i < work->size() && work->element(i) == 0) ++i;
  ASSERT_LT(i, work->size());
  timeline_->SetView(work->start(i) - 1'000'000, work->end(i) + 1'000'000);
  QTest::qWait(50);
  // What the timeline draws on top decides what a click picks; the element must match.
  EXPECT_GE(timeline_->HighlightElement(work->element(i), work->start(i)), 2)
      << "the element's spans in at least two ops";
  QTest::mouseClick(timeline_, Qt::LeftButton, Qt::NoModifier,
                    At((work->start(i) + work->end(i)) / 2, lane));
  QTest::qWait(120);
  window_->grab().save("timeline_element_path.png");
}

// The verdict's bottleneck is marked on the timeline without a click: the demo's decode.
TEST_F(TimelineGuiTest, TheVerdictsBottleneckIsMarkedOnTheTimeline) {
  EXPECT_EQ(timeline_->bottleneck(), window_->analysis().verdict.bottleneck);
  EXPECT_EQ(timeline_->bottleneck(), "decode");
}

TEST_F(TimelineGuiTest, SearchFindsOpsAndEventKinds) {
  // decode's two lanes, its buffer fill, and read's lane on decode's worker thread.
  EXPECT_EQ(timeline_->SetSearch("decode"), 4);
  EXPECT_GE(timeline_->SetSearch("WORK"), 1) << "kinds match too, whatever the case";
  EXPECT_EQ(timeline_->SetSearch("no such thing"), 0);
  EXPECT_EQ(timeline_->SetSearch(""), 0);
}

}  // namespace
}  // namespace pipescope::ui
