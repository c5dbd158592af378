#include "instrumentation/trace/import/framework_mapping.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>

#include "instrumentation/trace/import/event_vocabulary.h"
#include "instrumentation/trace/import/tf_iterator_paths.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

constexpr size_t kMaxStages = 60'000;  // op ids are 16-bit, a few are reserved
constexpr size_t kNone = std::numeric_limits<size_t>::max();

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// What was not shown, by kind, for the one warning that says so.
struct Unshown {
  std::map<std::string, size_t> counts;
  void Add(const std::string& what, size_t n = 1) {
    if (n > 0) counts[what] += n;
  }
  std::string Warning() const {
    std::string out;
    for (const auto& [what, n] : counts) {
      out += (out.empty() ? "not shown: " : ", ") + std::to_string(n) + " " + what;
    }
    return out;
  }
};

// B/E pairs become X events (per thread, innermost first); unmatched ones are counted.
void PairBeginEnd(TraceEvents& t, Unshown& unshown) {
  if (std::none_of(t.events.begin(), t.events.end(),
                   [](const RawEvent& e) { return e.ph == 'B' || e.ph == 'E'; }))
    return;
  std::map<std::pair<int32_t, int64_t>, std::vector<size_t>> open;
  size_t unmatched = 0;
  std::vector<RawEvent> out;
  out.reserve(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    RawEvent& e = t.events[i];
    if (e.ph == 'B') {
      open[{e.pid, e.tid}].push_back(i);
    } else if (e.ph == 'E') {
      auto& stack = open[{e.pid, e.tid}];
      if (stack.empty()) {
        ++unmatched;
        continue;
      }
      RawEvent begin = t.events[stack.back()];
      stack.pop_back();
      begin.ph = 'X';
      begin.dur_ns = std::max<int64_t>(0, e.ts_ns - begin.ts_ns);
      out.push_back(begin);
    } else {
      out.push_back(e);
    }
  }
  for (const auto& [thread, stack] : open) unmatched += stack.size();
  t.events = std::move(out);
  unshown.Add("begin/end events without their pair", unmatched);
}

// Async spans (b/e and the older S/F, matched by process, category and id) become X
// events on a thread of their own per process and category ("async: <category>"), where
// the nesting below gives overlapping ones rows of their own.
void PairAsync(TraceEvents& t, Unshown& unshown) {
  if (std::none_of(t.events.begin(), t.events.end(), [](const RawEvent& e) {
        return e.ph == 'b' || e.ph == 'e' || e.ph == 'S' || e.ph == 'F';
      }))
    return;
  std::map<std::tuple<int32_t, uint32_t, int64_t>, std::vector<size_t>> open;
  std::map<std::pair<int32_t, uint32_t>, int64_t> lanes;  // (pid, cat) → its thread id
  size_t unmatched = 0;
  std::vector<RawEvent> out;
  out.reserve(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const RawEvent& e = t.events[i];
    const bool begin = e.ph == 'b' || e.ph == 'S';
    if (!begin && e.ph != 'e' && e.ph != 'F') {
      out.push_back(e);
      continue;
    }
    auto& stack = open[{e.pid, e.cat, e.id}];
    if (begin) {
      stack.push_back(i);
      continue;
    }
    if (stack.empty()) {
      ++unmatched;
      continue;
    }
    RawEvent span = t.events[stack.back()];
    stack.pop_back();
    auto [lane, added] = lanes.try_emplace({e.pid, e.cat}, 0);
    if (added) {
      // Thread ids far below any real one: Kineto's are positive, Perfetto's small.
      lane->second = std::numeric_limits<int64_t>::min() / 2 + static_cast<int64_t>(lanes.size());
      t.thread_names[{e.pid, lane->second}] = "async: " + t.str(e.cat);
    }
    span.ph = 'X';
    span.tid = lane->second;
    span.dur_ns = std::max<int64_t>(0, e.ts_ns - span.ts_ns);
    out.push_back(span);
  }
  for (const auto& [key, stack] : open) unmatched += stack.size();
  t.events = std::move(out);
  unshown.Add("async events without their pair", unmatched);
}

