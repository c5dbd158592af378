// Spec parsing and validation: errors name the file, line and field.
#include "engine/spec/spec_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/spec/op_values.h"

namespace pipescope::engine {
namespace {

std::string ErrorOf(const std::string& text) {
  auto r = ParseSpecText(text, "demo.pbtxt");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(SpecLoaderTest, AcceptsAutotuneWhereAKnobTakesANumber) {
  auto r = ParseSpecText(
      "source { range { stop: 5 } }\n"
      "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: AUTOTUNE } }\n"
      "ops { prefetch { buffer_size: AUTOTUNE } }  # AUTOTUNE in a comment stays\n",
      "x.pbtxt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ops(0).map().num_parallel_calls(), kAutotune);
  EXPECT_EQ(r->ops(1).prefetch().buffer_size(), kAutotune);
}

TEST(SpecLoaderTest, LeavesAutotuneInsideStringsAlone) {
  EXPECT_EQ(SubstituteAutotune("name: \"AUTOTUNE\" x: AUTOTUNE"), "name: \"AUTOTUNE\" x: -1");
  EXPECT_EQ(SubstituteAutotune("x: AUTOTUNED"), "x: AUTOTUNED");
}

TEST(SpecLoaderTest, NamesUnnamedOpsByKind) {
  auto r = ParseSpecText(
      "source { range { stop: 5 } } ops { map { fn { identity {} } } } "
      "ops { map { fn { identity {} } } } ops { prefetch { buffer_size: 1 } }",
      "x");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->source().name(), "source");
  EXPECT_EQ(r->ops(0).name(), "map");
  EXPECT_EQ(r->ops(1).name(), "map_2");
  EXPECT_EQ(r->ops(2).name(), "prefetch");
}

TEST(SpecLoaderTest, SyntaxErrorsNameLineAndColumn) {
  const std::string e = ErrorOf("source { range { stop: 5 } }\nops { map { fn { bogus {} } } }\n");
  EXPECT_NE(e.find("demo.pbtxt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("bogus"), std::string::npos) << e;
}

TEST(SpecLoaderTest, BadKnobNamesTheLineTheOpAndTheField) {
  const std::string e = ErrorOf(
      "source { range { stop: 5 } }\n"
      "ops {\n"
      "  name: \"decode\"\n"
      "  map { fn { identity {} } num_parallel_calls: -3 }\n"
      "}\n");
  EXPECT_NE(
      e.find("demo.pbtxt:4: op 'decode' (map): num_parallel_calls must be ≥ 0 or AUTOTUNE, got -3"),
      std::string::npos)
      << e;
}

TEST(SpecLoaderTest, ARemoteStoresRequestsAndTheirSpreadAreChecked) {
  const std::string e = ErrorOf(
      "source { from_tensor_slices { count: 4 } }\n"
      "ops { name: \"interleave\" interleave { per_element { synthetic_file {\n"
      "  records_per_file: 10 record_bytes: 100 read_request_bytes: -1\n"
      "  read_latency_cv: 40 } } cycle_length: 2 } }\n");
  EXPECT_NE(e.find("read_request_bytes must be ≥ 0"), std::string::npos) << e;
  EXPECT_NE(e.find("read_latency_cv must be between 0 and 10"), std::string::npos) << e;
}

TEST(SpecLoaderTest, ReportsEveryProblemAtOnce) {
  const std::string e = ErrorOf(
      "source { range { stop: 5 } }\n"
      "ops { batch { batch_size: 0 } }\n"
      "ops { shard { num_shards: 2 index: 2 } }\n"
      "train_step { step_time: \"8\" }\n");
  EXPECT_NE(e.find(":2: op 'batch' (batch): batch_size must be ≥ 1"), std::string::npos) << e;
  EXPECT_NE(e.find(":3: op 'shard' (shard): index must be in [0, num_shards)"), std::string::npos)
      << e;
  EXPECT_NE(e.find(":4: train_step: step_time duration \"8\" needs a unit"), std::string::npos)
      << e;
}

TEST(SpecLoaderTest, RejectsAutotuneWhereItWouldChangeTheOutput) {
  const std::string e =
      ErrorOf("source { range { stop: 5 } }\nops { shuffle { buffer_size: AUTOTUNE } }\n");
  EXPECT_NE(e.find("buffer_size cannot be AUTOTUNE"), std::string::npos) << e;
}

// tf.data refuses cycle_length=0 and block_length=0; only a field left out means its
// default (AUTOTUNE and 1).
TEST(SpecLoaderTest, ZeroCycleOrBlockLengthIsAnErrorAsInTfData) {
  const std::string il =
      "source { range { stop: 5 } }\nops { name: \"il\" interleave { per_element { from_element {} "
      "} ";
  const std::string cycle = ErrorOf(il + "cycle_length: 0 } }\n");
  EXPECT_NE(
      cycle.find("demo.pbtxt:2: op 'il' (interleave): cycle_length must be greater than zero"),
      std::string::npos)
      << cycle;
  const std::string block = ErrorOf(il + "block_length: 0 } }\n");
  EXPECT_NE(block.find("block_length must be greater than zero"), std::string::npos) << block;
  auto omitted = ParseSpecText(il + "} }\n", "x.pbtxt");
  ASSERT_TRUE(omitted.ok()) << omitted.status().message();
  EXPECT_EQ(CycleLength(omitted->ops(0).interleave()), kAutotune);
  EXPECT_EQ(BlockLength(omitted->ops(0).interleave()), 1);
  auto autotuned = ParseSpecText(il + "cycle_length: AUTOTUNE } }\n", "x.pbtxt");
  ASSERT_TRUE(autotuned.ok()) << autotuned.status().message();
  EXPECT_EQ(CycleLength(autotuned->ops(0).interleave()), kAutotune);
}

// from_tensors(x).repeat(x) counts by an element's value: a batch has none.
TEST(SpecLoaderTest, RepeatByValueAfterABatchIsRefused) {
  const std::string e = ErrorOf(
      "source { range { stop: 5 } }\nops { batch { batch_size: 2 } }\n"
      "ops { name: \"il\" interleave { per_element { from_element { repeat_by_value: true } } } "
      "}\n");
  EXPECT_NE(e.find(":3: op 'il' (interleave): per_element from_element.repeat_by_value"),
            std::string::npos)
      << e;
}

// A function's rows (slices) are a count of elements: not negative, and not beside
// repeat_by_value, which counts by the element's value instead.
TEST(SpecLoaderTest, SlicesOfAFunctionsRowsAreACountOfTheirOwn) {
  for (const std::string& bad : {"slices: -1", "slices: 3 repeat_by_value: true"}) {
    const std::string e = ErrorOf(
        "source { range { stop: 5 } }\nops { name: \"il\" interleave { per_element { "
        "from_element { " +
        bad + " } } } }\n");
    EXPECT_NE(e.find(":2: op 'il' (interleave): slices is the rows"), std::string::npos)
        << bad << ": " << e;
  }
  EXPECT_TRUE(ParseSpecText("source { range { stop: 5 } }\nops { interleave { per_element { "
                            "from_element { slices: 3 } } } }\n",
                            "x.pbtxt")
                  .ok());
}

// repeat {} is forever, repeat { count: 0 } is nothing; a seed of 0 is a seed.
TEST(SpecLoaderTest, WrittenZeroAndLeftOutMeanDifferentThings) {
  auto r = ParseSpecText(
      "source { list_files { pattern: \"*.x\" } }\n"
      "ops { repeat {} } ops { repeat { count: 0 } }\n"
      "ops { shuffle { buffer_size: 2 } } ops { shuffle { buffer_size: 2 seed: 0 } }\n",
      "x.pbtxt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(RepeatCount(r->ops(0).repeat()), -1);
  EXPECT_EQ(RepeatCount(r->ops(1).repeat()), 0);
  EXPECT_FALSE(ShuffleSeed(r->ops(2).shuffle()).has_value());
  EXPECT_EQ(ShuffleSeed(r->ops(3).shuffle()), std::optional<uint64_t>(0));
  EXPECT_TRUE(ListFilesShuffles(r->source().list_files()));
  EXPECT_FALSE(ListFilesSeed(r->source().list_files()).has_value());
}

// A spec written into another folder (autotune --out, Save Pipeline Spec As) keeps finding
// its data: relative paths are rewritten relative to where it is written.
TEST(SpecLoaderTest, AWrittenSpecFindsItsDataFromAnotherFolder) {
  namespace fs = std::filesystem;
  // Relative to the working folder, as people write them.
  const fs::path root = "pipescope_spec_paths_test";
  fs::remove_all(root);
  fs::create_directories(root / "specs");
  fs::create_directories(root / "data");
  fs::create_directories(root / "elsewhere" / "deeper");
  {
    std::ofstream(root / "specs" / "a.pbtxt")
        << "source { list_files { pattern: \"../data/*.rec\" } }\n";
  }
  auto loaded = LoadSpecFile((root / "specs" / "a.pbtxt").string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const std::string pattern = loaded->source().list_files().pattern();
  const fs::path out = root / "elsewhere" / "deeper" / "b.pbtxt";
  ASSERT_TRUE(WriteSpecFile(*loaded, out.string(), "written by a test").ok());
  auto reloaded = LoadSpecFile(out.string());
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().message();
  EXPECT_EQ(reloaded->source().list_files().pattern(), pattern);
  std::ifstream in(out);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(text.find("# written by a test"), std::string::npos) << text;
  EXPECT_NE(text.find("\"../../data/*.rec\""), std::string::npos) << text;
  EXPECT_FALSE(WriteSpecFile(*loaded, "/nonexistent/dir/c.pbtxt", "x").ok());
  fs::remove_all(root);
}

// Every reader's files are found beside the spec, as a TFRecord source's are: text lines and
// fixed-length records too.
TEST(SpecLoaderTest, EveryReadersFilesAreFoundBesideTheSpec) {
  namespace fs = std::filesystem;
  const fs::path root = "pipescope_spec_readers_test";
  fs::remove_all(root);
  fs::create_directories(root / "specs");
  for (const std::string source :
       {"text_line { files: \"../data/a.txt\" }",
        "fixed_length_record { files: \"../data/a.txt\" format { record_bytes: 4 } }"}) {
    std::ofstream(root / "specs" / "a.pbtxt") << "source { name: \"read\" " << source << " }\n";
    auto loaded = LoadSpecFile((root / "specs" / "a.pbtxt").string());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const std::string file = loaded->source().has_text_line()
                                 ? loaded->source().text_line().files(0)
                                 : loaded->source().fixed_length_record().files(0);
    EXPECT_EQ(file, (root / "data" / "a.txt").string()) << source;
  }
  fs::remove_all(root);
}

TEST(SpecLoaderTest, RejectsAMapAfterBatchWithoutABatchedForm) {
  const std::string e = ErrorOf(
      "source { range { stop: 5 } }\nops { batch { batch_size: 2 } }\n"
      "ops { name: \"fetch\" map { fn { io_wait { duration: \"1ms\" } } } }\n");
  EXPECT_NE(e.find(":3: op 'fetch' (map): fn 'io_wait' has no batched form"), std::string::npos)
      << e;
}

TEST(SpecLoaderTest, RejectsDuplicateNames) {
  const std::string e = ErrorOf(
      "source { range { stop: 5 } }\nops { name: \"a\" unbatch {} }\nops { name: \"a\" take { "
      "count: 1 } }\n");
  EXPECT_NE(e.find("name 'a' is used by 2 ops"), std::string::npos) << e;
}

TEST(SpecLoaderTest, MissingSourceIsAnError) {
  EXPECT_NE(ErrorOf("ops { unbatch {} }").find("source is required"), std::string::npos);
}

TEST(SpecLoaderTest, MissingFileIsANotFoundError) {
  auto r = LoadSpecFile("/nonexistent/spec.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

TEST(SpecLoaderTest, RoundTripsThroughTextWithAutotuneSpelledOut) {
  auto r =
      ParseSpecText("source { range { stop: 5 } } ops { prefetch { buffer_size: AUTOTUNE } }", "x");
  ASSERT_TRUE(r.ok());
  const std::string text = SpecToText(*r);
  EXPECT_NE(text.find("buffer_size: AUTOTUNE"), std::string::npos) << text;
  auto again = ParseSpecText(text, "y");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->SerializeAsString(), r->SerializeAsString());
}

TEST(SpecLoaderTest, EveryShippedPipelineLoads) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PIPESCOPE_RESOURCES "/pipelines")) {
    if (entry.path().extension() != ".pbtxt") continue;
    auto r = LoadSpecFile(entry.path().string());
    EXPECT_TRUE(r.ok()) << entry.path() << ": " << r.status().message();
    ++count;
  }
  EXPECT_GE(count, 5);
}

}  // namespace
}  // namespace pipescope::engine
