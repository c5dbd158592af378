// Cost models: the spec's defaults, JSON files laid over them, and readable errors.
#include "engine/sim/cost_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "../engine/test_support.h"
#include "engine/io/tfrecord_writer.h"
#include "engine/sim/cost_model_json.h"
#include "engine/sim/normal_draw.h"
#include "engine/sim/tfrecord_stats.h"

namespace pipescope::sim {
namespace {

using engine::testing::Spec;

const char* kSpec = R"(name: "t"
  source { name: "read" synthetic { records: 10 record_bytes: 1000 read_latency: "1ms" bandwidth: "1MB/s" } }
  ops { name: "decode" map { fn { cpu_work { duration: "2ms" } } num_parallel_calls: 2 } }
  ops { name: "io" map { fn { io_wait { duration: "3ms" } } } }
  ops { name: "keep" filter { predicate { keep_fraction { fraction: 0.25 } } } }
  train_step { step_time: "8ms" })";

TEST(CostModelTest, DefaultsComeFromTheSpec) {
  auto m = DefaultCostModel(Spec(kSpec), 3);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->cores, 3);
  EXPECT_EQ(m->step.mean_ns, 8e6);
  EXPECT_EQ(m->Of("read").records, 10);
  EXPECT_DOUBLE_EQ(m->Of("read").wait.mean_ns, 1e6 + 1e6);  // latency + 1000 B at 1 MB/s
  EXPECT_EQ(m->Of("decode").cpu_per_row.mean_ns, 2e6);
  EXPECT_EQ(m->Of("io").wait.mean_ns, 3e6);
  EXPECT_DOUBLE_EQ(m->Of("keep").keep_fraction, 0.25);
}

// A __getitem__ that makes a sample of 150 KB: the loader's rows weigh that, and stacking
// them copies it (the engine's samples are arrays of that size: python_work.h).
// The loop's own Python (an eager loop's next()) is the model's loop_python, apart from the
// step and its host part; none where the spec sets none.
TEST(CostModelTest, TheLoopsPythonIsItsOwnApartFromTheStep) {
  auto none = DefaultCostModel(Spec(kSpec), 3);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->loop_python.zero());
  auto loop = DefaultCostModel(
      Spec("source { range { stop: 10 } } train_step { step_time: \"8ms\" loop_python: "
           "\"14us\" }"),
      3);
  ASSERT_TRUE(loop.ok());
  EXPECT_EQ(loop->loop_python.mean_ns, 14e3);
  EXPECT_TRUE(loop->step_host.zero());
  EXPECT_EQ(loop->step.mean_ns, 8e6);
}

TEST(CostModelTest, AGetitemsSampleBytesAreWhatTheLoaderStacksAndSends) {
  auto m = DefaultCostModel(Spec(R"(name: "t"
    source { name: "ids" range { stop: 100 } }
    ops { name: "loader" dataloader { batch_size: 8 num_workers: 2
          getitem { python { duration: "1ms" } output_bytes: 150000 } } }
    train_step { step_time: "8ms" })"),
                            2);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Of("loader").out_bytes, 150000);
  EXPECT_GT(m->Of("loader").cpu_per_row.mean_ns, 1e6 + 2 * 0.1 * 150000)
      << "its call, its writing and the stacking's copy";
}

void WriteRecords(const std::string& path, int n, size_t bytes) {
  auto w = engine::TfRecordWriter::Create(path, engine::Compression::kNone);
  ASSERT_TRUE(w.ok()) << w.status().message();
  for (int i = 0; i < n; ++i) ASSERT_TRUE((*w)->Write(std::string(bytes, 'x')).ok());
  ASSERT_TRUE((*w)->Close().ok());
}