struct Mapper {
  Mapper(TraceEvents& events, Model& m) : t(events), model(m) {}

  TraceEvents& t;
  Model& model;
  std::map<std::pair<int32_t, int64_t>, uint32_t> threads;
  std::map<int32_t, uint16_t> process_stages;
  std::map<std::string, uint16_t> iterator_stages;  // by path
  std::map<int32_t, bool> device_process;
  uint16_t next_stage = 0;
  bool stages_full = false;
  int32_t last_pid = -1;
  int64_t last_tid = -1;
  uint32_t last_thread = 0;

  uint32_t Thread(int32_t pid, int64_t tid) {
    if (pid == last_pid && tid == last_tid) return last_thread;  // runs of one thread's spans
    auto [it, added] = threads.emplace(std::make_pair(pid, tid), 0);
    last_pid = pid;
    last_tid = tid;
    if (!added) return last_thread = it->second;
    it->second = static_cast<uint32_t>(threads.size());
    auto name = t.thread_names.find({pid, tid});
    std::string process = ProcessName(pid);
    std::string thread =
        name != t.thread_names.end() && !name->second.empty() ? name->second : std::to_string(tid);
    while (!thread.empty() && thread.back() == ' ') thread.pop_back();  // "stream 7 "
    model.AddThread({it->second, process + " / " + thread});
    return last_thread = it->second;
  }

  // Kineto names every process after the program ("python3.8") and labels the devices
  // ("GPU 3"): a device is named by its label.
  std::string ProcessName(int32_t pid) const {
    auto label = t.process_labels.find(pid);
    auto it = t.process_names.find(pid);
    std::string name = it != t.process_names.end() && !it->second.empty()
                           ? it->second
                           : "pid " + std::to_string(pid);
    if (label != t.process_labels.end() && IsDeviceProcess("", label->second)) return label->second;
    return name;
  }

  bool IsDevice(int32_t pid) {
    auto [it, added] = device_process.emplace(pid, false);
    if (added) {
      auto label = t.process_labels.find(pid);
      auto name = t.process_names.find(pid);
      it->second = IsDeviceProcess(name == t.process_names.end() ? "" : name->second,
                                   label == t.process_labels.end() ? "" : label->second);
    }
    return it->second;
  }

  std::optional<uint16_t> NewStage(record::StageDef def) {
    if (next_stage >= kMaxStages) {
      stages_full = true;
      return std::nullopt;
    }
    def.id = next_stage++;
    model.AddStage(def);
    return def.id;
  }

  std::optional<uint16_t> ProcessStage(int32_t pid) {
    auto it = process_stages.find(pid);
    if (it != process_stages.end()) return it->second;
    record::StageDef def;
    def.name = ProcessName(pid);
    def.kind = "imported";
    def.position = -1 - static_cast<int>(process_stages.size());  // never the consumer's op
    auto id = NewStage(def);
    if (id) process_stages[pid] = *id;
    return id;
  }
};

// TensorFlow's iterator paths ("Iterator::Root::Prefetch::ParallelMapV2") become ops, the
// outermost last (the one the step pulls from), each pulling from its child path.
struct IteratorOps {
  std::map<std::string, int> depth;  // "::" in an iterator path
  int shallowest = 0;

