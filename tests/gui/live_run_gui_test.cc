// A pipeline spec opened in the window runs live: the timeline follows the newest data
// until the user navigates, the statistics refresh, a knob widget changes the running
// engine's knob, Pause/Stop work, and the run's trace can be saved.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QSpinBox>
#include <QTest>
#include <set>

#include "gui_test_support.h"
#include "instrumentation/trace/format/trace_reader.h"
#include "ui/document_files.h"
#include "ui/main_window.h"
#include "ui/panels/advice_panel.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/run_controller.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/trace_document.h"

namespace pipescope::ui {
namespace {

int64_t KnobValue(session::LiveRun& run, const std::string& op, const std::string& knob) {
  for (const auto& k : run.Knobs()) {
    if (k.op == op && k.knob == knob) return k.value;
  }
  return -1;
}

TEST(LiveRunGuiTest, ASpecRunsLiveAndItsKnobWidgetsChangeTheEngine) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(
      window.OpenFile(QString::fromStdString(ResourcePath("pipelines/input_bound_demo.pbtxt"))));
  ASSERT_TRUE(window.run()->is_live());
  TimelineWidget* timeline = window.timeline();
  EXPECT_TRUE(timeline->following());
  timeline->SetView(0, 200'000'000);  // a 200 ms window, still following
  QTest::qWait(700);
  (void)QTest::qWaitFor(
      [&] { return timeline->view_start() > 0 && window.analysis().steps_per_s > 0; }, 10'000);
  EXPECT_GT(timeline->view_start(), 0) << "the view follows the newest data";
  EXPECT_EQ(timeline->view_end() - timeline->view_start(), 200'000'000);
  EXPECT_GT(window.analysis().steps_per_s, 0) << "statistics refresh while the run goes on";
  EXPECT_GE(window.timeline()->width(), window.width() * 6 / 10)
      << "a live run's timeline keeps 60% of the window: " << window.timeline()->width()
      << " px of " << window.width();

  QSpinBox* box = window.pipeline_panel()->SpinBoxFor("decode", "num_parallel_calls");
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->value(), 1);
  box->setValue(2);
  EXPECT_EQ(KnobValue(*window.run()->live_run(), "decode", "num_parallel_calls"), 2)
      << "the widget changed the running engine's knob";

