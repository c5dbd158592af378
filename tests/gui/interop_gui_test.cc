// Traces from and for other tools: File > Export writes the shown trace as Chrome JSON and
// as Perfetto; a PyTorch profiler trace opens with its framework's verdict.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gui_test_support.h"
#include "ui/compare/compare_window.h"
#include "ui/compare/whatif_dialog.h"
#include "ui/compare_controller.h"
#include "ui/document_files.h"
#include "ui/main_window.h"
#include "ui/panels/code_panel.h"
#include "ui/panels/notes_panel.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/panels/statistics_panel.h"
#include "ui/run_controller.h"
#include "ui/timeline/timeline_layout.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

TEST(ExportGuiTest, TheShownTraceExportsToChromeJsonAndPerfetto) {
  MainWindow window;
  auto model = RecordPipeline("input_bound_demo", 0.5);
  const size_t events = model->event_count();
  window.ShowModel(model, "demo");
  const std::string base = ::testing::TempDir() + "/gui_export";
  ASSERT_TRUE(window.files()->ExportTrace(QString::fromStdString(base + ".json")));
  std::ifstream json_file(base + ".json");
  const auto j = nlohmann::json::parse(json_file);
  size_t spans_and_counters = 0;
  for (const auto& e : j["traceEvents"]) spans_and_counters += e["ph"] == "X" || e["ph"] == "C";
  EXPECT_EQ(spans_and_counters, events) << "every recorded event is in the export";
  ASSERT_TRUE(window.files()->ExportTrace(QString::fromStdString(base + ".perfetto-trace")));
  EXPECT_TRUE(std::ifstream(base + ".perfetto-trace").good());
  CloseMessageBoxesSoon();
  EXPECT_FALSE(window.files()->ExportTrace(QString::fromStdString(base + ".txt")))
      << "an unknown extension is a message, not a file";
}

TEST(InteropGuiTest, APyTorchProfilerTraceOpensWithItsVerdict) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenFile(PIPESCOPE_TEST_DATA "/pytorch_input_bound.json"));
  DrawFrames(window);
  EXPECT_TRUE(window.verdict_text().contains("DataLoader's __next__"))
      << window.verdict_text().toStdString();
  EXPECT_TRUE(window.status_text().startsWith("imported pytorch trace   4 steps   input wait 60%"))
      << window.status_text().toStdString();
  EXPECT_GT(window.timeline()->lanes().size(), 3u) << "steps, waits, GPU and generic lanes";
  window.timeline()->ZoomToFit();
  DrawFrames(window);
  window.grab().save("imported_pytorch.png");
}

// A .py opens as the pipeline it builds, running, with its source and import-code's notes in
// the Source dock; Edit > Copy as Code gives the file back with the knobs as they are now.
TEST(InteropGuiTest, APythonFileRunsBesideItsSourceAndCopiesBackWithItsKnobs) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  const QString path = QString::fromStdString(::testing::TempDir() + "/gui_train.py");
  const QString original = R"(import tensorflow as tf
ds = tf.data.Dataset.range(100000)
ds = ds.shuffle(FLAGS.shuffle_buffer)
ds = ds.map(decode, num_parallel_calls=1)  # the slow part
ds = ds.batch(16).prefetch(1)
# pipescope: decode.cost=1ms train_step.step_time=5ms
)";
  {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(original.toUtf8());
  }
  ASSERT_TRUE(window.OpenFile(path));
  ASSERT_TRUE(window.run()->is_live());
  CodePanel* code = window.code_panel();
  ASSERT_NE(code, nullptr);
  EXPECT_TRUE(code->isVisible());
  EXPECT_TRUE(code->source_text().contains("ds = ds.map(decode, num_parallel_calls=1)"));
  EXPECT_EQ(code->note_count(), 2)
      << "the flag the shuffle's buffer is left to, and the dispatch decode's calls pay";
  EXPECT_EQ(window.run()->PipelineAsCode(), original) << "no knob changed: the file as it is";

  QSpinBox* box = window.pipeline_panel()->SpinBoxFor("decode", "num_parallel_calls");
  ASSERT_NE(box, nullptr);
  box->setValue(2);
  QStringList notes;
  const QString tuned = window.run()->PipelineAsCode(&notes);
  QString expected = original;
  expected.replace("num_parallel_calls=1)", "num_parallel_calls=2)");
  EXPECT_EQ(tuned, expected) << tuned.toStdString();
  DrawFrames(window);
  window.grab().save("python_source.png");
  ASSERT_TRUE(window.run()->StopRunAndWait());
}