  void Build(const TraceEvents& t, const std::vector<size_t>& spans, Mapper& m) {
    for (size_t i : spans) {
      const std::string& n = t.str(t.events[i].name);
      if (!StartsWith(n, "Iterator::") || depth.count(n)) continue;
      int d = 0;
      for (size_t p = 0; (p = n.find("::", p)) != std::string::npos; p += 2) ++d;
      depth[n] = d;
    }
    int deepest = 0;
    shallowest = depth.empty() ? 0 : depth.begin()->second;
    for (const auto& [path, d] : depth) {
      deepest = std::max(deepest, d);
      shallowest = std::min(shallowest, d);
    }
    std::map<std::string, int> uses_of_name;
    for (const auto& [path, d] : depth) {
      record::StageDef def;
      const std::string last = path.substr(path.rfind("::") + 2);
      const int use = ++uses_of_name[last];
      def.name = use == 1 ? last : last + "#" + std::to_string(use);
      def.kind = "tf.data";
      def.position = deepest - d;  // the root pulls from its child: it comes last
      def.asynchronous =
          last.find("Prefetch") != std::string::npos || last.find("Parallel") != std::string::npos;
      if (auto id = m.NewStage(def)) m.iterator_stages[path] = *id;
    }
    // Each op pulls from its first input (a zip's others are ops of their own, unlinked).
    std::map<uint16_t, uint16_t> input_of;
    for (const auto& [path, id] : m.iterator_stages) {
      const auto consumer = m.iterator_stages.find(ConsumerOfIterator(path));
      if (consumer != m.iterator_stages.end()) input_of.try_emplace(consumer->second, id);
    }
    for (const auto& [consumer, input] : input_of) {
      record::StageDef def = *m.model.Stage(consumer);
      def.input = input;
      m.model.AddStage(def);
    }
  }
};

// The spans of each thread, sorted by start (outer first at equal starts), with each one's
// parent, its children's time (for self times) and its depth: the lowest row free at its
// start. For properly nested spans that is the nesting depth; spans that overlap without
// nesting still get rows where they do not overlap.
struct Nesting {
  std::vector<size_t> spans;      // event indices, by (pid, tid, start, longest first)
  std::vector<size_t> parent;     // by event index; kNone for the outermost
  std::vector<int64_t> child_ns;  // by event index
  std::vector<uint8_t> depth;     // by event index
  std::map<std::pair<int32_t, int64_t>, std::pair<size_t, size_t>> thread_range;  // in spans
  size_t too_deep = 0;

