#include "engine/tuning/tfdata_model.h"

#include <algorithm>
#include <cmath>

namespace pipescope::engine::tfdata {
namespace {

// T of node i (and everything before it) for a consumer gap.
double NodeOutputTime(const Chain& chain, int i, double gap) {
  if (i < 0) return 0;
  const Node& n = chain.nodes[static_cast<size_t>(i)];
  const double p = static_cast<double>(std::max<int64_t>(n.parallelism, 1));
  switch (n.kind) {
    case NodeKind::kSource:
      return n.self_ns;
    case NodeKind::kSync:
      if (n.ratio <= 0) return n.self_ns;
      return n.self_ns + n.ratio * NodeOutputTime(chain, i - 1, gap + (gap + n.self_ns) / n.ratio);
    case NodeKind::kInterleave:
      return n.self_ns + NodeOutputTime(chain, i - 1,
                                        gap + n.self_ns * static_cast<double>(std::max<int64_t>(
                                                              n.cycle_length - 1, 0)));
    case NodeKind::kAsync: {
      const double buffer = n.buffer > 0 ? static_cast<double>(n.buffer) : p;
      const double producer =
          n.ratio <= 0
              ? n.self_ns / p
              : n.self_ns / p + n.ratio * NodeOutputTime(chain, i - 1, n.self_ns / n.ratio / p);
      return WaitTime(producer, gap, buffer);
    }
    case NodeKind::kAsyncInterleave: {
      const double cycle = static_cast<double>(std::max<int64_t>(n.cycle_length, 1));
      const double q = std::min(p, cycle);
      const double producer = n.self_ns + NodeOutputTime(chain, i - 1, n.self_ns * (cycle - 1)) / q;
      return WaitTime(producer, gap, q);
    }
  }
  return 0;
}

double BufferedBytes(const Chain& chain) {
  double bytes = 0;
  for (const Node& n : chain.nodes) {
    if (n.kind == NodeKind::kAsync || n.kind == NodeKind::kAsyncInterleave) {
      const double b =
          n.buffer > 0 ? static_cast<double>(n.buffer) : static_cast<double>(n.parallelism);
      bytes += b * n.bytes_per_element;
    }
  }
  return bytes;
}

}  // namespace

double WaitTime(double producer_ns, double consumer_ns, double buffer) {
  if (producer_ns == 0 || consumer_ns == 0) return producer_ns;
  if (producer_ns == consumer_ns) return producer_ns / (buffer + 1);
  const double rho = producer_ns / consumer_ns;
  const double p_empty = (1 - rho) / (1 - std::pow(rho, buffer + 1));
  return p_empty * producer_ns;
}

double OutputTime(const Chain& chain, double consumer_gap_ns) {
  return NodeOutputTime(chain, static_cast<int>(chain.nodes.size()) - 1, consumer_gap_ns);
}

double TotalProcessingTime(const Chain& chain) {
  // Work per root element: each node's self time times how many of its elements one root
  // element takes (the product of the ratios after it).
  double total = 0, multiplier = 1;
  for (int i = static_cast<int>(chain.nodes.size()) - 1; i >= 0; --i) {
    const Node& n = chain.nodes[static_cast<size_t>(i)];
    total += n.self_ns * multiplier;
    if (n.kind == NodeKind::kSync || n.kind == NodeKind::kAsync)
      multiplier *= std::max(n.ratio, 0.0);
  }
  return total;
}

Chain HillClimb(Chain chain, double consumer_gap_ns, const Budget& budget, int64_t max_buffer) {
  const int64_t max_parallelism = std::max(1, budget.cores);
  for (Node& n : chain.nodes) {
    if (n.parallelism_tunable) n.parallelism = 1;
    if (n.buffer_tunable) n.buffer = 1;
  }
  const double cpu_bound = TotalProcessingTime(chain) / std::max(1, budget.cores);
  for (;;) {
    const double now = OutputTime(chain, consumer_gap_ns);
    if (now < cpu_bound) break;
    double best_delta = 0;
    Node* best = nullptr;
    bool best_is_buffer = false;
    for (Node& n : chain.nodes) {
      for (bool is_buffer : {false, true}) {
        if (is_buffer ? !n.buffer_tunable || n.buffer >= max_buffer
                      : !n.parallelism_tunable || n.parallelism >= max_parallelism) {
          continue;
        }
        int64_t& knob = is_buffer ? n.buffer : n.parallelism;
        ++knob;
        const double delta = now - OutputTime(chain, consumer_gap_ns);
        const bool within = budget.ram_bytes <= 0 || BufferedBytes(chain) <= budget.ram_bytes;
        --knob;
        if (within && delta > best_delta) {
          best_delta = delta;
          best = &n;
          best_is_buffer = is_buffer;
        }
      }
    }
    if (!best || best_delta < 1e-9 * std::max(now, 1.0)) break;
    ++(best_is_buffer ? best->buffer : best->parallelism);
  }
  return chain;
}

}  // namespace pipescope::engine::tfdata