// What If on a PyTorch trace recorded by others at num_workers 0 (tests/trace/data/real):
// Compare opens with the trace above and the prediction below, the settings that differ,
// and what the prediction assumes; a trace recorded here has no What If.
TEST(InteropGuiTest, WhatIfOnAPyTorchTraceComparesTheTraceWithItsPrediction) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenFile(PIPESCOPE_TEST_DATA
                              "/real/kineto_resnet50_w0_1623143089861.pt.trace.json.gz"));
  // The Verdict dock's advice: the DataLoader's settings searched, as `report` prints them.
  QElapsedTimer waited;
  waited.start();
  while (window.advising() && waited.elapsed() < 30'000) QTest::qWait(20);
  EXPECT_TRUE(window.advice_text().contains("num_workers 0 → "))
      << window.advice_text().toStdString();
  EXPECT_TRUE(window.advice_text().contains("steps/s predicted"))
      << window.advice_text().toStdString();
  session::WhatIfOptions options;
  options.sets = {{"num_workers", "4"}};
  options.cores = 4;
  CompareWindow* compare = window.compare()->WhatIf(options);
  ASSERT_NE(compare, nullptr);
  EXPECT_TRUE(compare->verdict_text().startsWith("num_workers 0 → 4: 5.72 → "))
      << compare->verdict_text().toStdString();
  QTableWidget* figures = compare->figures();
  ASSERT_GE(figures->rowCount(), 3);
  EXPECT_EQ(figures->item(0, 0)->text(), "steps/s");
  EXPECT_EQ(figures->horizontalHeaderItem(1)->text(), "traced");
  EXPECT_EQ(figures->horizontalHeaderItem(2)->text(), "predicted");
  EXPECT_GT(figures->item(0, 2)->text().toDouble(), 1.3 * figures->item(0, 1)->text().toDouble())
      << "workers take the loading off the loop";
  for (int row = 0; row < figures->rowCount(); ++row)
    EXPECT_NE(figures->item(row, 0)->text(), "CPU cores busy") << "not a figure a prediction has";
  QTableWidget* knobs = compare->knob_differences();
  ASSERT_GE(knobs->rowCount(), 1);
  EXPECT_EQ(knobs->item(0, 0)->text(), "DataLoader.num_workers");
  ASSERT_NE(compare->notes(), nullptr);
  EXPECT_TRUE(compare->notes()->text().contains("batch_size 32")) << "the assumptions are listed";
  ASSERT_NE(compare->timeline(0)->model(), nullptr);
  ASSERT_NE(compare->timeline(1)->model(), nullptr);
  EXPECT_TRUE(compare->timeline(1)->model()->run_info().simulated);
  EXPECT_EQ(compare->timeline(0)->model()->run_info().imported_from, "pytorch");
  ASSERT_TRUE(QTest::qWaitForWindowExposed(compare));
  compare->grab().save("whatif.png");

  // The dialog starts from the traced settings and hands over what it holds.
  auto job = trace::ReadLoaderJob(*compare->timeline(0)->model());
  ASSERT_TRUE(job.ok());
  WhatIfDialog dialog(*job, &window);
  dialog.findChild<QSpinBox*>("whatif_num_workers")->setValue(2);
  const session::WhatIfOptions chosen = dialog.options();
  EXPECT_TRUE(std::find(chosen.sets.begin(), chosen.sets.end(),
                        std::pair<std::string, std::string>{"num_workers", "2"}) !=
              chosen.sets.end());
  EXPECT_TRUE(std::find(chosen.sets.begin(), chosen.sets.end(),
                        std::pair<std::string, std::string>{"batch_size", "32"}) !=
              chosen.sets.end())
      << "the traced batch size, read from the trace";
  EXPECT_TRUE(chosen.given.empty()) << "a single-process trace needs nothing given";
  dialog.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
  dialog.grab().save("whatif_dialog.png");
  dialog.reject();

  // A spec's own trace: What If is for profiler traces (a message, no window).
  window.ShowModel(RecordPipeline("input_bound_demo", 0.3), "demo");
  CloseMessageBoxesSoon();
  EXPECT_EQ(window.compare()->WhatIf(options), nullptr);
}

