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
}

TEST(DurationTest, FormatsReadably) {
  EXPECT_EQ(FormatDuration(500), "500 ns");
  EXPECT_EQ(FormatDuration(2'500'000), "2.5 ms");
}

}  // namespace
}  // namespace pipescope::engine
