// decode_csv: tf.io.decode_csv's parse of text lines (RFC 4180 quoting, TensorFlow's "Expect N
// fields" error), on a line and on a batch of lines.
#include "engine/work/decode_csv.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipescope::engine {
namespace {

std::vector<float> Parsed(std::string_view line, const CsvRules& rules = {}) {
  std::vector<float> out;
  const Status s = ParseCsvLine(line, rules, 0, out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST(DecodeCsvTest, SplitsFieldsAndConvertsNumbers) {
  EXPECT_EQ(Parsed("1,2.5,-3e2, 4 "), (std::vector<float>{1, 2.5f, -300, 4}));
  // An empty field is its numeric default, at the end too; a CRLF line ends before \r.
  EXPECT_EQ(Parsed("1,,3,\r\n"), (std::vector<float>{1, 0, 3, 0}));
  CsvRules tabs;
  tabs.delimiter = '\t';
  EXPECT_EQ(Parsed("7\t8", tabs), (std::vector<float>{7, 8}));
  const auto text = Parsed("male,3");
  ASSERT_EQ(text.size(), 2u);
  EXPECT_TRUE(std::isnan(text[0])) << "text that is not a number";
}

// na_value: a field of exactly that text is missing, its default (0) as an empty field's;
// the same text inside a longer field, or without na_value, is text (NaN).
TEST(DecodeCsvTest, AFieldOfTheNaValueIsItsDefault) {
  CsvRules marked;
  marked.na_value = "?";
  EXPECT_EQ(Parsed("1,?,3", marked), (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(Parsed("\"?\",2", marked), (std::vector<float>{0, 2}));
  const auto longer = Parsed("?1,2", marked);
  EXPECT_TRUE(std::isnan(longer[0]));
  EXPECT_TRUE(std::isnan(Parsed("1,?,3")[1]));
}

TEST(DecodeCsvTest, AQuotedFieldHoldsTheDelimiterAndDoubledQuotes) {
  const auto f = Parsed(R"("1,5","say ""2""",3)");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_TRUE(std::isnan(f[0])) << "'1,5' is one field, not a number";
  EXPECT_TRUE(std::isnan(f[1]));
  EXPECT_EQ(f[2], 3);
  EXPECT_EQ(Parsed(R"("12",3)"), (std::vector<float>{12, 3}));
  CsvRules text_quotes;
  text_quotes.quotes = false;  // use_quote_delim=False: '"1' and '5"' are two fields
  EXPECT_EQ(Parsed(R"("1,5")", text_quotes).size(), 2u);
  std::vector<float> out;
  EXPECT_FALSE(ParseCsvLine(R"("open,2)", {}, 0, out).ok());
  EXPECT_FALSE(ParseCsvLine(R"("a"b,2)", {}, 0, out).ok());
}

TEST(DecodeCsvTest, ALineOfOtherFieldsIsAnErrorNamingTheRecord) {
  CsvRules four;
  four.columns = 4;
  std::vector<float> out;
  const Status s = ParseCsvLine("1,2,3", four, 7, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected 4 fields but record 7 has 3"), std::string::npos)
      << s.message();
  EXPECT_TRUE(out.empty());
}

TEST(DecodeCsvTest, SelectColsKeepsThoseFieldsInOrder) {
  CsvRules rules;
  rules.select = {1, 3};
  EXPECT_EQ(Parsed("10,11,12,13,14", rules), (std::vector<float>{11, 13}));
  std::vector<float> out;
  EXPECT_FALSE(ParseCsvLine("10,11", rules, 0, out).ok()) << "field 3 is not there";
}

TEST(DecodeCsvTest, ALineBecomesAVectorAndABatchOfLinesAMatrix) {
  spec::DecodeCsv config;
  config.set_columns(3);
  auto fn = DecodeCsv::Create(config);
  ASSERT_TRUE(fn.ok());
  CancellationToken c;
  Element line;
  line.value = Tensor::String("1,2,3");
  ASSERT_TRUE((*fn)->Apply(line, c).ok());
  EXPECT_EQ(line.value.dtype(), DType::kFloat32);
  EXPECT_EQ(line.value.shape(), Shape({3}));
  EXPECT_EQ(line.value.data<float>()[2], 3);
  Element batch;
  batch.value = Tensor(DType::kString, Shape{2});
  batch.value.strings() = {"1,2,3", "4,5,6"};
  ASSERT_TRUE((*fn)->ApplyBatched(batch, 2, c).ok());
  EXPECT_EQ(batch.value.shape(), Shape({2, 3}));
  EXPECT_EQ(batch.value.data<float>()[3], 4);
  Element numbers;
  numbers.value = Tensor::Int64(5);
  EXPECT_FALSE((*fn)->Apply(numbers, c).ok()) << "text lines only";
  config.set_field_delim(";;");
  EXPECT_FALSE(DecodeCsv::Create(config).ok());
}

TEST(DecodeCsvTest, WithoutAColumnCountEveryLineHasTheFirstLinesFields) {
  auto fn = DecodeCsv::Create(spec::DecodeCsv{});
  ASSERT_TRUE(fn.ok());
  CancellationToken c;
  Element batch;
  batch.value = Tensor(DType::kString, Shape{2});
  batch.value.strings() = {"1,2,3", "4,5"};
  const Status s = (*fn)->ApplyBatched(batch, 2, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("record 1 has 2"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pipescope::engine