// A real PyTorch trace (tests/trace/data/real): its spans by name in Statistics, found by
// name with the search, and no knobs pretended in the Pipeline dock. The figures were
// counted from the raw JSON with Python: 10 spans named like "ncclKernel", 399 distinct
// (name, category) pairs, the longest total "PyTorch Profiler (0)", then "ProfilerStep#552".
TEST(InteropGuiTest, ARealTracesSpansAreListedByNameAndFoundBySearch) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenFile(PIPESCOPE_TEST_DATA "/real/hta_sampled_rank-0.json.gz"));
  DrawFrames(window);
  StatisticsPanel& stats = *window.statistics();
  ASSERT_EQ(stats.columnCount(), StatisticsPanel::kNameColumnCount) << "names, not ops";
  EXPECT_EQ(stats.rowCount(), 399);
  EXPECT_EQ(stats.item(0, StatisticsPanel::kName)->text(), "PyTorch Profiler (0)");
  EXPECT_EQ(stats.item(1, StatisticsPanel::kName)->text(), "ProfilerStep#552");
  EXPECT_EQ(stats.item(1, StatisticsPanel::kCategory)->text(), "user_annotation");
  EXPECT_GT(window.timeline()->SetSearch("ncclKernel"), 0);
  EXPECT_EQ(window.timeline()->span_matches(), 10);
  DrawFrames(window);
  window.grab().save("imported_real_search.png");
  // Enter (NextMatch) visits the 10 in time order, each in the middle of the view, then
  // comes round to the first; Shift+Enter goes back from the first to the last.
  window.timeline()->SetView(0, 1000);  // from the trace's first microsecond
  std::vector<int64_t> starts;
  for (int i = 0; i < 10; ++i) {
    const QString found = window.timeline()->NextMatch();
    EXPECT_TRUE(found.startsWith("ncclKernel")) << found.toStdString();
    starts.push_back(window.timeline()->shown_match_start());
    const int64_t t0 = window.timeline()->view_start(), t1 = window.timeline()->view_end();
    EXPECT_TRUE(starts.back() >= t0 && starts.back() <= t1) << "the match is in view";
  }
  DrawFrames(window);
  window.grab().save("imported_real_next_match.png");
  EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
  EXPECT_EQ(std::set<int64_t>(starts.begin(), starts.end()).size(), 10u) << "each once";
  window.timeline()->NextMatch();
  EXPECT_EQ(window.timeline()->shown_match_start(), starts.front()) << "round to the first";
  window.timeline()->NextMatch(/*backward=*/true);
  EXPECT_EQ(window.timeline()->shown_match_start(), starts.back()) << "back to the last";
  window.timeline()->SetSearch("");
  EXPECT_EQ(window.timeline()->span_matches(), 0);
  // Nested spans have lanes of their own under their thread.
  int nested_lanes = 0;
  for (const auto& lane : window.timeline()->lanes()) nested_lanes += lane.depth > 0;
  EXPECT_GE(nested_lanes, 10) << "the trace nests 11 deep";
}

// At 1280x800 the timeline keeps 60% of the width with an imported trace open: its long
// process names ("penv#native-main#platform-runtime#python#py_version_3_10") made the
// Pipeline dock 490 px wide and left the timeline 40%.
TEST(InteropGuiTest, AnImportedTraceLeavesTheTimelineMostOfTheWidth) {
  for (const char* file : {"/real/hta_ns_resolution_rank-0.pt.trace.json.gz",
                           "/real/kineto_resnet50_w4_1623212756351.pt.trace.json.gz"}) {
    SCOPED_TRACE(file);
    MainWindow window;
    ASSERT_TRUE(ShowWindow(window));
    ASSERT_TRUE(window.OpenFile(QString(PIPESCOPE_TEST_DATA) + file));
    DrawFrames(window);
    EXPECT_GE(window.timeline()->width(), window.width() * 6 / 10)
        << "timeline " << window.timeline()->width() << " px of " << window.width();
  }
}

