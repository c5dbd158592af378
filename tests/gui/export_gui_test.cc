// File > Export: the shown trace written as Chrome JSON and as Perfetto, with the spans the
// timeline shows.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gui_test_support.h"
#include "ui/main_window.h"

namespace pipescope::ui {
namespace {

TEST(ExportGuiTest, TheShownTraceExportsToChromeJsonAndPerfetto) {
  MainWindow window;
  auto model = RecordPipeline("input_bound_demo", 0.5);
  const size_t events = model->event_count();
  window.ShowModel(model, "demo");
  const std::string base = ::testing::TempDir() + "/gui_export";
  ASSERT_TRUE(window.ExportTrace(QString::fromStdString(base + ".json")));
  std::ifstream json_file(base + ".json");
  const auto j = nlohmann::json::parse(json_file);
  size_t spans_and_counters = 0;
  for (const auto& e : j["traceEvents"]) spans_and_counters += e["ph"] == "X" || e["ph"] == "C";
  EXPECT_EQ(spans_and_counters, events) << "every recorded event is in the export";
  ASSERT_TRUE(window.ExportTrace(QString::fromStdString(base + ".perfetto-trace")));
  EXPECT_TRUE(std::ifstream(base + ".perfetto-trace").good());
  CloseMessageBoxesSoon();
  EXPECT_FALSE(window.ExportTrace(QString::fromStdString(base + ".txt")))
      << "an unknown extension is a message, not a file";
}

}  // namespace
}  // namespace pipescope::ui
