#include "engine/work/cpu_work.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace pipescope::engine {
namespace {

int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double Calibrate() {
  // Fastest of several rounds: preemption only ever makes a round look slower.
  constexpr uint64_t kRoundIterations = 2'000'000;
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    const int64_t t0 = ThreadCpuNs();
    RunCpuWorkLoop(kRoundIterations, static_cast<uint64_t>(round) + 1);
    const int64_t dt = std::max<int64_t>(ThreadCpuNs() - t0, 1);
    best = std::max(best, static_cast<double>(kRoundIterations) / static_cast<double>(dt));
  }
  return best;
}

}  // namespace

uint64_t RunCpuWorkLoop(uint64_t iterations, uint64_t seed) {
  // xorshift64: a dependent chain of shifts and xors the compiler cannot fold away.
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    asm volatile("" : "+r"(x));
  }
  return x;
}

double CpuWorkIterationsPerNs() {
  static const double rate = Calibrate();
  return rate;
}

uint64_t CpuWorkIterations(double ns) {
  return static_cast<uint64_t>(std::llround(std::max(0.0, ns) * CpuWorkIterationsPerNs()));
}

void BurnCpuNs(int64_t ns, uint64_t seed) {
  volatile uint64_t sink = RunCpuWorkLoop(CpuWorkIterations(static_cast<double>(ns)), seed);
  (void)sink;
}

CpuWork::CpuWork(int64_t duration_ns, int64_t wait_ns, CallFileRead read, StorageDevicePtr storage)
    : iterations_(CpuWorkIterations(static_cast<double>(duration_ns))),
      wait_ns_(wait_ns),
      read_(read),
      storage_(std::move(storage)) {}

bool CpuWork::ReadFiles(int64_t calls, uint64_t seed, CancellationToken& cancellation) const {
  if (!storage_ || read_.bytes <= 0) return true;
  for (int64_t i = 0; i < calls; ++i) {
    if (!storage_->Read(read_.bytes, read_.files, seed + static_cast<uint64_t>(i), cancellation)) {
      return false;
    }
  }
  return true;
}

void CpuWork::Burn(int64_t units, uint64_t seed) const {
  volatile uint64_t sink = RunCpuWorkLoop(iterations_ * static_cast<uint64_t>(units), seed);
  (void)sink;
}

Status CpuWork::Apply(Element& element, CancellationToken& cancellation) const {
  if (!ReadFiles(1, element.id, cancellation)) return Cancelled();
  Burn(1, element.id);
  return wait_ns_ <= 0 || cancellation.SleepFor(wait_ns_) ? Status::Ok() : Cancelled();
}

Status CpuWork::ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const {
  // The same work per row: a busy loop has nothing to vectorise, only the per-call
  // overhead of the map disappears.
  if (!ReadFiles(rows, batch.id, cancellation)) return Cancelled();
  Burn(rows, batch.id);
  return wait_ns_ <= 0 || cancellation.SleepFor(wait_ns_) ? Status::Ok() : Cancelled();
}

}  // namespace pipescope::engine
