// The simulator's scheduler: processor sharing of CPU work on the model's cores, the order
// in which threads due at the same time resume, and that a job ending before anything else
// happens (which the scheduler completes at once, without its loop) ends exactly when the
// loop would have ended it.
#include "engine/sim/scheduler.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace pipescope::sim {
namespace {

// What the threads of a test saw: "name@time" at each point they note.
struct Log {
  std::vector<std::string> lines;
  void Note(const Scheduler& s, const std::string& what) {
    lines.push_back(what + "@" + std::to_string(s.now()));
  }
};

// A thread that computes each of `jobs` in turn, noting the time after each.
Task<void> Computes(Scheduler& s, SimThread& thread, Log& log, std::vector<int64_t> jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    co_await s.Compute(thread, jobs[i]);
    log.Note(s, thread.name + ".job" + std::to_string(i));
  }
}

Task<void> SleepsThenComputes(Scheduler& s, SimThread& thread, Log& log, int64_t sleep_ns,
                              int64_t cpu_ns) {
  co_await s.Sleep(sleep_ns);
  log.Note(s, thread.name + ".woke");
  co_await s.Compute(thread, cpu_ns);
  log.Note(s, thread.name + ".done");
}

// An op's work and its wait in one suspension (Compute's then_sleep_ns).
Task<void> ComputesThenSleeps(Scheduler& s, SimThread& thread, Log& log, int64_t cpu_ns,
                              int64_t sleep_ns) {
  co_await s.Compute(thread, cpu_ns, sleep_ns);
  log.Note(s, thread.name + ".back");
}

// A scheduler on `cores` cores with two threads, a and b, and their log.
struct Machine {
  explicit Machine(double cores) : s(cores, 0) {}
  // Runs until every thread has ended; what they noted.
  std::vector<std::string> RunToTheEnd() {
    EXPECT_FALSE(s.RunUntil(1000));
    return log.lines;
  }
  Scheduler s;
  SimThread a{1, "a"}, b{2, "b"};
  Log log;
};

using Lines = std::vector<std::string>;

TEST(SchedulerTest, ALoneThreadsJobsFollowOneAnother) {
  Machine m(1);
  m.s.Spawn(Computes(m.s, m.a, m.log, {10, 20, 30}));
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"a.job0@10", "a.job1@30", "a.job2@60"}));
  EXPECT_EQ(m.a.cpu_ns, 60);
}

TEST(SchedulerTest, ThreadsBeyondTheCoresShareThem) {
  // One core: two runnable threads progress at half speed each.
  Machine m(1);
  m.s.Spawn(Computes(m.s, m.a, m.log, {100}));
  m.s.Spawn(Computes(m.s, m.b, m.log, {50, 10}));
  // b's first 50 take 100 (shared); its next 10 and a's last 50 are shared again: b at 120,
  // then a alone for its remaining 40: 160.
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"b.job0@100", "b.job1@120", "a.job0@160"}));
}

// Time-slicing costs oversubscription_cost per doubling of the threads past the cores: 64
// threads of 1 ms each on 2 cores, five doublings past them, end together at 32 ms x (1 +
// 5 x 2%), within a tenth of the 32 ms the cores alone need (the engine's 200 us map lost
// 10% going from 2 to 128 threads on 2 cores), where a cost per extra thread took 2.2x.
TEST(SchedulerTest, ManyMoreThreadsThanCoresCostALittlePerDoubling) {
  Scheduler s(2, 0.02);
  Log log;
  std::vector<SimThread> threads(64);
  for (size_t i = 0; i < threads.size(); ++i) {
    threads[i].id = static_cast<uint32_t>(i + 1);
    threads[i].name = "t" + std::to_string(i);
    s.Spawn(Computes(s, threads[i], log, {1'000'000}));
  }
  EXPECT_FALSE(s.RunUntil(1'000'000'000));
  ASSERT_EQ(log.lines.size(), 64U);
  EXPECT_EQ(log.lines.back(), "t63.job0@" + std::to_string(static_cast<int64_t>(32e6 * 1.1)));
}

TEST(SchedulerTest, AJobIsSlowedByAThreadThatWakesDuringIt) {
  // a's 100 ns job runs alone until b wakes at 40 and shares the one core with it.
  Machine m(1);
  m.s.Spawn(Computes(m.s, m.a, m.log, {100}));
  m.s.Spawn(SleepsThenComputes(m.s, m.b, m.log, 40, 30));
  // From 40 each gets half: b's 30 take 60 (done at 100), by when a has 40 + 30 of its 100;
  // its last 30 alone: 130.
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"b.woke@40", "b.done@100", "a.job0@130"}));
}

