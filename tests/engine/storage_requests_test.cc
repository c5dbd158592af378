// Storage that answers in requests (storage_requests.h): which records start one.
#include "engine/runtime/storage_requests.h"

#include <gtest/gtest.h>

namespace pipescope::engine {
namespace {

TEST(StorageRequestsTest, RecordsThatStartARequestAreCountedOnce) {
  // 100-byte records, 250-byte requests: records 0, 2 (bytes 200-300 cross 250) and 5
  // (bytes 500-600) start requests 1, 2 and 3; records 3 and 4 are in request 2 already.
  EXPECT_EQ(RequestsStarted(0, 1, 100, 250), 1);
  EXPECT_EQ(RequestsStarted(1, 1, 100, 250), 0);
  EXPECT_EQ(RequestsStarted(2, 1, 100, 250), 1);
  EXPECT_EQ(RequestsStarted(3, 1, 100, 250), 0);
  EXPECT_EQ(RequestsStarted(4, 1, 100, 250), 0);
  EXPECT_EQ(RequestsStarted(5, 1, 100, 250), 1);
  // A run is the sum of its records'.
  int64_t one_by_one = 0;
  for (int64_t r = 0; r < 37; ++r) one_by_one += RequestsStarted(r, 1, 100, 250);
  EXPECT_EQ(RequestsStarted(0, 37, 100, 250), one_by_one);
  EXPECT_EQ(one_by_one, 15);  // 3700 bytes in 250-byte requests
  EXPECT_EQ(RequestsStarted(10, 27, 100, 250), one_by_one - RequestsStarted(0, 10, 100, 250));
}

TEST(StorageRequestsTest, ARecordLargerThanARequestWaitsForSeveral) {
  EXPECT_EQ(RequestsStarted(0, 1, 1000, 256), 4);  // bytes 0-1000: 4 requests of 256
  EXPECT_EQ(RequestsStarted(1, 1, 1000, 256), 4);  // 1000-2000: requests 5 to 8
}

TEST(StorageRequestsTest, WithoutRequestsEveryRecordIsOne) {
  EXPECT_EQ(RequestsStarted(0, 5, 100, 0), 5);
  EXPECT_EQ(RequestsStarted(7, 1, 0, 4096), 1);
  EXPECT_EQ(RequestsStarted(7, 0, 100, 4096), 0);
}

TEST(StorageRequestsTest, AnEndlessReadsBytesPastTwoToTheSixtyThirdStillCount) {
  const int64_t far = int64_t{1} << 50;  // records of 2^20 bytes: 2^70 bytes read so far
  EXPECT_EQ(RequestsStarted(far, 4, 1 << 20, 1 << 22), 1);
}

}  // namespace
}  // namespace pipescope::engine
