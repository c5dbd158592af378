#include "engine/tuning/tfdata_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace pipescope::engine::tfdata {
namespace {

// T of node i (and everything before it) when its consumer asks every `gap`.
double NodeOutputTime(const Chain& chain, int i, double gap) {
  if (i < 0) return 0;
  const Node& n = chain.nodes[static_cast<size_t>(i)];
  const double p = static_cast<double>(std::max<int64_t>(n.parallelism, 1));
  const double cycle = static_cast<double>(std::max<int64_t>(n.cycle_length, 1));
  switch (n.kind) {
    case NodeKind::kSource:
      return n.self_ns;
    case NodeKind::kSync:
      if (n.ratio <= 0) return n.self_ns;
      return n.self_ns + n.ratio * NodeOutputTime(chain, i - 1, (gap + n.self_ns) / n.ratio);
    case NodeKind::kInterleave:
      return n.self_ns + NodeOutputTime(chain, i - 1, (gap + n.self_ns) * cycle);
    case NodeKind::kAsync: {
      const double own = n.self_ns / p;
      if (n.ratio <= 0) return own;  // nothing upstream: the buffer never waits
      const double consumer = gap + own;
      const double producer = n.ratio * NodeOutputTime(chain, i - 1, consumer / n.ratio);
      const double buffer = n.buffer > 0 ? static_cast<double>(n.buffer) : p / n.ratio;
      return own + WaitTime(producer, consumer, buffer);
    }
    case NodeKind::kAsyncInterleave: {
      const double q = std::min(p, cycle);
      const double producer = NodeOutputTime(chain, i - 1, (gap + n.self_ns) * cycle) / q;
      return n.self_ns + WaitTime(producer, gap + n.self_ns, q);
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
  // rho = c / P (arrivals into the buffer over departures). The two branches are the same
  // formula; with a fast producer it is written in P / c so that no power overflows.
  if (consumer_ns > producer_ns) {
    const double r = producer_ns / consumer_ns;
    const double r_b = std::pow(r, buffer);
    return r_b * (1 - r) / (1 - r_b * r) * producer_ns;
  }
  const double rho = consumer_ns / producer_ns;
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

namespace {

std::string Ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  return buf;
}

}  // namespace

Chain HillClimb(Chain chain, double consumer_gap_ns, const Budget& budget, int64_t max_buffer,
                std::vector<std::string>* explain) {
  auto say = [explain](std::string line) {
    if (explain) explain->push_back(std::move(line));
  };
  // tf.data's constants, in its units (nanoseconds): a parallelism is raised when its
  // step is the best one even if the model sees no gain (the search starts from a delta of
  // -1 ns), a buffer only when it shortens the output time by more than 1 ns.
  constexpr double kInitialBestDelta = -1.0;
  constexpr double kBufferSizeMinDelta = 1.0;
  const int64_t max_parallelism = std::max(1, budget.cores);
  for (Node& n : chain.nodes) {
    if (n.parallelism_tunable) n.parallelism = 1;
    if (n.buffer_tunable) n.buffer = 1;
  }
  auto at_max = [&](const Node& n, bool is_buffer) {
    return is_buffer ? !n.buffer_tunable || n.buffer >= max_buffer
                     : !n.parallelism_tunable || n.parallelism >= max_parallelism;
  };
  const double cpu_bound = TotalProcessingTime(chain) / std::max(1, budget.cores);
  say("the model: the consumer asks every " + Ms(consumer_gap_ns) +
      "; the CPU bound (all work per element over " + std::to_string(budget.cores) + " cores) is " +
      Ms(cpu_bound) + "; every tunable knob starts at 1");
  for (;;) {
    const double now = OutputTime(chain, consumer_gap_ns);
    bool all_max = true;
    for (const Node& n : chain.nodes) all_max = all_max && at_max(n, false) && at_max(n, true);
    if (now < cpu_bound) {
      say("stop: the output time " + Ms(now) + " is below the CPU bound " + Ms(cpu_bound));
      break;
    }
    if (all_max) {
      say("stop: every knob is at its maximum (a parallelism at the cores)");
      break;
    }
    if (budget.ram_bytes > 0 && BufferedBytes(chain) > budget.ram_bytes) {
      say("stop: the buffers would hold more than the RAM budget");
      break;
    }
    double best_delta = kInitialBestDelta;
    Node* best = nullptr;
    bool best_is_buffer = false;
    for (Node& n : chain.nodes) {
      for (bool is_buffer : {false, true}) {
        if (at_max(n, is_buffer)) continue;
        int64_t& knob = is_buffer ? n.buffer : n.parallelism;
        ++knob;
        const double delta = now - OutputTime(chain, consumer_gap_ns);
        --knob;
        if (delta > best_delta && (!is_buffer || delta > kBufferSizeMinDelta)) {
          best_delta = delta;
          best = &n;
          best_is_buffer = is_buffer;
        }
      }
    }
    if (!best) {  // stuck: only buffers are left and none helps
      say("stop: no buffer shortens the output time by more than 1 ns");
      break;
    }
    const int64_t value = ++(best_is_buffer ? best->buffer : best->parallelism);
    say("raise " + best->name + (best_is_buffer ? "'s buffer to " : "'s parallelism to ") +
        std::to_string(value) + ": output time " + Ms(now) + " -> " +
        Ms(OutputTime(chain, consumer_gap_ns)));
  }
  return chain;
}

}  // namespace pipescope::engine::tfdata