  // Fills `spans` and `thread_range`. The spans are bucketed by thread (a trace has tens of
  // threads), then each thread's are sorted by (start, longest first, file order) unless
  // they already are, as a profiler mostly writes them: one sort of every span by (pid,
  // tid, start) was a twelfth of an import. Keys are copied side by side, not compared
  // through indices into the events, which missed the cache on every step.
  void SortByThreadAndStart(const TraceEvents& t) {
    struct ThreadSlot {
      int32_t pid;
      int64_t tid;
      size_t count = 0, first = 0;
    };
    std::vector<ThreadSlot> threads;
    std::unordered_map<uint64_t, std::vector<uint32_t>> slots_by_hash;  // few entries each
    std::vector<uint32_t> slot_of;                                      // per span, in file order
    uint32_t last = UINT32_MAX;
    for (const RawEvent& e : t.events) {
      if (e.ph != 'X') continue;
      if (last == UINT32_MAX || threads[last].pid != e.pid || threads[last].tid != e.tid) {
        const uint64_t hash = (static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) ^
                              static_cast<uint64_t>(e.tid);
        std::vector<uint32_t>& candidates = slots_by_hash[hash];
        last = UINT32_MAX;
        for (uint32_t c : candidates) {
          if (threads[c].pid == e.pid && threads[c].tid == e.tid) last = c;
        }
        if (last == UINT32_MAX) {
          last = static_cast<uint32_t>(threads.size());
          threads.push_back({e.pid, e.tid});
          candidates.push_back(last);
        }
      }
      ++threads[last].count;
      slot_of.push_back(last);
    }
    std::vector<uint32_t> order(threads.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(threads[a].pid, threads[a].tid) < std::tie(threads[b].pid, threads[b].tid);
    });
    size_t offset = 0;
    for (uint32_t slot : order) {
      threads[slot].first = offset;
      thread_range[{threads[slot].pid, threads[slot].tid}] = {offset, offset + threads[slot].count};
      offset += threads[slot].count;
    }
    struct Key {
      int64_t ts, minus_dur;
      uint32_t index;
      bool operator<(const Key& o) const {
        if (ts != o.ts) return ts < o.ts;
        if (minus_dur != o.minus_dur) return minus_dur < o.minus_dur;
        return index < o.index;
      }
    };
    std::vector<Key> keys(slot_of.size());
    std::vector<size_t> next(threads.size());
    for (size_t i = 0; i < threads.size(); ++i) next[i] = threads[i].first;
    size_t k = 0;
    for (size_t i = 0; i < t.events.size(); ++i) {
      const RawEvent& e = t.events[i];
      if (e.ph == 'X') keys[next[slot_of[k++]]++] = {e.ts_ns, -e.dur_ns, static_cast<uint32_t>(i)};
    }
    // Spans with the same start and length keep the file's order: a profiler writes the
    // outer one first (Kineto's "TBackward0" around its "aten::t").
    for (const ThreadSlot& thread : threads) {
      const auto begin = keys.begin() + static_cast<ptrdiff_t>(thread.first);
      const auto end = begin + static_cast<ptrdiff_t>(thread.count);
      if (!std::is_sorted(begin, end)) std::sort(begin, end);
    }
    spans.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) spans[i] = keys[i].index;
  }

  void Build(const TraceEvents& t) {
    SortByThreadAndStart(t);
    parent.assign(t.events.size(), kNone);
    child_ns.assign(t.events.size(), 0);
    depth.assign(t.events.size(), 0);
    std::vector<size_t> stack;
    std::vector<int64_t> row_end;  // per depth: where its last span ends
    for (size_t k = 0; k < spans.size(); ++k) {
      const RawEvent& e = t.events[spans[k]];
      if (k > 0) {
        const RawEvent& prev = t.events[spans[k - 1]];
        if (prev.pid != e.pid || prev.tid != e.tid) {
          stack.clear();
          row_end.clear();
        }
      }
      while (!stack.empty()) {
        const RawEvent& top = t.events[stack.back()];
        if (top.ts_ns + top.dur_ns > e.ts_ns) break;
        stack.pop_back();
      }
      if (!stack.empty()) {
        const RawEvent& top = t.events[stack.back()];
        child_ns[stack.back()] += std::min(e.dur_ns, top.ts_ns + top.dur_ns - e.ts_ns);
        parent[spans[k]] = stack.back();
      }
      stack.push_back(spans[k]);
      size_t row = 0;
      while (row < row_end.size() && row_end[row] > e.ts_ns) ++row;
      if (row == row_end.size()) row_end.push_back(0);
      row_end[row] = e.ts_ns + e.dur_ns;
      if (row > kMaxDepth) ++too_deep;
      depth[spans[k]] = static_cast<uint8_t>(std::min<size_t>(row, kMaxDepth));
    }
  }

  // The spans of (pid, tid), by start; empty if it has none.
  std::pair<std::vector<size_t>::const_iterator, std::vector<size_t>::const_iterator> OfThread(
      int32_t pid, int64_t tid) const {
    auto range = thread_range.find({pid, tid});
    if (range == thread_range.end()) return {spans.end(), spans.end()};
    return {spans.begin() + static_cast<ptrdiff_t>(range->second.first),
            spans.begin() + static_cast<ptrdiff_t>(range->second.second)};
  }

  // The deepest span on (pid, tid) that holds ts (starts at or before it and ends after it,
  // or starts at it), or kNone.
  size_t Enclosing(const TraceEvents& t, int32_t pid, int64_t tid, int64_t ts) const {
    const auto [begin, end] = OfThread(pid, tid);
    auto after = std::upper_bound(begin, end, ts,
                                  [&](int64_t v, size_t i) { return v < t.events[i].ts_ns; });
    if (after == begin) return kNone;
    for (size_t i = *(after - 1); i != kNone; i = parent[i]) {
      const RawEvent& e = t.events[i];
      if (e.ts_ns + e.dur_ns > ts || e.ts_ns == ts) return i;
    }
    return kNone;
  }

  // The first span on (pid, tid) that starts at or after ts, or kNone.
  size_t Next(const TraceEvents& t, int32_t pid, int64_t tid, int64_t ts) const {
    const auto [begin, end] = OfThread(pid, tid);
    auto at = std::lower_bound(begin, end, ts,
                               [&](size_t i, int64_t v) { return t.events[i].ts_ns < v; });
    return at == end ? kNone : *at;
  }
};