TEST(CostModelTest, TfRecordSourcesCountTheirFilesRecordsAgainOnceAFileChanges) {
  const std::string path = ::testing::TempDir() + "/pipescope_cost_model_stats.tfrecord";
  WriteRecords(path, 10, 100);
  const std::string spec = R"(name: "t" source { name: "read" tfrecord { files: ")" + path +
                           R"(" } } train_step { step_time: "1ms" })";
  auto m = DefaultCostModel(Spec(spec), 2);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Of("read").records, 10);
  EXPECT_EQ(m->Of("read").out_bytes, 100);
  // Counted once per version of the file: asked again it answers the same, and a file
  // rewritten with other records is read again.
  EXPECT_EQ(StatsOfTfRecordFile(path, engine::Compression::kNone).records, 10);
  WriteRecords(path, 25, 40);
  m = DefaultCostModel(Spec(spec), 2);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Of("read").records, 25);
  EXPECT_EQ(m->Of("read").out_bytes, 40);
  EXPECT_FALSE(StatsOfTfRecordFile(path + ".missing", engine::Compression::kNone).readable);
}

TEST(CostModelTest, JsonRoundTripsAndOverlaysOnlyWhatItNames) {
  auto base = DefaultCostModel(Spec(kSpec), 2);
  ASSERT_TRUE(base.ok());
  auto again = ParseCostModelJson(CostModelToJson(*base), CostModel{}, "m.json");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(CostModelToJson(*again), CostModelToJson(*base));
  // A remote store's requests are kept, and a negative size refused with its place.
  auto requests = ParseCostModelJson(
      R"({"ops": {"io": {"request_wait": {"mean_ns": 5e7, "cv": 1}, "request_bytes": 262144}}})",
      *base, "m.json");
  ASSERT_TRUE(requests.ok()) << requests.status().message();
  EXPECT_EQ(requests->Of("io").request_bytes, 262144);
  auto requests_kept = ParseCostModelJson(CostModelToJson(*requests), CostModel{}, "m.json");
  ASSERT_TRUE(requests_kept.ok());
  EXPECT_EQ(requests_kept->Of("io").request_wait.mean_ns, 5e7);
  EXPECT_EQ(requests_kept->Of("io").request_wait.cv, 1);
  EXPECT_EQ(requests_kept->Of("io").request_bytes, 262144);
  // An interleave's files' own record counts are kept; a count that is no count is refused.
  auto by_file =
      ParseCostModelJson(R"({"ops": {"io": {"records_by_file": [3, 2]}}})", *base, "m.json");
  ASSERT_TRUE(by_file.ok()) << by_file.status().message();
  auto by_file_kept = ParseCostModelJson(CostModelToJson(*by_file), CostModel{}, "m.json");
  ASSERT_TRUE(by_file_kept.ok());
  EXPECT_EQ(by_file_kept->Of("io").records_by_file, (std::vector<int64_t>{3, 2}));
  auto not_counts =
      ParseCostModelJson(R"({"ops": {"io": {"records_by_file": [3, -2]}}})", *base, "m.json");
  ASSERT_FALSE(not_counts.ok());
  EXPECT_NE(not_counts.status().message().find("m.json.ops.io.records_by_file[1]"),
            std::string::npos)
      << not_counts.status().message();
  auto negative = ParseCostModelJson(R"({"ops": {"io": {"request_bytes": -1}}})", *base, "m.json");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("m.json.ops.io.request_bytes"), std::string::npos)
      << negative.status().message();

  auto overlaid = ParseCostModelJson(
      R"({"ops": {"decode": {"cpu_per_row": {"mean_ns": 5e6, "cv": 0.3}}}})", *base, "m.json");
  ASSERT_TRUE(overlaid.ok());
  EXPECT_EQ(overlaid->Of("decode").cpu_per_row.mean_ns, 5e6);
  EXPECT_EQ(overlaid->Of("decode").cpu_per_row.cv, 0.3);
  EXPECT_EQ(overlaid->Of("io").wait.mean_ns, 3e6);  // untouched
  EXPECT_EQ(overlaid->step.mean_ns, 8e6);

  auto wake =
      ParseCostModelJson(R"({"timer_wake": {"mean_ns": 1.5e5, "cv": 0.2}})", *base, "m.json");
  ASSERT_TRUE(wake.ok());
  EXPECT_EQ(wake->timer_wake.mean_ns, 1.5e5);
  EXPECT_EQ(wake->timer_wake.cv, 0.2);

  auto late = ParseCostModelJson(R"({"startup_ns": 150000000})", *base, "m.json");
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late->startup_ns, 150'000'000);
  EXPECT_NE(CostModelToJson(*late).find("\"startup_ns\": 150000000"), std::string::npos);

  // A PyTorch loop's share under the interpreter lock, kept through a file.
  auto python_loop = ParseCostModelJson(R"({"step_host_gil_share": 1})", *base, "m.json");
  ASSERT_TRUE(python_loop.ok()) << python_loop.status().message();
  auto loop_kept = ParseCostModelJson(CostModelToJson(*python_loop), CostModel{}, "m.json");
  ASSERT_TRUE(loop_kept.ok());
  EXPECT_EQ(loop_kept->step_host_gil_share, 1);

  // A worker's start-up as calibrated: kept through a file; -1 (the spec's) by default.
  EXPECT_EQ(base->Of("decode").worker_startup_ns, -1);
  auto workers = ParseCostModelJson(R"({"ops": {"decode": {"worker_startup_ns": 95000000}}})",
                                    *base, "m.json");
  ASSERT_TRUE(workers.ok()) << workers.status().message();
  auto kept = ParseCostModelJson(CostModelToJson(*workers), CostModel{}, "m.json");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->Of("decode").worker_startup_ns, 95'000'000);
}

