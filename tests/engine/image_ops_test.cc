// parse_example and the image functions on real records and pixels: shapes, dtypes,
// seeded reproducibility, and errors that name what is wrong.
#include "engine/work/image_ops.h"

#include <gtest/gtest.h>

#include <random>

#include "engine/io/dataset_maker.h"
#include "engine/io/example.pb.h"
#include "engine/work/jpeg_codec.h"
#include "engine/work/parse_example.h"

namespace pipescope::engine {
namespace {

Element ImagenetRecord(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Element e;
  e.value = Tensor::String(MakeExampleRecord(DatasetKind::kImagenetLike, rng).value());
  return e;
}

std::unique_ptr<WorkFunction> Parser(const std::string& text_features) {
  spec::ParseExample config;
  auto* image = config.add_features();
  image->set_name("image/encoded");
  image->set_dtype("bytes");
  auto* label = config.add_features();
  label->set_name(text_features);
  label->set_dtype("int64");
  return ParseExample::Create(config).value();
}

TEST(ParseExampleTest, TurnsARecordIntoTypedFeatures) {
  Element e = ImagenetRecord(1);
  CancellationToken c;
  ASSERT_TRUE(Parser("image/class/label")->Apply(e, c).ok());
  ASSERT_EQ(e.features.size(), 2u);
  EXPECT_EQ(e.features[0].name, "image/encoded");
  EXPECT_EQ(e.features[0].value.dtype(), DType::kString);
  EXPECT_EQ(e.features[1].value.dtype(), DType::kInt64);
  EXPECT_EQ(e.features[1].value.shape().rank(), 0);
}

TEST(ParseExampleTest, AMissingOrMistypedFeatureIsNamed) {
  CancellationToken c;
  Element missing = ImagenetRecord(2);
  Status s = Parser("label")->Apply(missing, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("feature \"label\" is missing"), std::string::npos) << s.message();

  spec::ParseExample config;
  auto* f = config.add_features();
  f->set_name("image/height");
  f->set_dtype("float");
  Element mistyped = ImagenetRecord(3);
  s = ParseExample::Create(config).value()->Apply(mistyped, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("\"image/height\" is int64, expected float"), std::string::npos)
      << s.message();

  f->set_dtype("double");
  EXPECT_FALSE(ParseExample::Create(config).ok());
}

// tf.io.parse_example over a batch: each feature gets the batch's rows as its leading
// dimension, row r being what parse_single_example gives for the batch's r-th record.
TEST(ParseExampleTest, AfterBatchParsesEveryRecordOfTheBatchAtOnce) {
  constexpr int64_t kRows = 3;
  std::vector<Element> singles;
  std::vector<Tensor> records;
  for (uint64_t seed = 10; seed < 10 + kRows; ++seed) {
    singles.push_back(ImagenetRecord(seed));
    records.push_back(singles.back().value);
  }
  std::vector<const Tensor*> rows;
  for (const Tensor& t : records) rows.push_back(&t);
  Element batch;
  batch.value = Tensor::Stack(rows).value();
  CancellationToken c;
  auto parser = Parser("image/class/label");
  ASSERT_TRUE(parser->has_batched_form());
  ASSERT_TRUE(parser->ApplyBatched(batch, kRows, c).ok());
  ASSERT_EQ(batch.features.size(), 2u);
  EXPECT_FALSE(batch.value.valid()) << "the serialized records are dropped, as when parsing one";
  const Tensor& images = batch.features[0].value;
  const Tensor& labels = batch.features[1].value;
  EXPECT_EQ(images.shape(), Shape{kRows});
  EXPECT_EQ(labels.shape(), Shape{kRows});
  for (int64_t r = 0; r < kRows; ++r) {
    Element& one = singles[static_cast<size_t>(r)];
    ASSERT_TRUE(parser->Apply(one, c).ok());
    EXPECT_EQ(images.Row(r), one.features[0].value) << "row " << r;
    EXPECT_EQ(labels.Row(r), one.features[1].value) << "row " << r;
  }

  // A record that is not an Example is named by its row.
  Element bad;
  std::vector<Tensor> bad_records = {records[0], Tensor::String("not an example")};
  std::vector<const Tensor*> bad_rows = {&bad_records[0], &bad_records[1]};
  bad.value = Tensor::Stack(bad_rows).value();
  Status s = parser->ApplyBatched(bad, 2, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("row 1 of the batch"), std::string::npos) << s.message();

  // var_len features would be SparseTensors after batch: no batched form.
  spec::ParseExample config;
  auto* f = config.add_features();
  f->set_name("image/encoded");
  f->set_dtype("bytes");
  f->set_var_len(true);
  EXPECT_FALSE(ParseExample::Create(config).value()->has_batched_form());
}

TEST(ImageOpsTest, DecodeCropFlipResizeGiveTheDeclaredShapes) {
  Element e = ImagenetRecord(4);
  CancellationToken c;
  ASSERT_TRUE(Parser("image/class/label")->Apply(e, c).ok());
  ASSERT_TRUE(DecodeJpegFn("image/encoded").Apply(e, c).ok());
  EXPECT_EQ(e.value.dtype(), DType::kUint8);
  EXPECT_EQ(e.value.shape().rank(), 3);
  EXPECT_EQ(e.value.shape().dim(2), 3);
  ASSERT_EQ(e.features.size(), 1u);  // the encoded bytes are dropped, the label stays
  ASSERT_TRUE(RandomCropFn(56, 48, 1).Apply(e, c).ok());
  EXPECT_EQ(e.value.shape(), (Shape{56, 48, 3}));
  ASSERT_TRUE(RandomFlipFn(2).Apply(e, c).ok());
  ASSERT_TRUE(ResizeFn(64, 64).Apply(e, c).ok());
  EXPECT_EQ(e.value.dtype(), DType::kFloat32);
  EXPECT_EQ(e.value.shape(), (Shape{64, 64, 3}));
}

TEST(ImageOpsTest, RandomAugmentationIsReproducibleAndVaries) {
  CancellationToken c;
  auto crop_offset_signature = [&](uint64_t record_seed, uint64_t crop_seed) {
    Element e = ImagenetRecord(record_seed);
    EXPECT_TRUE(Parser("image/class/label")->Apply(e, c).ok());
    EXPECT_TRUE(DecodeJpegFn("image/encoded").Apply(e, c).ok());
    EXPECT_TRUE(RandomCropFn(32, 32, crop_seed).Apply(e, c).ok());
    return std::string(reinterpret_cast<const char*>(e.value.raw()), e.value.byte_size());
  };
  EXPECT_EQ(crop_offset_signature(5, 1), crop_offset_signature(5, 1));
  EXPECT_NE(crop_offset_signature(5, 1), crop_offset_signature(5, 2));
}

TEST(ImageOpsTest, FlipMirrorsRows) {
  Element e;
  e.value = Tensor(DType::kUint8, Shape{1, 3, 1});
  e.value.data<uint8_t>()[0] = 1;
  e.value.data<uint8_t>()[2] = 3;
  CancellationToken c;
  // Find a seed that flips this element, then check the mirror.
  for (uint64_t seed = 0; seed < 64; ++seed) {
    Element copy = e;
    ASSERT_TRUE(RandomFlipFn(seed).Apply(copy, c).ok());
    if (copy.value.data<uint8_t>()[0] == 3) {
      EXPECT_EQ(copy.value.data<uint8_t>()[2], 1);
      return;
    }
  }
  FAIL() << "no seed flipped the image";
}

TEST(ImageOpsTest, ResizeOfAConstantImageIsConstant) {
  Element e;
  e.value = Tensor(DType::kUint8, Shape{7, 5, 3});
  for (int64_t i = 0; i < 7 * 5 * 3; ++i) e.value.data<uint8_t>()[i] = 200;
  CancellationToken c;
  ASSERT_TRUE(ResizeFn(13, 11).Apply(e, c).ok());
  for (int64_t i = 0; i < 13 * 11 * 3; ++i) ASSERT_FLOAT_EQ(e.value.data<float>()[i], 200.0f);
}

TEST(ImageOpsTest, ErrorsSayWhatTheDataWas) {
  CancellationToken c;
  Element text;
  text.value = Tensor::String("not an image");
  Status s = DecodeJpegFn("").Apply(text, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a JPEG"), std::string::npos) << s.message();
  Element small;
  small.value = Tensor(DType::kUint8, Shape{10, 10, 3});
  s = RandomCropFn(20, 20, 1).Apply(small, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("smaller than the 20x20 crop"), std::string::npos);
  s = ResizeFn(4, 4).Apply(text, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("decode_jpeg first"), std::string::npos);
}

}  // namespace
}  // namespace pipescope::engine