TEST(SchedulerTest, ThreadsFinishingTogetherAllResumeAtThatTime) {
  // Two cores: a and b finish their first jobs together at 100. a resumes first and starts
  // a short job that nothing would interrupt; b must still resume at 100, not after it.
  Machine m(2);
  m.s.Spawn(Computes(m.s, m.a, m.log, {100, 5}));
  m.s.Spawn(Computes(m.s, m.b, m.log, {100}));
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"a.job0@100", "b.job0@100", "a.job1@105"}));
}

TEST(SchedulerTest, CpuWorkEndingWhenATimerIsDueGoesFirst) {
  Machine m(2);
  m.s.Spawn(SleepsThenComputes(m.s, m.b, m.log, 50, 1));
  m.s.Spawn(Computes(m.s, m.a, m.log, {50}));
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"a.job0@50", "b.woke@50", "b.done@51"}));
}

TEST(SchedulerTest, WorkIsNotCarriedPastWhereTheRunStops) {
  // RunUntil(25) stops in the middle of the second job; the next call finishes it.
  Machine m(1);
  m.s.Spawn(Computes(m.s, m.a, m.log, {10, 20}));
  EXPECT_TRUE(m.s.RunUntil(25));
  EXPECT_EQ(m.s.now(), 25);
  EXPECT_EQ(m.log.lines, (Lines{"a.job0@10"}));
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"a.job0@10", "a.job1@30"}));
}

TEST(SchedulerTest, ComputeThenSleepResumesAfterBoth) {
  Machine m(1);
  m.s.Spawn(ComputesThenSleeps(m.s, m.a, m.log, 10, 100));
  EXPECT_EQ(m.RunToTheEnd(), (Lines{"a.back@110"}));
  EXPECT_EQ(m.a.cpu_ns, 10);
}

// A thread that waits on `n` once, then notes that it woke.
Task<void> WaitsOnce(Scheduler& s, Notifier& n, Log& log, std::string name) {
  co_await n.Wait();
  log.Note(s, name + ".woke");
}

// Work for one of many waiters wakes the first that waited, not all of them to look for it
// (an interleave's 64 workers woken for each entry to read made advice on an ImageNet input
// take minutes); the rest wait on, and waking more than wait wakes those there are.
TEST(SchedulerTest, NotifyFirstWakesTheEarliestWaitersOnly) {
  Machine m(1);
  Notifier n(m.s);
  for (const char* name : {"w1", "w2", "w3"}) m.s.Spawn(WaitsOnce(m.s, n, m.log, name));
  m.s.RunUntil(10);  // all three waiting
  EXPECT_TRUE(m.log.lines.empty());
  n.NotifyFirst(1);
  m.s.RunUntil(20);
  ASSERT_EQ(m.log.lines.size(), 1u);
  EXPECT_EQ(m.log.lines[0].substr(0, 8), "w1.woke@");
  n.NotifyFirst(5);
  m.s.RunUntil(30);
  ASSERT_EQ(m.log.lines.size(), 3u);
  EXPECT_EQ(m.log.lines[1].substr(0, 8), "w2.woke@");
  EXPECT_EQ(m.log.lines[2].substr(0, 8), "w3.woke@");
}

}  // namespace
}  // namespace pipescope::sim
