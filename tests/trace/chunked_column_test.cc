// A track's column: every value appended reads back at its index across chunk boundaries,
// also after the column was shrunk to fit and grew again, and shrinking frees the unused
// end.
#include "instrumentation/trace/chunked_column.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace pipescope::trace {
namespace {

constexpr size_t kChunk = ChunkedColumn<int64_t>::kChunk;

TEST(ChunkedColumnTest, ValuesReadBackAcrossChunks) {
  ChunkedColumn<int64_t> column;
  EXPECT_TRUE(column.empty());
  const size_t n = 2 * kChunk + 123;
  for (size_t i = 0; i < n; ++i) column.push_back(static_cast<int64_t>(i * 7) - 5);
  ASSERT_EQ(column.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(column[i], static_cast<int64_t>(i * 7) - 5) << i;
  EXPECT_EQ(column.front(), -5);
  EXPECT_EQ(column.back(), static_cast<int64_t>((n - 1) * 7) - 5);
}

TEST(ChunkedColumnTest, ShrinkingFreesTheUnusedEndAndKeepsTheValues) {
  for (const size_t n : {size_t{3}, size_t{300}, kChunk, kChunk + 1, 3 * kChunk - 1}) {
    ChunkedColumn<uint32_t> column;
    column.Fill(n, 9);
    const size_t before = column.memory_bytes();
    column.ShrinkToFit();
    EXPECT_LE(column.memory_bytes(), before) << n;
    EXPECT_LT(column.memory_bytes(), n * sizeof(uint32_t) + 4096) << n;
    // It still takes values: the last chunk grows back.
    for (size_t i = 0; i < kChunk + 10; ++i) column.push_back(static_cast<uint32_t>(i));
    ASSERT_EQ(column.size(), n + kChunk + 10) << n;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(column[i], 9u) << n << " " << i;
    for (size_t i = 0; i < kChunk + 10; ++i) ASSERT_EQ(column[n + i], i) << n << " " << i;
  }
}

// A copy holds the values of the moment it was made: the original goes on growing without
// it, and the copy takes values of its own.
TEST(ChunkedColumnTest, ACopyKeepsTheValuesOfItsMomentAndGrowsOnItsOwn) {
  for (const size_t n : {size_t{0}, size_t{5}, kChunk, kChunk + 1, 2 * kChunk + 77}) {
    ChunkedColumn<int64_t> column;
    for (size_t i = 0; i < n; ++i) column.push_back(static_cast<int64_t>(i) * 3);
    ChunkedColumn<int64_t> copy = column;
    for (size_t i = 0; i < 100; ++i) column.push_back(-1);
    ASSERT_EQ(copy.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(copy[i], static_cast<int64_t>(i) * 3) << n << " " << i;
    EXPECT_LE(copy.memory_bytes(), n * sizeof(int64_t) + 64 * sizeof(void*)) << "no room spare";
    for (size_t i = 0; i < kChunk + 3; ++i) copy.push_back(static_cast<int64_t>(i));
    ASSERT_EQ(copy.size(), n + kChunk + 3);
    for (size_t i = 0; i < kChunk + 3; ++i) ASSERT_EQ(copy[n + i], static_cast<int64_t>(i));
    EXPECT_EQ(column.size(), n + 100) << "the original did not see the copy's values";
    copy = column;  // assigned over what it held
    ASSERT_EQ(copy.size(), n + 100);
    EXPECT_EQ(copy.back(), -1);
  }
}

TEST(ChunkedColumnTest, ASmallColumnStaysSmall) {
  ChunkedColumn<int64_t> column;
  for (int i = 0; i < 10; ++i) column.push_back(i);
  EXPECT_LT(column.memory_bytes(), 4096u);
  column.clear();
  EXPECT_TRUE(column.empty());
  column.push_back(42);
  EXPECT_EQ(column[0], 42);
}

}  // namespace
}  // namespace pipescope::trace
