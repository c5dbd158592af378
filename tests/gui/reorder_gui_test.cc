// Reordering a live run from the Pipeline dock: a move that keeps the output is applied at
// once, one that changes it only after the person confirms (with the rules' sentence), the
// engine rebuilds and keeps stepping, and the trace marks the moment.
#include <gtest/gtest.h>

#include <QTest>

#include "gui_test_support.h"
#include "ui/main_window.h"
#include "ui/panels/op_order_editor.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/run_controller.h"

namespace pipescope::ui {
namespace {

std::vector<std::string> OpNames(const spec::PipelineSpec& spec) {
  std::vector<std::string> names;
  for (const auto& op : spec.ops()) names.push_back(op.name());
  return names;
}

std::vector<std::string> Markers(MainWindow& window) {
  std::vector<std::string> texts;
  std::lock_guard<std::mutex> lock(window.run()->live_run()->model_mutex());
  for (const auto& m : window.run()->live_run()->model()->markers()) texts.push_back(m.text);
  return texts;
}

// Markers reach the model with the recorder's next flush.
bool MarkerArrives(MainWindow& window, const std::string& text) {
  return QTest::qWaitFor(
      [&] {
        const auto markers = Markers(window);
        return !markers.empty() && markers.back() == text;
      },
      3000);
}

int64_t Steps(MainWindow& window) {
  std::lock_guard<std::mutex> lock(window.run()->live_run()->model_mutex());
  const trace::Model& model = *window.run()->live_run()->model();
  return trace::Analyze(model, 0, model.duration_ns()).steps;
}

TEST(ReorderGuiTest, MovesApplyLiveAndOutputChangesAskFirst) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  std::vector<QString> asked;
  bool answer = false;
  window.run()->SetConfirmation([&](const QString& explanation) {
    asked.push_back(explanation);
    return answer;
  });
  ASSERT_TRUE(
      window.OpenFile(QString::fromStdString(ResourcePath("pipelines/input_bound_demo.pbtxt"))));
  OpOrderEditor* editor = window.pipeline_panel()->order_editor();
  ASSERT_TRUE(editor->isVisible()) << "a live run shows its ops to reorder";
  EXPECT_EQ(OpNames(editor->spec()), (std::vector<std::string>{"decode", "batch", "prefetch"}));
  QTest::qWait(400);

  // Prefetch anywhere keeps the output: applied without a question.
  editor->RequestMove(2, 0);
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(OpNames(window.run()->live_run()->CurrentSpec()),
            (std::vector<std::string>{"prefetch", "decode", "batch"}));
  EXPECT_EQ(OpNames(editor->spec()), OpNames(window.run()->live_run()->CurrentSpec()));
  EXPECT_TRUE(MarkerArrives(window, "pipeline rebuilt: moved prefetch from position 3 to 1"));
  const int64_t steps = Steps(window);
  QTest::qWait(500);
  EXPECT_GT(Steps(window), steps) << "the rebuilt pipeline feeds the training step";
  EXPECT_TRUE(window.run()->is_live());

  // A shuffle after the batch changes what the step sees: asked, declined, not applied.
  EXPECT_TRUE(editor->RequestAdd("shuffle", 2, 100));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_TRUE(asked[0].contains("shuffle")) << asked[0].toStdString();
  EXPECT_EQ(window.run()->live_run()->CurrentSpec().ops_size(), 3);
  EXPECT_EQ(editor->spec().ops_size(), 3) << "the editor shows the unchanged pipeline";

  // Accepted: applied, with its own marker.
  answer = true;
  EXPECT_TRUE(editor->RequestAdd("shuffle", 2, 100));
  EXPECT_EQ(asked.size(), 2u);
  EXPECT_EQ(OpNames(window.run()->live_run()->CurrentSpec()),
            (std::vector<std::string>{"prefetch", "decode", "batch", "shuffle"}));
  EXPECT_TRUE(MarkerArrives(window, "pipeline rebuilt: added shuffle at position 4"));

  // Removing a prefetch keeps the output; the knob edits survive a rebuild.
  EXPECT_TRUE(window.run()->live_run()->SetKnob("decode", "num_parallel_calls", 2).ok());
  editor->RequestRemove(0);
  EXPECT_EQ(asked.size(), 2u);
  const spec::PipelineSpec now = window.run()->live_run()->CurrentSpec();
  EXPECT_EQ(OpNames(now), (std::vector<std::string>{"decode", "batch", "shuffle"}));
  EXPECT_EQ(now.ops(0).map().num_parallel_calls(), 2);
  QTest::qWait(300);
  DrawFrames(window);
  window.grab().save("reorder.png");
  EXPECT_TRUE(window.run()->StopRunAndWait());
  EXPECT_FALSE(editor->isVisible()) << "a finished run cannot be reordered";
}

}  // namespace
}  // namespace pipescope::ui