// A model loaded by a relative name keeps its whole path: a simulated trace's header names it,
// and advice on that trace, opened from another folder (the GUI), loads the same costs.
TEST(CostModelTest, AModelFileIsNamedByItsWholePath) {
  const auto dir = std::filesystem::temp_directory_path() / "pipescope_cost_model_path";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "m.json") << R"({"timer_wake": {"mean_ns": 1.5e5}})"; }
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  auto loaded = LoadCostModelFile("m.json", CostModel{});
  std::filesystem::current_path(before);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->file, (dir / "m.json").lexically_normal().string());
  std::filesystem::remove_all(dir);
}

TEST(CostModelTest, BadFilesGiveErrorsThatSayWhere) {
  auto base = DefaultCostModel(Spec(kSpec), 2);
  ASSERT_TRUE(base.ok());
  struct Case {
    const char* json;
    const char* expected;
  } cases[] = {
      {"{", "m.json: not valid JSON"},
      {"[]", "expected a JSON object"},
      {R"({"format": "other"})", "not a Pipescope cost model"},
      {R"({"cores": "four"})", "m.json.cores: expected a number"},
      {R"({"cores": 0})", "cores: must be positive"},
      {R"({"ops": {"decode": {"cpu": {"mean_ns": -1}}}})",
       "m.json.ops.decode.cpu: must not be negative"},
      {R"({"ops": {"keep": {"keep_fraction": 2}}})", "keep_fraction: must be within [0, 1]"},
      {R"({"timer_wake": {"mean_ns": -5}})", "m.json.timer_wake: must not be negative"},
      {R"({"startup_ns": -1})", "m.json.startup_ns: must be within [0, 1 hour]"},
      {R"({"step_host_gil_share": 1.5})", "m.json.step_host_gil_share: must be within [0, 1]"},
      {R"({"ops": {"decode": {"worker_startup_ns": -2}}})",
       "m.json.ops.decode.worker_startup_ns: must be within [0, 1 hour]"},
  };
  for (const auto& c : cases) {
    auto m = ParseCostModelJson(c.json, *base, "m.json");
    ASSERT_FALSE(m.ok()) << c.json;
    EXPECT_NE(m.status().message().find(c.expected), std::string::npos) << m.status().message();
  }
}

