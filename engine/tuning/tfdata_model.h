#pragma once
// A re-implementation of tf.data's AUTOTUNE performance model and its hill-climbing
// optimiser, over a chain of ops with measured self times: the baseline Pipescope's own
// tuner is compared against.
//
// Every node answers "how long does my consumer wait for one of my elements" (its output
// time T), given the time its consumer spends between two requests (the consumer gap c).
// The gap a node hands its input is tf.data's "input time". With self time s (the op's own
// work per output element), input ratio r (input elements per output element), cycle n and
// T_in(gap) its input's answer:
//
//   source                   T = s
//   sync, ratio r            T = s + r * T_in((c + s) / r)
//   interleave, cycle n      T = s + T_in((c + s) * n)            (one input of the cycle)
//   async, parallelism p,    C = c + s / p                        (the buffer's consumer)
//     ratio r, buffer b      P = r * T_in(C / r)                  (its producer)
//                            T = s / p + Wait(P, C, b)            b = p / r for a map
//   async interleave,        P = T_in((c + s) * n) / q,  q = min(p, n)
//     parallelism p          T = s + Wait(P, c + s, q)
//
// Wait(P, c, b) is the expected wait of a consumer arriving every c at a buffer of b
// elements filled every P, from the M/M/1/K queue: the probability that the buffer is
// empty times P. Elements arrive every P and leave every c, so rho = c / P:
//   P == 0: 0;   c == 0: P;   rho == 1: P / (b + 1);   else P * (1 - rho) / (1 - rho^(b+1)).
// A producer slower than its consumer (rho < 1) leaves the buffer mostly empty and the wait
// near P; a faster one keeps it mostly full and the wait near 0.
//
// A parallel map's buffer is its parallelism, a prefetch's its buffer_size. The optimiser
// (tf.data's hill climb) starts every tunable knob at its minimum and repeatedly raises by
// one the knob that lowers the root's T the most. A parallelism is raised even when the
// model sees no gain (the search starts from a delta of -1 ns); a buffer only for a gain of
// more than 1 ns. It stops once T is below the CPU bound (total processing time per
// element over the cores), when every knob is at its maximum (a parallelism at the cores),
// when the buffers already hold more than the RAM budget, or when no buffer helps and every
// parallelism is at its maximum.

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
// chosen values. `explain`, when given, receives one line per step (the knob raised and
// the model's output time after it) and the reason it stopped, for people asking what
// AUTOTUNE does.
Chain HillClimb(Chain chain, double consumer_gap_ns, const Budget& budget,
                int64_t max_buffer = 1 << 10, std::vector<std::string>* explain = nullptr);

}  // namespace pipescope::engine::tfdata
