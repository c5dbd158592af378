// import-code on the corpus (tests/code/corpus): pipelines from the seed questions,
// TensorFlow's guides, PyTorch's tutorial and Keras's usage, in the spellings people write,
// each beside the spec expected of it (NAME.expected.pbtxt, written by hand from the rules in
// README's "Code in, code out") and the settings it is read with (NAME.args). Every file's
// spec, written as code again, must read back to itself.

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::code {
namespace {

namespace fs = std::filesystem;

std::string CorpusDir() { return std::string(PIPESCOPE_SOURCE_DIR) + "/tests/code/corpus"; }

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(CorpusDir())) {
    if (entry.path().extension() == ".py") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// NAME.args: `--set ASSIGNMENT` and `--pipeline VARIABLE`, each word on a line of its own.
struct Arguments {
  std::vector<std::string> sets;
  ImportOptions options;
};
Arguments ArgumentsOf(const std::string& name) {
  std::ifstream in(CorpusDir() + "/" + name + ".args");
  Arguments args;
  std::string line, previous;
  while (std::getline(in, line)) {
    if (previous == "--set") args.sets.push_back(line);
    if (previous == "--pipeline") args.options.pipeline = line;
    previous = line;
  }
  return args;
}

spec::PipelineSpec WithoutLabels(spec::PipelineSpec s) {
  s.clear_name();
  s.clear_description();
  return s;
}

class CodeCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CodeCorpusTest, ReadsToTheExpectedSpecAndBackFromItsCode) {
  const std::string name = GetParam();
  const Arguments args = ArgumentsOf(name);
  auto imported = ImportCodeFile(CorpusDir() + "/" + name + ".py", args.options);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  for (const std::string& s : args.sets) {
    ASSERT_TRUE(SetCodeKnob(*imported, s).ok()) << s;
  }
  // As written: file names stay as the code spells them (LoadSpecFile would resolve them).
  std::ifstream expected_file(CorpusDir() + "/" + name + ".expected.pbtxt");
  std::stringstream expected_text;
  expected_text << expected_file.rdbuf();
  auto expected = engine::ParseSpecText(expected_text.str(), name + ".expected.pbtxt");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  // What the code says: native work that stand-in data replaced by its cost counts as the
  // code's (the spec runs the cost until real files are set).
  EXPECT_TRUE(diff.Compare(WithoutLabels(*expected), WithoutLabels(AsWritten(*imported))))
      << name << ":\n"
      << report;

  auto emitted = EmitCode(AsWritten(*imported), imported->framework);
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  auto again = ImportCode(emitted->text, name + ".emitted.py");
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << emitted->text;
  std::string round_trip;
  google::protobuf::util::MessageDifferencer back;
  back.ReportDifferencesToString(&round_trip);
  // What import-code left out of the spec is the user's code, which the code written back
  // (its stand-ins) does not hold.
  spec::PipelineSpec read = AsWritten(*imported);
  read.clear_left_out();
  EXPECT_TRUE(back.Compare(WithoutLabels(read), WithoutLabels(AsWritten(*again))))
      << name << " written as code and read again:\n"
      << round_trip << emitted->text;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CodeCorpusTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const auto& file) { return file.param; });

TEST(CodeCorpusSizeTest, HoldsAtLeastTwentyFiveFilesEachWithItsExpectedSpec) {
  const auto files = CorpusFiles();
  EXPECT_GE(files.size(), 25u);
  for (const auto& name : files) {
    EXPECT_TRUE(fs::exists(CorpusDir() + "/" + name + ".expected.pbtxt")) << name;
  }
}

}  // namespace
}  // namespace pipescope::code