TEST(CostModelTest, DistributionsHaveTheirMeanAndAreReproducible) {
  Dist d{1e6, 0.5};
  Rng a(7), b(7);
  double sum = 0;
  for (int i = 0; i < 20000; ++i) {
    const int64_t x = d.Sample(a);
    EXPECT_EQ(x, d.Sample(b));
    sum += static_cast<double>(x);
  }
  EXPECT_NEAR(sum / 20000, 1e6, 2e4);
  Rng r(1);
  EXPECT_EQ((Dist{5e5, 0}).Sample(r), 500000);
}

TEST(CostModelTest, ADrawOfASumHasTheSumsMeanAndNarrowerSpread) {
  // A run of 16 cheap calls is charged one draw: mean 16x, cv a quarter of one call's.
  const DistSampler one(Dist{1e4, 0.8});
  Rng rng(3);
  std::vector<double> sums;
  sums.reserve(20000);
  for (int i = 0; i < 20000; ++i) sums.push_back(static_cast<double>(one.SampleSum(rng, 16)));
  double mean = 0, var = 0;
  for (double x : sums) mean += x / static_cast<double>(sums.size());
  for (double x : sums) var += (x - mean) * (x - mean) / static_cast<double>(sums.size() - 1);
  EXPECT_NEAR(mean, 16e4, 16e4 * 0.01);
  EXPECT_NEAR(std::sqrt(var) / mean, 0.2, 0.01);
  EXPECT_EQ(one.SampleSum(rng, 0), 0);
  // Beyond the cached run lengths (a batch of 2,048 records) the parameters are computed
  // each time, to the same mean.
  double big = 0;
  for (int i = 0; i < 2000; ++i) big += static_cast<double>(one.SampleSum(rng, 2048)) / 2000;
  EXPECT_NEAR(big, 2048e4, 2048e4 * 0.01);
  EXPECT_EQ(DistSampler(Dist{5e5, 0}).SampleSum(rng, 3), 1'500'000);
}

TEST(CostModelTest, NormalQuantilesAreTheStandardNormals) {
  EXPECT_NEAR(NormalQuantile(0.5), 0, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(NormalQuantile(0.01), -2.326348, 1e-6);
  EXPECT_NEAR(NormalQuantile(1e-9), -5.997807, 1e-5);  // the tail formula
}

TEST(CostModelTest, NormalDrawsHaveTheNormalsMomentsAndTails) {
  // The table's slices and the exact outer slices together: mean 0, variance 1, and the
  // share of draws beyond 1, 2 and 3 sigma as the normal has them.
  Rng rng(11);
  constexpr int kDraws = 400'000;
  double sum = 0, sum2 = 0;
  int beyond[4] = {0, 0, 0, 0};
  for (int i = 0; i < kDraws; ++i) {
    const double z = rng.Normal();
    sum += z;
    sum2 += z * z;
    for (int k = 1; k <= 3; ++k) beyond[k] += std::abs(z) > k;
  }
  EXPECT_NEAR(sum / kDraws, 0, 0.01);
  EXPECT_NEAR(sum2 / kDraws, 1, 0.01);
  EXPECT_NEAR(beyond[1] / double{kDraws}, 0.3173, 0.003);
  EXPECT_NEAR(beyond[2] / double{kDraws}, 0.0455, 0.001);
  EXPECT_NEAR(beyond[3] / double{kDraws}, 0.0027, 0.0003);
  // A log-normal cost keeps its mean (it hangs on the right tail).
  const DistSampler cost(Dist{1e4, 1.0});
  double mean = 0;
  for (int i = 0; i < kDraws; ++i) mean += static_cast<double>(cost.Sample(rng)) / kDraws;
  EXPECT_NEAR(mean, 1e4, 1e4 * 0.01);
}

}  // namespace
}  // namespace pipescope::sim
