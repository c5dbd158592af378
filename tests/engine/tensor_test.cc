#include "engine/core/tensor.h"

#include <gtest/gtest.h>

#include "engine/core/element.h"

namespace pipescope::engine {
namespace {

TEST(TensorTest, ScalarsLiveInline) {
  Tensor t = Tensor::Int64(42);
  EXPECT_EQ(t.scalar_int64(), 42);
  EXPECT_EQ(t.shape().rank(), 0);
  EXPECT_EQ(t.byte_size(), 8u);
}

TEST(TensorTest, StackAndRowAreInverse) {
  Tensor a(DType::kFloat32, Shape{2, 3});
  Tensor b(DType::kFloat32, Shape{2, 3});
  for (int i = 0; i < 6; ++i) {
    a.data<float>()[i] = static_cast<float>(i);
    b.data<float>()[i] = static_cast<float>(10 + i);
  }
  const Tensor* rows[] = {&a, &b};
  auto stacked = Tensor::Stack(rows);
  ASSERT_TRUE(stacked.ok());
  EXPECT_EQ(stacked->shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(stacked->Row(0), a);
  EXPECT_EQ(stacked->Row(1), b);
}

TEST(TensorTest, StackingMismatchedShapesNamesTheElement) {
  Tensor a(DType::kInt64, Shape{2});
  Tensor b(DType::kInt64, Shape{3});
  const Tensor* rows[] = {&a, &a, &b};
  auto stacked = Tensor::Stack(rows);
  ASSERT_FALSE(stacked.ok());
  EXPECT_NE(stacked.status().message().find("element 2 of int64[3]"), std::string::npos)
      << stacked.status().message();
}

TEST(TensorTest, StringsStackAndSlice) {
  Tensor a = Tensor::String("ab");
  Tensor b = Tensor::String("cde");
  const Tensor* rows[] = {&a, &b};
  auto stacked = Tensor::Stack(rows);
  ASSERT_TRUE(stacked.ok());
  EXPECT_EQ(stacked->shape(), (Shape{2}));
  EXPECT_EQ(stacked->Row(1).strings()[0], "cde");
}

TEST(ElementTest, JsonShowsSmallTensorsInFullAndLargeOnesSummarised) {
  Element e{7, Tensor::Int64(3), {}};
  EXPECT_EQ(ElementToJson(e), R"({"id":7,"value":3})");
  Element big{8, Tensor(DType::kUint8, Shape{224, 224, 3}), {}};
  EXPECT_EQ(ElementToJson(big),
            R"({"id":8,"value":{"dtype":"uint8","shape":[224,224,3],"bytes":150528}})");
  Element s{9, Tensor::String("a\"b"), {{"label", Tensor::Int64(1)}}};
  EXPECT_EQ(ElementToJson(s), R"({"id":9,"value":"a\"b","features":{"label":1}})");
}

}  // namespace
}  // namespace pipescope::engine