// An imported thread is one track: its nesting rows sit under its label without labels of
// their own, and a click on the label folds them away (the lanes below move up by exactly
// their height) and a second click brings them back. A process folds its threads.
TEST(InteropGuiTest, AThreadsNestedRowsFoldIntoItsTrackAndAProcessItsThreads) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(
      window.OpenFile(PIPESCOPE_TEST_DATA "/real/hta_ns_resolution_rank-0.pt.trace.json.gz"));
  DrawFrames(window);
  TimelineWidget& timeline = *window.timeline();
  const auto& lanes = timeline.lanes();
  const std::vector<int> parents = TrackParents(lanes);
  size_t head = lanes.size();
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].label.find("pt_main_thread") != std::string::npos) head = i;
  }
  ASSERT_LT(head, lanes.size()) << "the main thread's track";
  std::vector<size_t> rows;  // its nested rows (its process's other threads fold into it too)
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (parents[i] == static_cast<int>(head) && lanes[i].depth > 0) rows.push_back(i);
  }
  ASSERT_GE(rows.size(), 3u) << "a training step nests several calls deep";
  for (const size_t r : rows) {
    EXPECT_TRUE(lanes[r].label.empty()) << "row " << r << " continues the track above";
    EXPECT_EQ(lanes[r].thread, lanes[head].thread);
  }
  const size_t below = rows.back() + 1;
  ASSERT_LT(below, lanes.size());
  const float before = timeline.lane_top(below);
  float folded_height = 0;
  for (const size_t r : rows) folded_height += timeline.row_height(r) + kNestedRowGap;
  // A click on a track's label.
  const auto click = [&](size_t lane) {
    const QPoint label(static_cast<int>(timeline.axis().x - timeline.label_width() / 2),
                       static_cast<int>(timeline.lane_top(lane)) + 6);
    QTest::mouseClick(&timeline, Qt::LeftButton, Qt::NoModifier, label);
    DrawFrames(window);
  };
  click(head);
  EXPECT_TRUE(timeline.folded(head));
  for (const size_t r : rows) EXPECT_EQ(timeline.row_height(r), 0) << "row " << r;
  EXPECT_NEAR(timeline.lane_top(below), before - folded_height, 0.5);
  window.grab().save("imported_folded.png");
  click(head);
  EXPECT_FALSE(timeline.folded(head));
  EXPECT_NEAR(timeline.lane_top(below), before, 0.5);

  // An imported process is a group: its first thread's lane names it, its other threads
  // follow indented and fold into it with their nested rows; folding one of those threads
  // hides only its own rows (this trace's Python process has several threads). Its head
  // and the first thread that follows it:
  head = lanes.size();
  size_t thread = lanes.size();
  for (size_t i = 0; i < lanes.size() && thread == lanes.size(); ++i) {
    if (lanes[i].continues_op && parents[i] >= 0) {
      head = static_cast<size_t>(parents[i]);
      thread = i;
    }
  }
  ASSERT_LT(thread, lanes.size()) << "a process with several threads";
  EXPECT_EQ(lanes[head].op, lanes[thread].op);
  EXPECT_NE(lanes[head].thread, lanes[thread].thread);
  EXPECT_EQ(lanes[thread].label.find_first_not_of(' '), lanes[head].label.find("  ") + 2)
      << "the thread's name under the head's thread name: \"" << lanes[thread].label << "\"";
  // Every lane of the group: the head's rows, the other threads and their rows.
  std::vector<size_t> group;
  for (size_t i = head + 1; i < lanes.size(); ++i) {
    size_t up = i;
    while (parents[up] >= 0 && static_cast<size_t>(parents[up]) != head)
      up = static_cast<size_t>(parents[up]);
    if (parents[up] >= 0) group.push_back(i);
  }
  ASSERT_GE(group.size(), 2u);
  click(head);
  ASSERT_TRUE(timeline.folded(head));
  for (const size_t i : group) EXPECT_EQ(timeline.row_height(i), 0) << "lane " << i;
  EXPECT_GT(timeline.row_height(head), 0);
  window.grab().save("imported_process_folded.png");
  click(head);
  for (const size_t i : group) EXPECT_GT(timeline.row_height(i), 0) << "lane " << i;
  // The second thread's own rows fold with it, and nothing else.
  std::vector<size_t> own;
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (parents[i] == static_cast<int>(thread)) own.push_back(i);
  }
  ASSERT_FALSE(own.empty()) << "the thread's nested calls";
  click(thread);
  ASSERT_TRUE(timeline.folded(thread));
  for (const size_t i : group) {
    const bool hidden = std::find(own.begin(), own.end(), i) != own.end();
    EXPECT_EQ(timeline.row_height(i) == 0, hidden) << "lane " << i;
  }
}

