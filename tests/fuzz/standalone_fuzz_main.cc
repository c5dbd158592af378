// A fuzzing driver for compilers without libFuzzer: mutates the seed input (bit flips,
// byte overwrites, truncation, duplication, splices, extreme 32-bit values) and feeds
// each result to LLVMFuzzerTestOneInput for a bounded time. A crash or a sanitizer report
// ends the process, which fails the test that runs it, and so does an input that runs
// longer than --timeout (a hang is a bug as a crash is): it is written to FILE.timeout
// beside the program's working directory, and the process exits 1 naming it.
//
//   <target>_fuzz [--seconds S] [--seed N] [--timeout S] [--write-seed FILE]
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "tests/fuzz/fuzz_seed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Mutate(std::string s, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = rng() % s.size();
    switch (rng() % 7) {
      case 0:
        s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8)));
        break;
      case 1:
        s[at] = static_cast<char>(rng());
        break;
      case 2:
        s.resize(at);
        break;
      case 3:
        s.insert(at, s.substr(rng() % s.size(), rng() % 64));
        break;
      case 4:
        s.erase(at, rng() % 64);
        break;
      case 5: {  // an extreme little-endian u32 (lengths, counts, sizes)
        static const uint32_t kValues[] = {0, 1, 0x7fffffff, 0xffffffff, 0x04000000, 0x03ffffff};
        const uint32_t v = kValues[rng() % 6];
        for (int i = 0; i < 4 && at + i < s.size(); ++i)
          s[at + i] = static_cast<char>(v >> (8 * i));
        break;
      }
      default:
        s.insert(at, 1 + rng() % 8, static_cast<char>(rng()));
        break;
    }
  }
  return s;
}

// The input being run and when it began, for the watchdog.
std::mutex g_input_mutex;
std::string g_input;
std::atomic<int64_t> g_started_ns{0};
std::atomic<bool> g_done{false};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Ends the process when one input runs past `timeout_s`, writing that input out first. The
// input is copied under the lock the loop takes to change it.
void Watch(double timeout_s, const std::string& program) {
  const auto limit_ns = static_cast<int64_t>(timeout_s * 1e9);
  while (!g_done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const int64_t started = g_started_ns.load();
    if (started == 0 || NowNs() - started < limit_ns) continue;
    const std::string name = program.substr(program.find_last_of('/') + 1) + ".timeout";
    std::string input;
    {
      std::lock_guard lock(g_input_mutex);
      input = g_input;
    }
    std::ofstream(name, std::ios::binary) << input;
    std::fprintf(stderr, "an input ran longer than %.0f s: written to %s (%zu bytes)\n", timeout_s,
                 name.c_str(), input.size());
    std::fflush(stderr);
    std::_Exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  double timeout = 20;
  uint64_t seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--timeout") && i + 1 < argc)
      timeout = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--write-seed") && i + 1 < argc) {
      std::ofstream(argv[++i], std::ios::binary) << pipescope::fuzz::FuzzSeed();
      return 0;
    }
  }
  const std::string base = pipescope::fuzz::FuzzSeed();
  if (base.empty()) {
    std::fprintf(stderr, "could not make the seed input\n");
    return 1;
  }
  std::printf("fuzzing for %.0f s, seed %llu\n", seconds, static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  std::string current = base;
  std::thread watchdog(Watch, timeout, std::string(argv[0]));
  while (std::chrono::steady_clock::now() < deadline) {
    // Mostly mutate the seed; sometimes keep mutating the last input to go deeper.
    current = Mutate(rng() % 4 == 0 ? current : base, rng);
    {
      std::lock_guard lock(g_input_mutex);
      g_input = current;
    }
    g_started_ns.store(NowNs());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(current.data()), current.size());
    g_started_ns.store(0);
    ++runs;
  }
  g_done.store(true);
  watchdog.join();
  std::printf("%llu inputs, no crash\n", static_cast<unsigned long long>(runs));
  return 0;
}
