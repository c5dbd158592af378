// TextLineDataset's lines, as TensorFlow's text_line_dataset_test.py and
// BufferedInputStream::ReadLine give them: '\n' ends a line, '\r' is dropped, a last line
// without '\n' counts, files are read in order, GZIP and ZLIB alike; and the simulator
// counts the lines the engine reads.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/io/text_line_reader.h"
#include "engine/sim/simulator.h"
#include "test_support.h"

namespace pipescope::engine {
namespace {

std::string Dir() {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "pipescope_text_line_test";
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Writes `text` to `name` in `compression` ("", "GZIP" or "ZLIB"); its path.
std::string Write(const std::string& name, const std::string& text,
                  const std::string& compression = "") {
  return testing::WriteFile(Dir() + "/" + name, text, compression);
}

std::vector<std::string> Lines(const std::string& text) {
  auto reader = TextLineReader::Open(Write("one.txt", text), Compression::kNone);
  EXPECT_TRUE(reader.ok());
  std::vector<std::string> lines;
  std::string line;
  bool end = false;
  while ((*reader)->Read(line, end).ok() && !end) lines.push_back(line);
  return lines;
}

using V = std::vector<std::string>;

TEST(TextLineReaderTest, ReadsLinesAsTensorFlowDoes) {
  EXPECT_EQ(Lines("a\nb\n"), (V{"a", "b"})) << "a last '\\n' adds no empty line";
  EXPECT_EQ(Lines("a\nb"), (V{"a", "b"})) << "a last line without '\\n' counts";
  EXPECT_EQ(Lines("a\r\nb\r\n"), (V{"a", "b"})) << "CRLF";
  EXPECT_EQ(Lines("a\n\nb"), (V{"a", "", "b"})) << "an empty line between two '\\n'";
  EXPECT_EQ(Lines("x\ry\n"), (V{"xy"})) << "every '\\r' is dropped";
  EXPECT_EQ(Lines(""), V{});
  EXPECT_EQ(Lines("\r"), V{}) << "nothing left of the last line";
  const std::string long_line(200'000, 'z');  // longer than a read block
  EXPECT_EQ(Lines(long_line + "\nend"), (V{long_line, "end"}));
}

TEST(TextLineReaderTest, AFileThatCannotBeOpenedIsNamed) {
  auto reader = TextLineReader::Open(Dir() + "/absent.txt", Compression::kNone);
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.status().message().find("absent.txt"), std::string::npos)
      << reader.status().message();
}

// text_line_dataset_test.py's testTextLineDataset: 2 files of 5 lines "<file>: <line>",
// CRLF, the first ending in a newline and the second not; both files in order, whatever
// the compression.
TEST(TextLineDatasetTest, ReadsEveryFileInOrderWhateverTheCompression) {
  V expected;
  for (int f = 0; f < 2; ++f)
    for (int l = 0; l < 5; ++l) expected.push_back(std::to_string(f) + ": " + std::to_string(l));
  for (const std::string compression : {"", "GZIP", "ZLIB"}) {
    std::vector<std::string> files;
    for (int f = 0; f < 2; ++f) {
      std::string text;
      for (int l = 0; l < 5; ++l) {
        text += std::to_string(f) + ": " + std::to_string(l);
        if (f == 0 || l < 4) text += "\r\n";
      }
      files.push_back(Write("f" + std::to_string(f) + compression + ".txt", text, compression));
    }
    std::string spec =
        "name: \"t\" source { name: \"lines\" text_line { compression: \"" + compression + "\"";
    for (const auto& f : files) spec += " files: \"" + f + "\"";
    spec += " } } train_step { step_time: \"0ms\" }";
    auto pipeline = testing::MakePipeline(spec);
    ASSERT_TRUE(pipeline);
    V got;
    for (const Element& e : testing::Drain(*pipeline)) got.push_back(e.value.strings()[0]);
    EXPECT_EQ(got, expected) << "compression \"" << compression << "\"";

    // The simulator counts the same lines.
    const spec::PipelineSpec parsed = testing::Spec(spec);
    auto model = sim::DefaultCostModel(parsed, 2);
    ASSERT_TRUE(model.ok());
    auto simulated = sim::Simulate(parsed, *model, {});
    ASSERT_TRUE(simulated.ok()) << simulated.status().message();
    EXPECT_EQ(simulated->summary.steps, 10) << "compression \"" << compression << "\"";
  }
}

// files.interleave(TextLineDataset): each file named by an element, read by text_line_file.
TEST(TextLineDatasetTest, InsideAnInterleaveReadsTheFileItsElementNames) {
  const std::string a = Write("a.txt", "a0\na1\n"), b = Write("b.txt", "b0\nb1\n");
  auto pipeline = testing::MakePipeline(
      "name: \"t\" source { name: \"files\" from_tensor_slices { strings: \"" + a +
      "\" strings: \"" + b +
      "\" } } ops { name: \"read\" interleave { per_element { text_line_file {} } cycle_length: 2 "
      "num_parallel_calls: 2 } } train_step { step_time: \"0ms\" }");
  ASSERT_TRUE(pipeline);
  V got;
  for (const Element& e : testing::Drain(*pipeline)) got.push_back(e.value.strings()[0]);
  EXPECT_EQ(got, (V{"a0", "b0", "a1", "b1"}));
}

}  // namespace
}  // namespace pipescope::engine