// The spans by start; at equal starts in the order of `nesting.spans` (by thread, outer
// first). Each thread's spans are already by start, so this merges the threads' runs with a
// heap: a trace has tens of threads, and the sort of every span this replaced was a
// fourteenth of an import.
std::vector<size_t> SpansByStart(const TraceEvents& t, const Nesting& nesting) {
  const std::vector<size_t>& spans = nesting.spans;
  using Head = std::pair<int64_t, size_t>;  // (start, position in spans)
  std::vector<Head> heap;
  std::vector<size_t> run_end(spans.size() + 1);
  for (const auto& [thread, range] : nesting.thread_range) {
    if (range.first == range.second) continue;
    heap.push_back({t.events[spans[range.first]].ts_ns, range.first});
    run_end[range.first] = range.second;
  }
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  std::vector<size_t> by_start;
  by_start.reserve(spans.size());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    auto& [start, k] = heap.back();
    by_start.push_back(spans[k]);
    // The run's end is kept at its current head, which moves along with it.
    const size_t end = run_end[k];
    if (k + 1 < end) {
      ++k;
      run_end[k] = end;
      start = t.events[spans[k]].ts_ns;
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    } else {
      heap.pop_back();
    }
  }
  return by_start;
}

// Flow events ('s' start, 't' step, 'f' finish) with one category and id make a chain of
// arrows; each end binds to a span on its thread: 's' and 't' to the one enclosing it, 'f'
// to the one enclosing it with "bp": "e" (Kineto writes that) and else to the next one.
void AddFlows(const TraceEvents& t, const Nesting& nesting, const std::vector<EventRef>& where,
              const std::vector<bool>& placed, Model& model, Unshown& unshown) {
  // Flow events grouped by (category, id), each chain 's', 't's, 'f' in time order: one
  // sort of their indices (a map of vectors was a tenth of the mapping on a real trace).
  std::vector<size_t> flow_events;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const char ph = t.events[i].ph;
    if (ph == 's' || ph == 't' || ph == 'f') flow_events.push_back(i);
  }
  auto rank = [](char ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; };
  auto same_flow = [&](size_t a, size_t b) {
    return t.events[a].cat == t.events[b].cat && t.events[a].id == t.events[b].id;
  };
  std::stable_sort(flow_events.begin(), flow_events.end(), [&](size_t a, size_t b) {
    const RawEvent &x = t.events[a], &y = t.events[b];
    if (x.cat != y.cat) return x.cat < y.cat;
    if (x.id != y.id) return x.id < y.id;
    if (rank(x.ph) != rank(y.ph)) return rank(x.ph) < rank(y.ph);
    return x.ts_ns < y.ts_ns;
  });
  size_t unbound = 0, lonely = 0;
  for (size_t first = 0; first < flow_events.size();) {
    size_t last = first + 1;
    while (last < flow_events.size() && same_flow(flow_events[first], flow_events[last])) ++last;
    const std::span<const size_t> chain(flow_events.data() + first, last - first);
    const uint32_t category = t.events[chain.front()].cat;
    first = last;
    if (chain.size() < 2 || t.events[chain.front()].ph != 's' || t.events[chain.back()].ph == 's') {
      lonely += chain.size();
      continue;
    }
    std::optional<EventRef> previous;
    const uint32_t label =
        model.labels().Intern(t.str(t.events[chain.front()].name), t.str(category));
    for (size_t i : chain) {
      const RawEvent& e = t.events[i];
      const size_t span = e.ph == 'f' && !e.binds_enclosing
                              ? nesting.Next(t, e.pid, e.tid, e.ts_ns)
                              : nesting.Enclosing(t, e.pid, e.tid, e.ts_ns);
      if (span == kNone || !placed[span]) {
        ++unbound;
        previous.reset();
        continue;
      }
      if (previous) model.AddFlow({*previous, where[span], label});
      previous = where[span];
    }
  }
  unshown.Add("flow events without their other end", lonely);
  unshown.Add("flow events with no span to attach to", unbound);
}

}  // namespace

