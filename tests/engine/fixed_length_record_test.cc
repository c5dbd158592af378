// FixedLengthRecordDataset's records, as TensorFlow's fixed_length_record_dataset_op_test.cc
// gives them: two files of a 5-byte header, 3-byte records and a 2-byte footer read as
// "111", "222", "333", "aaa", "bbb", uncompressed, ZLIB and GZIP alike; a body that is not
// whole records is an error naming the file and its sizes (before the file's first record
// where the file is uncompressed, at its end where it is compressed, as in tf.data); and the
// simulator counts the records the engine reads.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/io/fixed_length_record_reader.h"
#include "engine/sim/simulator.h"
#include "engine/spec/spec_loader.h"
#include "test_support.h"

namespace pipescope::engine {
namespace {

using V = std::vector<std::string>;

std::string Dir() {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "pipescope_fixed_length_test";
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string Write(const std::string& name, const std::string& bytes,
                  const std::string& compression = "") {
  return testing::WriteFile(Dir() + "/" + name, bytes, compression);
}

// The spec of a fixed_length_record source over `files` cut 5 / 3 / 2, as the kernel test's.
std::string SourceSpec(const V& files, const std::string& compression) {
  std::string spec = "name: \"t\" source { name: \"read\" fixed_length_record { ";
  for (const auto& f : files) spec += "files: \"" + f + "\" ";
  return spec + "format { record_bytes: 3 header_bytes: 5 footer_bytes: 2 compression: \"" +
         compression + "\" } } } train_step { step_time: \"0ms\" }";
}

// What draining the pipeline gives until its end or its first error (`error`).
V Records(const std::string& spec, std::string* error = nullptr) {
  auto made = Pipeline::Create(testing::Spec(spec), Pipeline::Options{});
  EXPECT_TRUE(made.ok()) << made.status().message();
  if (!made.ok()) return {};
  V got;
  while (true) {
    Element e;
    bool end = false;
    const Status s = (*made)->GetNext(e, end);
    if (!s.ok()) {
      if (error) *error = s.message();
      break;
    }
    if (end) break;
    got.push_back(e.value.strings()[0]);
  }
  return got;
}

TEST(FixedLengthRecordDatasetTest, ReadsTheKernelTestsFilesWhateverTheCompression) {
  for (const std::string compression : {"", "ZLIB", "GZIP"}) {
    const V files{Write("one" + compression, "HHHHH111222333FF", compression),
                  Write("two" + compression, "HHHHHaaabbbFF", compression)};
    std::string error;
    EXPECT_EQ(Records(SourceSpec(files, compression), &error),
              (V{"111", "222", "333", "aaa", "bbb"}))
        << "compression \"" << compression << "\"";
    EXPECT_EQ(error, "");

    // The simulator counts the same records (its steps, one element each).
    const spec::PipelineSpec parsed = testing::Spec(SourceSpec(files, compression));
    auto model = sim::DefaultCostModel(parsed, 2);
    ASSERT_TRUE(model.ok());
    auto simulated = sim::Simulate(parsed, *model, {});
    ASSERT_TRUE(simulated.ok()) << simulated.status().message();
    EXPECT_EQ(simulated->summary.steps, 5) << "compression \"" << compression << "\"";
  }
}

// num_parallel_reads: an interleave over the names, each file cut by fixed_length_record_file.
TEST(FixedLengthRecordDatasetTest, InsideAnInterleaveReadsTheFileItsElementNames) {
  const std::string a = Write("a.bin", "HHHHH111222FF"), b = Write("b.bin", "HHHHHaaabbbFF");
  EXPECT_EQ(Records("name: \"t\" source { name: \"files\" from_tensor_slices { strings: \"" + a +
                    "\" strings: \"" + b +
                    "\" } } ops { name: \"read\" interleave { per_element { "
                    "fixed_length_record_file { record_bytes: 3 header_bytes: 5 footer_bytes: 2 "
                    "} } cycle_length: 2 num_parallel_calls: 2 } } train_step { step_time: "
                    "\"0ms\" }"),
            (V{"111", "aaa", "222", "bbb"}));
}

TEST(FixedLengthRecordDatasetTest, ABodyOfNoWholeRecordsIsAnErrorNamingTheFileAndItsSizes) {
  // Uncompressed: refused from its size before its first record (the first file's come).
  const std::string whole = Write("whole", "HHHHH111FF");
  const std::string torn = Write("torn", "HHHHH1112FF");
  std::string error;
  EXPECT_EQ(Records(SourceSpec({whole, torn}, ""), &error), (V{"111"}));
  EXPECT_NE(error.find("fixed_length_record 'read'"), std::string::npos) << error;
  EXPECT_NE(error.find(torn + "\": its body, 4 bytes between a header of 5 and a footer of 2, "
                              "is not a whole number of records of 3 bytes"),
            std::string::npos)
      << error;

  // The simulator refuses the same file before it runs, with the same words (not a file of
  // no records, and a run of none).
  const auto model = sim::DefaultCostModel(testing::Spec(SourceSpec({whole, torn}, "")), 2);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("fixed_length_record 'read': \"" + torn +
                                          "\": its body, 4 bytes"),
            std::string::npos)
      << model.status().message();

  // Compressed: its size shows at its end, after its whole records.
  const std::string torn_gz = Write("torn.gz", "HHHHH1112FF", "GZIP");
  error.clear();
  EXPECT_EQ(Records(SourceSpec({torn_gz}, "GZIP"), &error), (V{"111"}));
  EXPECT_NE(error.find("its body, 4 bytes between"), std::string::npos) << error;

  // Shorter than its header and footer, either way.
  for (const std::string compression : {"", "GZIP"}) {
    const std::string short_file = Write("short" + compression, "HHH", compression);
    error.clear();
    EXPECT_EQ(Records(SourceSpec({short_file}, compression), &error), V{});
    EXPECT_NE(error.find("shorter than its header (5 bytes) and footer (2 bytes)"),
              std::string::npos)
        << compression << ": " << error;
  }
}

TEST(FixedLengthRecordDatasetTest, AFormatWithoutRecordsIsRefusedWhereItIsWritten) {
  auto parsed = ParseSpecText(
      "name: \"t\" source { name: \"read\" fixed_length_record { files: \"x\" format { "
      "header_bytes: -1 } } } train_step { step_time: \"0ms\" }",
      "t.pbtxt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("record_bytes"), std::string::npos)
      << parsed.status().message();
  EXPECT_NE(parsed.status().message().find("header_bytes"), std::string::npos)
      << parsed.status().message();
}

}  // namespace
}  // namespace pipescope::engine
