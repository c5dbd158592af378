// pipescope-cli make-dataset and inspect, end to end: shards that inspect describes, JSON
// for scripts, and damaged files reported with a non-zero exit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace {

using pipescope::testing::Cli;

std::string Dir(const std::string& name) {
  const auto d = std::filesystem::path(::testing::TempDir()) / ("pipescope_cli_" + name);
  std::filesystem::remove_all(d);
  return d.string();
}

TEST(CliDatasetTest, MakeDatasetWritesShardsThatInspectDescribes) {
  const std::string dir = Dir("mnist");
  auto made = Cli("make-dataset --kind mnist-like --records 30 --shards 3 --out " + dir +
                  " --compression GZIP");
  ASSERT_EQ(made.exit_code, 0) << made.out;
  EXPECT_NE(made.out.find("wrote 30 mnist-like records in 3 files"), std::string::npos) << made.out;
  const std::string shard = dir + "/mnist-like-00001-of-00003.tfrecord.gz";
  auto r = Cli("inspect " + shard + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["path"], shard);
  EXPECT_EQ(j[0]["records"], 10);
  EXPECT_EQ(j[0]["compression"], "GZIP");
  EXPECT_TRUE(j[0]["checksums_ok"].get<bool>());
  EXPECT_EQ(j[0]["kind"], "tf.Example");
  ASSERT_EQ(j[0]["features"].size(), 2u);
  EXPECT_EQ(j[0]["features"][0]["name"], "image");
  EXPECT_EQ(j[0]["features"][0]["type"], "float");
  EXPECT_EQ(j[0]["features"][0]["max_length"], 784);
}

TEST(CliDatasetTest, InspectReportsADamagedFileWithItsOffsetAndFails) {
  const std::string dir = Dir("chess");
  ASSERT_EQ(Cli("make-dataset --kind chess --records 20 --out " + dir).exit_code, 0);
  const std::string file = dir + "/chess-00000-of-00001.tfrecord";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(300);
    f.put('\x13');
  }
  auto r = Cli("inspect " + file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("DAMAGED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at byte"), std::string::npos) << r.out;
}

TEST(CliDatasetTest, BadArgumentsAreReadableErrors) {
  auto r = Cli("make-dataset --kind cifar --out " + Dir("bad"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown dataset kind \"cifar\""), std::string::npos) << r.out;
  r = Cli("inspect /nonexistent.tfrecord");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("cannot open"), std::string::npos) << r.out;
  // A directory is not read as a file of 2^63 - 1 bytes.
  r = Cli("inspect " + ::testing::TempDir());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("9223372036854775807"), std::string::npos) << r.out;
}

}  // namespace