  // W with the spin box focused zooms the timeline (a number has no letters): navigating
  // away stops following; End follows again.
  box->setFocus();
  const int64_t followed_span = timeline->view_end() - timeline->view_start();
  QTest::keyClick(box, Qt::Key_W);
  // The timeline reads its keys in its next frame: waited for, however busy the machine.
  (void)QTest::qWaitFor([&] { return !timeline->following(); }, 10'000);
  EXPECT_FALSE(timeline->following()) << "W reached the timeline";
  EXPECT_LT(timeline->view_end() - timeline->view_start(), followed_span) << "and zoomed in";
  EXPECT_EQ(box->value(), 2);
  QTest::keyClick(timeline, Qt::Key_End);
  EXPECT_TRUE(timeline->following());
  timeline->setFocus();
  QTest::keyClick(timeline, Qt::Key_W);
  (void)QTest::qWaitFor([&] { return !timeline->following(); }, 10'000);
  EXPECT_FALSE(timeline->following());
  QTest::keyClick(timeline, Qt::Key_End);
  EXPECT_TRUE(timeline->following());

  window.run()->SetPaused(true);
  EXPECT_TRUE(window.run()->live_run()->paused());
  (void)QTest::qWaitFor([&] { return window.status_text().startsWith("PAUSED"); }, 10'000);
  EXPECT_TRUE(window.status_text().startsWith("PAUSED"));
  window.run()->SetPaused(false);
  QTest::qWait(400);
  window.grab().save("live_run.png");

  ASSERT_TRUE(window.run()->StopRunAndWait());
  EXPECT_FALSE(window.run()->is_live());
  EXPECT_FALSE(timeline->following());
  const std::string path = ::testing::TempDir() + "/pipescope_gui_live.pstrace";
  ASSERT_TRUE(window.files()->SaveTrace(QString::fromStdString(path)));
  auto saved = pstrace::ReadTraceFile(path);
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  bool user_change = false;
  for (const auto& k : saved->model->knob_changes()) user_change |= k.who == "user" && k.to == 2;
  EXPECT_TRUE(user_change) << "the knob change is in the saved trace, marked as the user's";
  EXPECT_EQ(saved->header.spec().name(), "input_bound_demo");
}

TEST(LiveRunGuiTest, RestartRunsTheSpecAgain) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.OpenFile(QString::fromStdString(ResourcePath("pipelines/overlap.pbtxt"))));
  QTest::qWait(300);
  ASSERT_TRUE(window.run()->StopRunAndWait());
  EXPECT_FALSE(window.run()->is_live());
  ASSERT_TRUE(window.run()->StartRun());
  EXPECT_TRUE(window.run()->is_live());
  QTest::qWait(300);
  EXPECT_TRUE(window.run()->StopRunAndWait());
}

// Run > Run as Workers: the spec as two workers of one job, each its own pipeline, shown as
// one trace with a lane group per worker and the job's figures in the verdict; the spec
// stays with the Run menu, which runs it as one pipeline again.
TEST(LiveRunGuiTest, RunAsWorkersShowsEachWorkersLanesAndTheJobsFigures) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(
      window.OpenFile(QString::fromStdString(ResourcePath("pipelines/input_bound_demo.pbtxt"))));
  QTest::qWait(300);
  ASSERT_TRUE(window.run()->RunWorkers(2, 1.5));
  DrawFrames(window);
  EXPECT_FALSE(window.run()->is_live());
  EXPECT_TRUE(window.windowTitle().startsWith("input_bound_demo: 2 workers"))
      << window.windowTitle().toStdString();
  const std::string verdict = window.verdict_text().toStdString();
  EXPECT_NE(verdict.find("2 workers on this machine: "), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("steps/s in all; a synchronous job"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("worker1: "), std::string::npos) << verdict;
  std::set<std::string> hosts;
  for (const Lane& lane : window.timeline()->lanes()) hosts.insert(lane.host);
  EXPECT_TRUE(hosts.count("worker0") && hosts.count("worker1")) << hosts.size() << " hosts";
  window.grab().save("workers.png");
  window.resize(1920, 1080);
  DrawFrames(window);
  window.grab().save("workers_1920.png");
  ASSERT_TRUE(window.run()->StartRun());
  EXPECT_TRUE(window.run()->is_live());
  EXPECT_TRUE(window.run()->StopRunAndWait());
}

// A live run is advised on what it has recorded so far, a few seconds in, while it goes on
// (a snapshot of its model is advised on, not the model the recorder writes); the
// verdict's suggestion is the advice's; the run's end advises again on all of it.
TEST(LiveRunGuiTest, ALiveRunIsAdvisedOnItsFirstSecondsWhileItGoesOn) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(
      window.OpenFile(QString::fromStdString(ResourcePath("pipelines/input_bound_demo.pbtxt"))));
  QElapsedTimer waited;
  waited.start();
  auto live_advice_ready = [&] {
    return window.advice_text().startsWith("Advice on the run's first") && !window.advising();
  };
  while (!live_advice_ready() && window.run()->is_live() && waited.elapsed() < 120'000)
    QTest::qWait(100);
  ASSERT_TRUE(window.run()->is_live()) << "advised while the run goes on";
  ASSERT_TRUE(live_advice_ready()) << window.advice_text().toStdString();
  EXPECT_GE(window.document()->model()->duration_ns(), AdvicePanel::kLiveAdviceAfterNs);
  const QString advice = window.advice_text();
  EXPECT_TRUE(advice.contains("changes tried in the simulator")) << advice.toStdString();
  EXPECT_TRUE(advice.contains("decode"))
      << "decode at parallelism 1 is what holds the demo back: " << advice.toStdString();
  // A refresh with the advice.
  (void)QTest::qWaitFor([&] { return window.verdict_text().contains("predicted"); }, 10'000);
  EXPECT_TRUE(window.verdict_text().contains("predicted")) << window.verdict_text().toStdString();
  window.grab().save("live_advice.png");

  ASSERT_TRUE(window.run()->StopRunAndWait());
  EXPECT_TRUE(window.advice_text().startsWith("Advice:")) << "the whole run is advised on again";
}

}  // namespace
}  // namespace pipescope::ui
