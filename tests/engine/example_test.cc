// tf.train.Example compatibility (golden bytes encoded by hand from TensorFlow's field
// numbers, packed and unpacked), the dataset maker, JPEG round trips, and pipelines that
// read the shards it writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "engine/io/dataset_maker.h"
#include "engine/io/example.pb.h"
#include "engine/io/example_features.h"
#include "engine/io/tfrecord_reader.h"
#include "engine/work/jpeg_codec.h"
#include "tests/engine/test_support.h"

namespace pipescope::engine {
namespace {

// {label: int64 [7, 300] packed, weight: float [0.5] unpacked, name: bytes ["cat"]}
const std::string kExample(
    "\x0a\x36\x0a\x10\x0a\x05\x6c\x61\x62\x65\x6c\x12\x07\x1a\x05\x0a\x03\x07\xac\x02\x0a\x11\x0a"
    "\x06"
    "\x77\x65\x69\x67\x68\x74\x12\x07\x12\x05\x0d\x00\x00\x00\x3f\x0a\x0f\x0a\x04\x6e\x61\x6d\x65"
    "\x12"
    "\x07\x0a\x05\x0a\x03\x63\x61\x74",
    56);
// {label: int64 [7, 300] unpacked}
const std::string kUnpackedExample(
    "\x0a\x12\x0a\x10\x0a\x05\x6c\x61\x62\x65\x6c\x12\x07\x1a\x05\x08\x07\x08\xac\x02", 20);

TEST(ExampleTest, ParsesTensorFlowsEncodingPackedOrNot) {
  tf::Example e;
  ASSERT_TRUE(e.ParseFromString(kExample));
  const auto& f = e.features().feature();
  ASSERT_EQ(f.at("label").int64_list().value_size(), 2);
  EXPECT_EQ(f.at("label").int64_list().value(1), 300);
  EXPECT_FLOAT_EQ(f.at("weight").float_list().value(0), 0.5f);
  EXPECT_EQ(f.at("name").bytes_list().value(0), "cat");
  tf::Example u;
  ASSERT_TRUE(u.ParseFromString(kUnpackedExample));
  EXPECT_EQ(u.features().feature().at("label").int64_list().value(1), 300);
}

TEST(ExampleTest, WhatWeWriteIsTensorFlowsEncoding) {
  // A one-feature Example serializes to exactly the bytes TensorFlow writes (packed ints).
  tf::Example e;
  auto& label = (*e.mutable_features()->mutable_feature())["label"];
  label.mutable_int64_list()->add_value(7);
  label.mutable_int64_list()->add_value(300);
  std::string expected(
      "\x0a\x12\x0a\x10\x0a\x05\x6c\x61\x62\x65\x6c\x12\x07\x1a\x05\x0a\x03\x07\xac\x02", 20);
  EXPECT_EQ(e.SerializeAsString(), expected);
}

TEST(ExampleTest, DescribesFeatureNamesTypesAndLengths) {
  RecordFeatures d;
  DescribeRecord(kExample, d);
  DescribeRecord(kUnpackedExample, d);
  EXPECT_EQ(d.kind, "tf.Example");
  EXPECT_EQ(d.features.at("label").type, "int64");
  EXPECT_EQ(d.features.at("label").max_length, 2);
  EXPECT_EQ(d.features.at("weight").type, "float");
  RecordFeatures raw;
  DescribeRecord("\xff\xff\xff not a proto", raw);
  EXPECT_EQ(raw.kind, "raw");
}

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("pipescope_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST(DatasetMakerTest, WritesShardsOfRealExamplesReproducibly) {
  MakeDatasetOptions o;
  o.kind = DatasetKind::kImagenetLike;
  o.records = 25;
  o.shards = 3;
  o.out_dir = TempDir("inet");
  int64_t last_progress = 0;
  o.progress = [&](int64_t done, int64_t total) {
    EXPECT_EQ(total, 25);
    last_progress = done;
  };
  auto made = MakeDataset(o);
  ASSERT_TRUE(made.ok()) << made.status().message();
  ASSERT_EQ(made->files.size(), 3u);
  EXPECT_EQ(last_progress, 25);
  int64_t records = 0;
  std::set<size_t> sizes;
  for (const auto& file : made->files) {
    auto reader = TfRecordReader::Open(file, {});
    ASSERT_TRUE(reader.ok());
    std::string record;
    bool end = false;
    while ((*reader)->Read(record, end).ok() && !end) {
      ++records;
      tf::Example e;
      ASSERT_TRUE(e.ParseFromString(record));
      const auto& f = e.features().feature();
      const std::string& jpeg = f.at("image/encoded").bytes_list().value(0);
      sizes.insert(jpeg.size());
      auto image = DecodeJpeg(jpeg);
      ASSERT_TRUE(image.ok()) << image.status().message();
      EXPECT_EQ(image->height, f.at("image/height").int64_list().value(0));
      EXPECT_EQ(image->width, f.at("image/width").int64_list().value(0));
      EXPECT_LT(f.at("image/class/label").int64_list().value(0), 1000);
    }
  }
  EXPECT_EQ(records, 25);
  EXPECT_GT(sizes.size(), 20u);  // varied sizes, as photos have
  // The same seed writes the same bytes.
  o.out_dir = TempDir("inet_again");
  o.progress = nullptr;
  auto again = MakeDataset(o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->bytes, made->bytes);
}

TEST(JpegTest, RefusesBytesThatAreNotAJpeg) {
  auto r = DecodeJpeg("definitely not a jpeg");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a JPEG"), std::string::npos);
}

TEST(TfRecordPipelineTest, InterleavingShardsReadsEveryRecordOnce) {
  MakeDatasetOptions o;
  o.kind = DatasetKind::kChess;
  o.records = 300;
  o.shards = 4;
  o.out_dir = TempDir("chess_shards");
  o.compression = Compression::kGzip;
  ASSERT_TRUE(MakeDataset(o).ok());
  auto p = testing::MakePipeline(
      "source { list_files { pattern: \"" + o.out_dir +
      "/chess-*.tfrecord.gz\" } } "
      "ops { interleave { per_element { tfrecord_file { compression: \"GZIP\" } } "
      "cycle_length: 4 num_parallel_calls: 2 } }");
  const auto elements = testing::Drain(*p);
  ASSERT_EQ(elements.size(), 300u);
  std::set<std::string> distinct;
  for (const auto& e : elements) distinct.insert(e.value.strings()[0]);
  EXPECT_GT(distinct.size(), 250u);
}

TEST(TfRecordPipelineTest, ACorruptShardStopsWithItsNameOrIsSkippedAndCounted) {
  MakeDatasetOptions o;
  o.kind = DatasetKind::kMnistLike;
  o.records = 20;
  o.out_dir = TempDir("mnist_bad");
  auto made = MakeDataset(o);
  ASSERT_TRUE(made.ok());
  {
    std::fstream f(made->files[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(500);
    f.put('\x42');
  }
  auto strict = testing::MakePipeline("source { name: \"src\" tfrecord { files: \"" +
                                      made->files[0] + "\" } }");
  Element e;
  bool end = false;
  Status s;
  int read = 0;
  while ((s = strict->GetNext(e, end)).ok() && !end) ++read;
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(made->files[0]), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("at byte"), std::string::npos) << s.message();

  auto lenient = testing::MakePipeline("source { name: \"src\" tfrecord { files: \"" +
                                       made->files[0] + "\" skip_corrupt: true } }");
  const auto rest = testing::Drain(*lenient);
  EXPECT_EQ(rest.size(), 19u);
  lenient.reset();
}

}  // namespace
}  // namespace pipescope::engine
