#include "engine/core/duration.h"

#include <gtest/gtest.h>

namespace pipescope::engine {
namespace {

TEST(DurationTest, ParsesUnits) {
  EXPECT_EQ(*ParseDurationNs("2ms"), 2'000'000);
  EXPECT_EQ(*ParseDurationNs("150us"), 150'000);
  EXPECT_EQ(*ParseDurationNs("1.5s"), 1'500'000'000);
  EXPECT_EQ(*ParseDurationNs("10 ns"), 10);
  EXPECT_EQ(*ParseDurationNs("1min"), 60'000'000'000);
}

TEST(DurationTest, RejectsMissingUnitsAndGarbage) {
  EXPECT_FALSE(ParseDurationNs("5").ok());
  EXPECT_FALSE(ParseDurationNs("ms").ok());
  EXPECT_FALSE(ParseDurationNs("-1ms").ok());
  EXPECT_FALSE(ParseDurationNs("1e30s").ok());
  EXPECT_FALSE(ParseDurationNs("").ok());
}

TEST(DurationTest, ParsesRates) {
  EXPECT_DOUBLE_EQ(*ParseBytesPerSecond("200MB/s"), 200e6);
  EXPECT_DOUBLE_EQ(*ParseBytesPerSecond("1GiB/s"), 1073741824.0);
  EXPECT_FALSE(ParseBytesPerSecond("200MB").ok());
  EXPECT_FALSE(ParseBytesPerSecond("0MB/s").ok());
  EXPECT_EQ(*ParseBytes("150KB"), 150'000);
  EXPECT_EQ(*ParseBytes("2MiB"), 2 << 20);
  EXPECT_EQ(*ParseBytes("0B"), 0);
  EXPECT_FALSE(ParseBytes("150KB/s").ok());
  EXPECT_FALSE(ParseBytes("150").ok()) << "units are required";
  EXPECT_FALSE(ParseBytes("-1KB").ok());
}

// --range and --view: seconds by default, a unit where given, either end open.
TEST(DurationTest, ParsesTimeRanges) {
  const auto r = ParseTimeRange("2.5:2.52");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->t0_ns, 2'500'000'000);
  EXPECT_EQ(r->t1_ns, 2'520'000'000);
  EXPECT_EQ(ParseTimeRange("2500ms:2.52s")->t1_ns, 2'520'000'000);
  EXPECT_EQ(ParseTimeRange(" 1 : ")->t0_ns, 1'000'000'000);
  EXPECT_EQ(ParseTimeRange("1:")->t1_ns, 0) << "to the end";
  EXPECT_EQ(ParseTimeRange(":3")->t0_ns, 0) << "from the start";
  const auto backwards = ParseTimeRange("2:1");
  ASSERT_FALSE(backwards.ok());
  EXPECT_NE(backwards.status().message().find("ends before it starts"), std::string::npos);
  EXPECT_FALSE(ParseTimeRange("2").ok()) << "no colon";
  EXPECT_FALSE(ParseTimeRange("-1:2").ok());
  EXPECT_FALSE(ParseTimeRange("a:2").ok());
  EXPECT_FALSE(ParseTimeRange("1:2parsecs").ok());
}

TEST(DurationTest, FormatsReadably) {
  EXPECT_EQ(FormatDuration(500), "500 ns");
  EXPECT_EQ(FormatDuration(2'500'000), "2.5 ms");
  EXPECT_EQ(FormatBytes(2'100'000'000), "2.1 GB");
  EXPECT_EQ(FormatBytes(145'400'000'000'000), "145.4 TB");  // a shuffle no machine holds
  EXPECT_EQ(FormatBytes(512), "512 B");
}

// A duration written back as a spec writes it reads back to the same nanoseconds, in the
// largest unit it is a whole number of; an empty one a spec left out is 0.
TEST(DurationTest, SpecDurationsReadBackExactly) {
  EXPECT_EQ(SpecDuration(2'000'000'000), "2s");
  EXPECT_EQ(SpecDuration(3'125'000), "3125us");
  EXPECT_EQ(SpecDuration(50'000'000), "50ms");
  EXPECT_EQ(SpecDuration(40), "40ns");
  for (const int64_t ns :
       {int64_t{1}, int64_t{999}, int64_t{1'500'000}, int64_t{86'399'000'000'000}}) {
    auto back = ParseDurationNs(SpecDuration(ns));
    ASSERT_TRUE(back.ok()) << SpecDuration(ns);
    EXPECT_EQ(*back, ns);
  }
  EXPECT_EQ(*OptionalDurationNs(""), 0);
  EXPECT_FALSE(OptionalDurationNs("5 parsecs").ok());
}

}  // namespace
}  // namespace pipescope::engine
