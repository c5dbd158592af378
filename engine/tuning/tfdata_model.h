#pragma once
// A re-implementation of tf.data's AUTOTUNE performance model and its hill-climbing
// optimiser, over a chain of ops with measured self times: the baseline Pipescope's own
// tuner is compared against.
//
// Every node answers "how long does my consumer wait for one of my elements", given the
// time its consumer spends between two requests (the consumer gap c). With self time s
// (the op's own work per output element), input ratio r (input elements per output
// element) and the input's answer T_in(gap):
//
//   source                   T = s
//   sync, ratio r            T = s + r * T_in(c + (c + s) / r)
//   interleave, cycle n      T = s + T_in(c + s * (n - 1))           (average over the cycle)
//   async, parallelism p,    P = s / p + r * T_in(s / (r * p))         (the producer's time)
//     buffer b               T = Wait(P, c, b)
//   async interleave         P = s + T_in(s * (n - 1)) / min(p, n);  T = Wait(P, c, min(p, n))
//
// Wait(P, c, b) is the expected wait of a consumer arriving every c at a buffer of b
// elements filled every P, from the M/M/1/K queue: the probability that the buffer is
// empty times P, with rho = P / c:
//   P == 0 or c == 0: P;   rho == 1: P / (b + 1);   else P * (1 - rho) / (1 - rho^(b+1)).
//
// A parallel map's buffer is its parallelism, a prefetch's its buffer_size. The optimiser
// starts every tunable knob at its minimum and repeatedly raises by one the knob that
// lowers the root's T the most, until no knob helps, or T is already below the CPU bound
// (total processing time per element over the cores), or buffers would exceed the RAM
// budget. Like tf.data, each parallelism is capped at the CPU budget but their sum is not.

#include <cstdint>
#include <string>
#include <vector>

namespace pipescope::engine::tfdata {

enum class NodeKind { kSource, kSync, kInterleave, kAsync, kAsyncInterleave };

struct Node {
  std::string name;
  NodeKind kind = NodeKind::kSync;
  double self_ns = 0;  // own work per output element
  double ratio = 1;    // input elements per output element
  int64_t cycle_length = 1;
  // Tunable knobs (parallelism for async maps and interleaves, buffer for prefetch).
  bool parallelism_tunable = false;
  int64_t parallelism = 1;
  bool buffer_tunable = false;
  int64_t buffer = 1;  // for kAsync: 0 means "the parallelism"
  double bytes_per_element = 0;
};

// Nodes in pipeline order: nodes[0] is the source, the last one feeds the consumer.
struct Chain {
  std::vector<Node> nodes;
};

double WaitTime(double producer_ns, double consumer_ns, double buffer);

// The consumer's expected wait per element when it asks every `consumer_gap_ns`.
double OutputTime(const Chain& chain, double consumer_gap_ns);
// Work per element reaching the consumer, all ops together (the CPU-bound limit times the
// cores).
double TotalProcessingTime(const Chain& chain);

struct Budget {
  int cores = 1;
  double ram_bytes = 0;  // 0: no limit
};
// Hill-climbs the chain's tunable knobs from their minimum; returns the chain with the
// chosen values.
Chain HillClimb(Chain chain, double consumer_gap_ns, const Budget& budget,
                int64_t max_buffer = 1 << 10);

}  // namespace pipescope::engine::tfdata
