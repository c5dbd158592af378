// The figure tables (figure_table.h) and the views they render: each figure reads the field
// its --json key names, says "does not apply" where it does not, and appears in the CLI's
// text and JSON exactly where its views say.
#include "app/session/figure_table.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "app/cli/summary_format.h"

namespace pipescope::session {
namespace {

// An op whose every figure has its own value, so that a figure reading the wrong field
// shows up as the wrong number.
trace::StageFigures DistinctStage() {
  trace::StageFigures s;
  s.name = "decode";
  s.op = "map";
  s.asynchronous = true;
  s.parallelism = 3;
  s.buffer_size = 4;
  s.elements = 910;
  s.elements_per_s = 303.5;
  s.self_ns_per_element = 3090500;
  s.busy_fraction = 0.94;
  s.waiting_input_fraction = 0.05;
  s.blocked_output_fraction = 0.01;
  s.idle_fraction = 0.02;
  s.mean_buffer_level = 1.5;
  s.buffer_fill = 0.375;
  s.caused_wait_share = 0.8;
  s.cpu_share = 0.6;
  s.cpu_cores = 1.8;
  s.lock_wait_fraction = 0.7;
  return s;
}

TEST(FigureTableTest, EachStageFigureReadsTheFieldItsJsonKeyNames) {
  const trace::StageFigures s = DistinctStage();
  const std::map<std::string, double> field = {{"parallelism", 3},
                                               {"buffer_size", 4},
                                               {"elements", 910},
                                               {"elements_per_s", 303.5},
                                               {"self_ns_per_element", 3090500},
                                               {"busy_fraction", 0.94},
                                               {"waiting_input_fraction", 0.05},
                                               {"blocked_output_fraction", 0.01},
                                               {"idle_fraction", 0.02},
                                               {"mean_buffer_level", 1.5},
                                               {"buffer_fill", 0.375},
                                               {"caused_wait_share", 0.8},
                                               {"cpu_share", 0.6},
                                               {"cpu_cores", 1.8},
                                               {"lock_wait_fraction", 0.7}};
  std::set<std::string> keys, json_keys, headers;
  for (const StageFigure& f : StageFigureTable()) {
    EXPECT_TRUE(keys.insert(f.key).second) << "declared twice: " << f.key;
    EXPECT_TRUE(json_keys.insert(f.json_key).second) << f.json_key;
    EXPECT_TRUE(headers.insert(f.header).second) << f.header;
    ASSERT_TRUE(field.contains(f.json_key)) << "a figure this test does not know: " << f.json_key;
    ASSERT_TRUE(f.value(s).has_value()) << f.key;
    EXPECT_DOUBLE_EQ(*f.value(s), field.at(f.json_key)) << f.key;
    EXPECT_GT(std::string(f.tooltip).size(), 20u) << f.key << " explains itself";
  }
  EXPECT_EQ(json_keys.size(), field.size()) << "every figure of an op is declared";
}

TEST(FigureTableTest, FiguresThatDoNotApplyAreLeftBlank) {
  trace::StageFigures s = DistinctStage();
  s.asynchronous = false;  // a map without workers has no buffer to fill
  s.cpu_share = -1;        // not sampled
  EXPECT_FALSE(FindStageFigure("buffer_fill")->value(s).has_value());
  EXPECT_FALSE(FindStageFigure("cpu")->value(s).has_value());
  s.lock_wait_fraction = 0;  // and runs no Python
  EXPECT_FALSE(FindStageFigure("lock_wait")->value(s).has_value());
  s.traits = record::kTraitHoldsInterpreterLock;  // Python that never waited: 0%
  EXPECT_EQ(FindStageFigure("lock_wait")->value(s), 0.0);
  EXPECT_EQ(FormatWithUnit(*FindStageFigure("cpu"), s), "");
  EXPECT_EQ(cli::FigureJson(FindStageFigure("cpu")->value(s)), nullptr);
}

TEST(FigureTableTest, ShownValuesCarryTheirUnit) {
  const trace::StageFigures s = DistinctStage();
  EXPECT_EQ(FormatWithUnit(*FindStageFigure("busy"), s), "94%");
  EXPECT_EQ(FormatWithUnit(*FindStageFigure("self"), s), "3090.5 µs");
  EXPECT_EQ(FormatWithUnit(*FindStageFigure("elements"), s), "910");
  EXPECT_EQ(FormatNumber(*FindStageFigure("busy"), s), "94");
  EXPECT_EQ(HeaderWithUnit(*FindStageFigure("busy")), "busy %");
  EXPECT_EQ(HeaderWithUnit(*FindStageFigure("self")), "self/elem (µs)");
  EXPECT_EQ(HeaderWithUnit(*FindRunFigure("buffer_memory")), "buffer memory (KiB)");
  EXPECT_EQ(FormatNumber(-0.0001, 100, 0), "0") << "no sign where there is none";
}

TEST(FigureTableTest, RunFiguresReadTheirFieldsAndKnowWhichWayIsBetter) {
  SpecMeasurement m;
  m.analysis.steps_per_s = 76.3;
  m.analysis.steps_per_s_half_width = 1.2;
  m.analysis.input_wait_fraction = 0.379;
  m.analysis.device_busy_fraction = 0.61;
  m.worker_threads = 4;
  m.cpu_cores_busy = 1.25;
  m.buffered_elements = 10;
  m.buffer_bytes = 589824;
  const std::map<std::string, std::string> shown = {
      {"steps_per_s", "76.3"},       {"steps_per_s_half_width", "1.2"},
      {"input_wait_fraction", "38"}, {"device_busy_fraction", "61"},
      {"worker_threads", "4"},       {"cpu_cores_busy", "1.25"},
      {"buffered_elements", "10"},   {"buffer_bytes", "576"}};
  std::set<std::string> json_keys;
  for (const RunFigure& f : RunFigureTable()) {
    ASSERT_TRUE(shown.contains(f.json_key)) << f.json_key;
    EXPECT_EQ(FormatNumber(f, m), shown.at(f.json_key)) << f.key;
    json_keys.insert(f.json_key);
  }
  EXPECT_EQ(json_keys.size(), shown.size());
  EXPECT_TRUE(Beats(FindRunFigure("steps_per_s")->better, 80, 76, 0.03));
  EXPECT_FALSE(Beats(FindRunFigure("steps_per_s")->better, 77, 76, 0.03)) << "within the noise";
  EXPECT_TRUE(Beats(FindRunFigure("input_wait")->better, 0.1, 0.4, 0.03));
  EXPECT_FALSE(Beats(FindRunFigure("steps_per_s_half_width")->better, 1, 9, 0.03));
  // A what-if's prediction gives rates and shares, not the cores or memory it would use.
  EXPECT_TRUE(FindRunFigure("steps_per_s")->predicted);
  EXPECT_FALSE(FindRunFigure("cpu_cores_busy")->predicted);
  EXPECT_FALSE(FindRunFigure("buffer_memory")->predicted);
}

// The CLI's op table and --json render from the table: each figure where its views say,
// and nowhere else.
TEST(FigureTableTest, TheCliShowsEachFigureWhereItsViewsSay) {
  trace::RangeAnalysis a;
  a.stages = {DistinctStage()};
  cli::SummaryContext c;
  const std::string text = cli::SummaryToText(a, c);
  const auto header_at = text.find("stage ");
  ASSERT_NE(header_at, std::string::npos) << text;
  const std::string header = text.substr(header_at, text.find('\n', header_at) - header_at);
  const nlohmann::json j = cli::SummaryToJson(a, c);
  const nlohmann::json& stage = j["stages"][0];
  for (const StageFigure& f : StageFigureTable()) {
    const bool in_text = header.find(std::string(" ") + f.header) != std::string::npos;
    // DistinctStage has a value for every figure, so one shown where measured is shown.
    EXPECT_EQ(in_text, (f.views & kTextView) != 0u) << f.key << " in: " << header;
    EXPECT_EQ(stage.contains(f.json_key), (f.views & kJsonView) != 0u) << f.key;
  }
  EXPECT_EQ(stage["elements"], 910) << "counts stay integers";
  EXPECT_DOUBLE_EQ(stage["busy_fraction"].get<double>(), 0.94) << "base units, not percent";
  EXPECT_NE(text.find("3090.5 µs"), std::string::npos) << text;
}

// A figure that only some pipelines have (the interpreter lock's waits, where an op runs
// Python) is a column of the text table when a row has it, and no column of blanks when
// none does.
TEST(FigureTableTest, TheLockWaitColumnIsInTheTextWhereAnOpRunsPython) {
  const auto header_of = [](const trace::StageFigures& s) {
    trace::RangeAnalysis a;
    a.stages = {s};
    const std::string text = cli::SummaryToText(a, cli::SummaryContext());
    const auto at = text.find("stage ");
    return at == std::string::npos ? text : text.substr(at, text.find('\n', at) - at);
  };
  trace::StageFigures python = DistinctStage();
  EXPECT_NE(header_of(python).find("GIL wait"), std::string::npos) << header_of(python);
  trace::StageFigures native = DistinctStage();
  native.lock_wait_fraction = 0;
  native.traits = 0;
  EXPECT_EQ(header_of(native).find("GIL wait"), std::string::npos) << header_of(native);
}

// The rate comes with its 95% interval, in the text and --json, where the steps' times give
// one; a run whose steps all took the same time (a simulation of constant costs) has none.
// A run whose data ends after a handful of steps (import-code's 100 stand-in files under a
// batch of 100: one step) says its rates mean little, and names what gives a run to grade.
TEST(FigureTableTest, ARunOfAFewStepsBeforeTheDataEndsSaysSo) {
  trace::RangeAnalysis a;
  a.steps = 1;
  a.duration_s = 0.65;
  a.steps_per_s = 1.5;
  cli::SummaryContext c;
  c.end_of_data = true;
  EXPECT_NE(cli::SummaryToText(a, c).find("the data ends after 1 step, too few for these rates"),
            std::string::npos)
      << cli::SummaryToText(a, c);
  a.steps = 400;
  EXPECT_EQ(cli::SummaryToText(a, c).find("too few"), std::string::npos);
  a.steps = 1;
  c.end_of_data = false;  // a run cut short by its duration is not the data's end
  EXPECT_EQ(cli::SummaryToText(a, c).find("too few"), std::string::npos);
}

TEST(FigureTableTest, TheRateIsPrintedWithItsInterval) {
  trace::RangeAnalysis a;
  a.steps = 400;
  a.duration_s = 5;
  a.steps_per_s = 80.6;
  a.steps_per_s_half_width = 1.04;
  cli::SummaryContext c;
  EXPECT_NE(cli::SummaryToText(a, c).find(": 80.6 ± 1.0 steps/s"), std::string::npos)
      << cli::SummaryToText(a, c);
  EXPECT_DOUBLE_EQ(cli::SummaryToJson(a, c)["steps_per_s_half_width"].get<double>(), 1.04);
  a.steps_per_s_half_width = 0;
  EXPECT_NE(cli::SummaryToText(a, c).find(": 80.6 steps/s"), std::string::npos);
}

}  // namespace
}  // namespace pipescope::session
