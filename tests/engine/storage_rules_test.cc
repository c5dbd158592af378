// One disk shared by every read (storage_rules.h, storage_device.h): when each read's bytes
// are in, on either clock, and the figures a spec's storage gives.
#include "engine/runtime/storage_rules.h"

#include <gtest/gtest.h>

#include "engine/runtime/storage_device.h"

namespace pipescope::engine {
namespace {

constexpr int64_t kMs = 1'000'000;

// 10 ms an access, 100 MB/s: 1 MB takes 10 ms to pass.
StorageFigures Disk(int queue_depth) { return {10 * kMs, 100e6, queue_depth}; }

TEST(StorageRulesTest, AHardDiskServesOneReadAtATimeWhoeverAsks) {
  StorageQueue hdd(Disk(1));
  // Three readers ask at once for a file each: the second waits for the first, the third for
  // both; more readers only queue.
  EXPECT_EQ(hdd.Serve(0, 1'000'000, 1, 1), 20 * kMs);
  EXPECT_EQ(hdd.Serve(0, 1'000'000, 1, 2), 40 * kMs);
  EXPECT_EQ(hdd.Serve(0, 1'000'000, 1, 3), 60 * kMs);
  EXPECT_DOUBLE_EQ(hdd.BusyNsUntil(60 * kMs), 60.0 * kMs);
  // Asked after it went idle, a read starts when asked.
  EXPECT_EQ(hdd.Serve(100 * kMs, 0, 1, 4), 110 * kMs);
  EXPECT_EQ(hdd.reads(), 4);
}

TEST(StorageRulesTest, TheDiskIsBusyUntilAMomentOnlyWithTheReadsItServedBeforeIt) {
  // Busy time is sampled into the trace as the run goes: the reads queued at a moment are
  // owed after it, not counted in it (22 workers asking at once are not 22 reads' worth of
  // busy time in the first sample and none in the next).
  StorageQueue hdd(Disk(1));
  hdd.Serve(0, 1'000'000, 1, 1);  // [0, 20 ms)
  hdd.Serve(0, 1'000'000, 1, 2);  // [20, 40 ms)
  hdd.Serve(0, 1'000'000, 1, 3);  // [40, 60 ms)
  EXPECT_DOUBLE_EQ(hdd.BusyNsUntil(0), 0);
  EXPECT_DOUBLE_EQ(hdd.BusyNsUntil(25 * kMs), 25.0 * kMs);
  EXPECT_DOUBLE_EQ(hdd.BusyNsUntil(60 * kMs), 60.0 * kMs);
  hdd.Serve(100 * kMs, 0, 1, 4);  // [100, 110 ms): idle from 60 to 100 ms
  EXPECT_DOUBLE_EQ(hdd.BusyNsUntil(105 * kMs), 65.0 * kMs);
  // Flash serving four at once: busy is the slots' time over four.
  StorageQueue ssd(Disk(4));
  ssd.Serve(0, 0, 1, 1);  // [0, 10 ms) in one slot
  ssd.Serve(0, 0, 1, 2);  // [0, 10 ms) in another
  EXPECT_DOUBLE_EQ(ssd.BusyNsUntil(5 * kMs), 2.5 * kMs);
  EXPECT_DOUBLE_EQ(ssd.BusyNsUntil(50 * kMs), 5.0 * kMs);
}

TEST(StorageRulesTest, AReadThatGoesOnInTheFileTheDiskReadLastPaysNoAccess) {
  StorageQueue hdd(Disk(1));
  EXPECT_EQ(hdd.Serve(0, 1'000'000, 1, 7), 20 * kMs);
  EXPECT_EQ(hdd.Serve(20 * kMs, 1'000'000, 0, 7), 30 * kMs) << "file 7 again: no seek";
  EXPECT_EQ(hdd.Serve(30 * kMs, 1'000'000, 0, 8), 50 * kMs) << "another file: a seek";
  EXPECT_EQ(hdd.Serve(50 * kMs, 1'000'000, 0, 7), 70 * kMs) << "back to file 7: a seek";
}

TEST(StorageRulesTest, FlashAccessesAtOnceButItsReadsShareTheBandwidth) {
  StorageQueue ssd(Disk(4));
  // Four readers' accesses overlap; their bytes pass the one channel in turn.
  EXPECT_EQ(ssd.Serve(0, 1'000'000, 1, 1), 20 * kMs);
  EXPECT_EQ(ssd.Serve(0, 1'000'000, 1, 2), 30 * kMs);
  EXPECT_EQ(ssd.Serve(0, 1'000'000, 1, 3), 40 * kMs);
  EXPECT_EQ(ssd.Serve(0, 1'000'000, 1, 4), 50 * kMs);
  // A fifth waits for the first slot to free.
  EXPECT_EQ(ssd.Serve(0, 0, 1, 5), 30 * kMs);
}

// Flash with many slots whose readers use up its bandwidth: few of its slots are busy, but its
// channel passes bytes all the time, and that is the disk's busy share (ten workers reading
// ImageNet's JPEGs from a SATA SSD).
TEST(StorageRulesTest, FlashWhoseBandwidthIsUsedUpIsBusyThoughFewOfItsSlotsAre) {
  StorageQueue ssd({0, 100e6, 32});  // no access time: each 1 MB read is its 10 ms transfer
  for (int i = 0; i < 4; ++i) ssd.Serve(0, 1'000'000, 0, 1);
  EXPECT_DOUBLE_EQ(ssd.BusyNsUntil(40 * kMs), 40 * kMs) << "not (10+20+30+40)/32 ms";
  EXPECT_DOUBLE_EQ(ssd.BusyNsUntil(25 * kMs), 25 * kMs);
  // After a gap, a read asked later: the gap is not busy; the transfers over count whole.
  ssd.Serve(60 * kMs, 1'000'000, 0, 1);
  EXPECT_DOUBLE_EQ(ssd.BusyNsUntil(65 * kMs), 45 * kMs);
  EXPECT_DOUBLE_EQ(ssd.BusyNsUntil(100 * kMs), 50 * kMs);
}

// A Python call's files: one unless it says how many; its wait, where it stands for the files
// (wait_loads_files), gives way to a disk the spec names, and only then.
TEST(StorageRulesTest, AFileLoadsWaitGivesWayToTheNamedDisk) {
  spec::Python python;
  python.set_wait("300us");
  python.set_read_bytes(300000);
  EXPECT_EQ(FilesReadByACall(python), 1);
  python.set_read_files(3);
  EXPECT_EQ(FilesReadByACall(python), 3);
  EXPECT_FALSE(FileLoadsReadTheDisk(python, true)) << "a sleep is no file's stand-in";
  python.set_wait_loads_files(true);
  EXPECT_TRUE(FileLoadsReadTheDisk(python, true));
  EXPECT_FALSE(FileLoadsReadTheDisk(python, false)) << "no disk: the stand-in stays";
  python.clear_read_bytes();
  EXPECT_FALSE(FileLoadsReadTheDisk(python, true)) << "nothing read from the disk";
}

TEST(StorageRulesTest, AKindGivesItsTypicalFiguresAndEachSetFigureReplacesOne) {
  spec::Storage storage;
  storage.set_kind(spec::hdd);
  auto hdd = StorageFiguresOf(storage);
  ASSERT_TRUE(hdd.ok());
  EXPECT_EQ(hdd->access_ns, 10 * kMs);
  EXPECT_EQ(hdd->queue_depth, 1);
  storage.set_access_time("12ms");
  storage.set_queue_depth(2);
  auto set = StorageFiguresOf(storage);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->access_ns, 12 * kMs);
  EXPECT_EQ(set->queue_depth, 2);
  EXPECT_DOUBLE_EQ(set->bytes_per_s, hdd->bytes_per_s);
  storage.set_bandwidth("fast");
  auto bad = StorageFiguresOf(storage);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("storage.bandwidth"), std::string::npos)
      << bad.status().message();
  EXPECT_EQ(StorageDescription([] {
              spec::Storage s;
              s.set_kind(spec::hdd);
              return s;
            }()),
            "hdd (10 ms an access, 160 MB/s, one read at a time)");
}

}  // namespace
}  // namespace pipescope::engine