// Hovering a CPU launch draws its flow to the kernel it launched (Kineto 2021's
// capitalised categories, tests/trace/data/kineto_2021_capitalised.json: the launch at
// 4.2 ms, its kernel on stream 7 at 4.3 ms).
TEST(InteropGuiTest, HoveringASpanDrawsItsFlows) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenFile(PIPESCOPE_TEST_DATA "/kineto_2021_capitalised.json"));
  TimelineWidget& timeline = *window.timeline();
  timeline.SetView(4'100'000, 4'600'000);
  DrawFrames(window);
  size_t launch_lane = timeline.lanes().size();
  for (size_t l = 0; l < timeline.lanes().size(); ++l) {
    for (int k = 0; k < timeline.lanes()[l].track_count; ++k) {
      const trace::Track* t = timeline.lanes()[l].tracks[k];
      if (t->key().kind == record::EventKind::kCall && t->key().depth == 2) launch_lane = l;
    }
  }
  ASSERT_LT(launch_lane, timeline.lanes().size()) << "the launch's row, in aten::conv2d's";
  const QPoint over(static_cast<int>(timeline.axis().ToPixel(4'225'000)),
                    static_cast<int>(timeline.lane_top(launch_lane)) + 8);
  QTest::mouseMove(&timeline, over);
  DrawFrames(window);
  EXPECT_EQ(timeline.flow_arrows(), 1) << "cudaLaunchKernel -> implicit_convolve_sgemm";
  window.grab().save("imported_flow.png");
  QTest::mouseMove(&timeline, QPoint(over.x(), 5));
  DrawFrames(window);
  EXPECT_EQ(timeline.flow_arrows(), 0);
}

TEST(InteropGuiTest, TracesOfSeveralHostsOpenInOneView) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenHosts({PIPESCOPE_TEST_DATA "/pytorch_compute_bound.json",
                                PIPESCOPE_TEST_DATA "/pytorch_input_bound.json"}));
  DrawFrames(window);
  EXPECT_TRUE(window.verdict_text().startsWith("pytorch_input_bound waits most for input (60%"))
      << window.verdict_text().toStdString();
  EXPECT_TRUE(window.verdict_text().contains("pytorch_compute_bound: 4 steps, input wait 4%"));
  // A lane group per host (steps, input wait, GPU, its threads), named on its first lane;
  // a click there folds the host's other lanes away.
  TimelineWidget& timeline = *window.timeline();
  const auto& lanes = timeline.lanes();
  size_t head = lanes.size();
  std::vector<size_t> rest;
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].host != "pytorch_input_bound" || lanes[i].kind == LaneKind::kCounter) continue;
    if (head == lanes.size())
      head = i;
    else
      rest.push_back(i);
  }
  ASSERT_LT(head, lanes.size());
  ASSERT_GE(rest.size(), 2u);
  EXPECT_TRUE(lanes[head].label.starts_with("pytorch_input_bound: ")) << lanes[head].label;
  window.grab().save("hosts.png");
  const QPoint label(static_cast<int>(timeline.axis().x - timeline.label_width() / 2),
                     static_cast<int>(timeline.lane_top(head)) + 6);
  QTest::mouseClick(&timeline, Qt::LeftButton, Qt::NoModifier, label);
  DrawFrames(window);
  ASSERT_TRUE(timeline.folded(head));
  for (const size_t i : rest) EXPECT_EQ(timeline.row_height(i), 0) << lanes[i].label;
  window.grab().save("hosts_folded.png");
}

}  // namespace
}  // namespace pipescope::ui