MappedTrace MapTraceEvents(TraceEvents t, const std::string& name,
                           const std::function<bool(double)>& progress) {
  MappedTrace out;
  out.model = std::make_unique<Model>();
  out.warnings = std::move(t.warnings);
  Model& model = *out.model;
  Unshown unshown;
  PairBeginEnd(t, unshown);
  PairAsync(t, unshown);
  out.framework = "chrome";
  for (const auto& e : t.events) {
    const std::string& n = t.str(e.name);
    if (StartsWith(n, "ProfilerStep#")) {
      out.framework = "pytorch";
      break;
    }
    if (StartsWith(n, "Iterator::")) out.framework = "tensorflow";
  }
  if (out.framework == "tensorflow") NameIteratorSpansByPath(t);

  // Time zero: the first event.
  int64_t t0 = std::numeric_limits<int64_t>::max();
  for (const auto& e : t.events) {
    if (e.ph != 'M') t0 = std::min(t0, e.ts_ns);
  }
  if (t0 == std::numeric_limits<int64_t>::max()) t0 = 0;

  std::vector<size_t> counters;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const RawEvent& e = t.events[i];
    if (e.ph == 'i' || e.ph == 'I' || e.ph == 'R') {
      model.AddMarker({e.ts_ns - t0, t.str(e.name)});
    } else if (e.ph == 'C') {
      counters.push_back(i);
    } else if (e.ph != 'X' && e.ph != 's' && e.ph != 't' && e.ph != 'f') {
      unshown.Add(std::string("events of phase '") + e.ph + "'");
    }
  }
  Nesting nesting;
  nesting.Build(t);
  if (nesting.too_deep > 0) {
    out.warnings.push_back(std::to_string(nesting.too_deep) + " spans nested deeper than " +
                           std::to_string(kMaxDepth) + " levels are drawn on the last row");
  }

  Mapper m(t, model);
  IteratorOps iterators;
  if (out.framework == "tensorflow") iterators.Build(t, nesting.spans, m);

  // Spans in time order, so each track's spans arrive in order.
  std::vector<size_t> by_time = SpansByStart(t, nesting);
  bool device = false;
  // A trace repeats a few thousand (name, category) pairs: each is classified and interned
  // once.
  struct NameInfo {
    uint32_t label = 0;
    EventClass cls = EventClass::kUnknown;
    bool step = false, input_wait = false, iterator = false, tf_step = false;
  };
  std::unordered_map<uint64_t, NameInfo> names;
  std::vector<EventRef> where(t.events.size());
  std::vector<bool> placed(t.events.size(), false);
  size_t done = 0;
  for (size_t i : by_time) {
    if ((++done & 0x3FFFF) == 0 && progress &&
        !progress(static_cast<double>(done) / static_cast<double>(by_time.size()))) {
      out.model.reset();
      return out;
    }
    const RawEvent& e = t.events[i];
    auto [info_it, added] = names.try_emplace((uint64_t{e.name} << 32) | e.cat);
    NameInfo& info = info_it->second;
    if (added) {
      const std::string& n = t.str(e.name);
      info.cls = ClassOfCategory(t.str(e.cat));
      info.label = model.labels().Intern(n, t.str(e.cat));
      info.step = out.framework == "pytorch" && IsPyTorchStep(n, info.cls);
      info.input_wait = out.framework == "pytorch" && IsDataLoaderNext(n);
      info.iterator = out.framework == "tensorflow" && StartsWith(n, "Iterator::");
      info.tf_step = out.framework == "tensorflow" &&
                     (n == "train" || n == "train_step" || n == "train_function" ||
                      StartsWith(n, "ProfilerStep#"));
    }
    EventClass cls = info.cls;
    // TensorFlow's device processes hold only device work, whatever its category.
    if ((cls == EventClass::kUnknown || cls == EventClass::kHost) && m.IsDevice(e.pid) &&
        out.framework != "pytorch")
      cls = EventClass::kDeviceKernel;
    const uint32_t thread = m.Thread(e.pid, e.tid);
    const int64_t start = e.ts_ns - t0, end = start + e.dur_ns;
    const uint8_t depth = nesting.depth[i];
    if (IsDeviceWork(cls)) {
      device = true;
      where[i] = model.AddSpan({DeviceKind(cls), record::kDeviceOp, thread, depth}, start, end, 0,
                               info.label, e.args);
      placed[i] = true;
      continue;
    }
    const uint32_t self = record::SaturateU32(
        static_cast<uint64_t>(std::max<int64_t>(0, e.dur_ns - nesting.child_ns[i])));
    std::optional<uint16_t> op;
    if (info.iterator && m.iterator_stages.count(t.str(e.name))) {
      op = m.iterator_stages[t.str(e.name)];
    } else {
      op = m.ProcessStage(e.pid);
    }
    if (!op) {
      unshown.Add("spans of processes past the op limit");
      continue;
    }
    where[i] =
        model.AddSpan({EventKind::kCall, *op, thread, depth}, start, end, self, info.label, e.args);
    placed[i] = true;
    // What a span means for the input pipeline is a copy on the consumer's or the device's
    // lane; the span itself stays on its thread, where its nesting is.
    if (info.step || info.tf_step) {
      model.AddSpan({EventKind::kStep, record::kDeviceOp, 0, 0}, start, end, 0, info.label, 0);
    } else if (info.input_wait) {
      model.AddSpan({EventKind::kInputWait, record::kConsumerOp, thread, 0}, start, end, 0,
                    info.label, 0);
    } else if (info.iterator) {
      // Calls of the root-most iterator op that no other iterator call holds are the
      // training loop waiting for input (the ops' own workers call deeper paths).
      const size_t up = nesting.parent[i];
      const bool outermost = up == kNone || !StartsWith(t.str(t.events[up].name), "Iterator::");
      if (outermost && iterators.depth[t.str(e.name)] == iterators.shallowest)
        model.AddSpan({EventKind::kInputWait, record::kConsumerOp, thread, 0}, start, end, 0,
                      info.label, 0);
    }
  }
  AddFlows(t, nesting, where, placed, model, unshown);

  // Counters: a counter lane each ("<process>: <name>"), readings rounded to whole
  // numbers (the model's counters are integers).
  std::stable_sort(counters.begin(), counters.end(),
                   [&](size_t a, size_t b) { return t.events[a].ts_ns < t.events[b].ts_ns; });
  std::map<std::pair<int32_t, uint32_t>, std::optional<uint16_t>> counter_stages;
  size_t rounded = 0;
  for (size_t i : counters) {
    const RawEvent& e = t.events[i];
    auto [it, added] = counter_stages.emplace(std::make_pair(e.pid, e.name), std::nullopt);
    if (added) {
      record::StageDef def;
      def.name = m.ProcessName(e.pid) + ": " + t.str(e.name);
      def.kind = "counter";
      def.position = -static_cast<int>(kMaxStages);  // below every op: never the consumer's
      it->second = m.NewStage(def);
    }
    if (!it->second) {
      unshown.Add("counter readings past the op limit");
      continue;
    }
    const double v = std::max(0.0, e.value);
    rounded += v != std::floor(v) || e.value < 0;
    model.AddEvent({e.ts_ns - t0, e.ts_ns - t0, 0,
                    record::SaturateU32(static_cast<uint64_t>(std::llround(v))), 0, *it->second,
                    EventKind::kBufferLevel, 0});
  }
  if (rounded > 0) {
    out.warnings.push_back(std::to_string(rounded) +
                           " counter readings were fractional or negative: shown rounded, "
                           "negatives as 0");
  }
  if (m.stages_full) {
    out.warnings.push_back("more than " + std::to_string(kMaxStages) +
                           " processes and iterator ops: the spans of the rest are left out");
  }
  if (!unshown.counts.empty()) out.warnings.push_back(unshown.Warning());
  model.args() = std::move(t.args);
  RunInfo& info = model.run_info();
  info.pipeline_name = name;
  info.imported_from = out.framework;
  info.producer = "imported " + out.framework + " trace";
  info.device = device ? "gpu" : "";
  // The profiler's clock at time zero: traces of several hosts line up on it (profilers
  // write epoch or steady-clock microseconds; hosts share the former).
  info.clock.source = "imported";
  info.clock.origin_unix_ns = t0;
  model.Finish();
  return out;
}

}  // namespace pipescope::trace
