#include "instrumentation/trace/import/framework_mapping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace pipescope::trace {
namespace {

using record::EventKind;

constexpr size_t kMaxStages = 60'000;  // op ids are 16-bit, a few are reserved

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// B/E pairs become X events (per thread, innermost first); unmatched ones are counted.
size_t PairBeginEnd(TraceEvents& t) {
  if (std::none_of(t.events.begin(), t.events.end(),
                   [](const RawEvent& e) { return e.ph == 'B' || e.ph == 'E'; }))
    return 0;
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
  return unmatched;
}

enum class Role { kGeneric, kStep, kInputWait, kGpu, kIterator };

struct Mapper {
  Mapper(TraceEvents& events, Model& m) : t(events), model(m) {}

  TraceEvents& t;
  Model& model;
  std::map<std::pair<int32_t, int64_t>, uint32_t> threads;
  std::map<int32_t, uint16_t> process_stages;
  std::map<std::string, uint16_t> iterator_stages;  // by path
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
    model.AddThread({it->second, name != t.thread_names.end() && !name->second.empty()
                                     ? process + " / " + name->second
                                     : process + " / " + std::to_string(tid)});
    return last_thread = it->second;
  }

  std::string ProcessName(int32_t pid) const {
    auto it = t.process_names.find(pid);
    return it != t.process_names.end() && !it->second.empty() ? it->second
                                                              : "pid " + std::to_string(pid);
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

// The role an event's name and category give it (a "/device:GPU" process makes all its
// events device activity, decided by the caller).
Role RoleOf(const std::string& framework, const std::string& name, const std::string& cat) {
  if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Memcpy" ||
      cat == "Memset")
    return Role::kGpu;
  if (framework == "pytorch") {
    if (StartsWith(name, "ProfilerStep#")) return Role::kStep;
    if (name.find("DataLoader") != std::string::npos && name.find("__next__") != std::string::npos)
      return Role::kInputWait;
  }
  if (framework == "tensorflow") {
    if (StartsWith(name, "Iterator::")) return Role::kIterator;
    if (name == "train" || name == "train_step" || name == "train_function" ||
        StartsWith(name, "ProfilerStep#"))
      return Role::kStep;
  }
  return Role::kGeneric;
}

EventKind GpuKind(const std::string& name, const std::string& cat) {
  auto has = [&](const char* s) {
    return name.find(s) != std::string::npos || cat.find(s) != std::string::npos;
  };
  if (has("emcpy") || has("MemcpyHtoD") || has("MemcpyDtoH")) return EventKind::kGpuMemcpy;
  if (has("emset")) return EventKind::kGpuMemset;
  return EventKind::kGpuKernel;
}

}  // namespace

MappedTrace MapTraceEvents(TraceEvents t, const std::string& name,
                           const std::function<bool(double)>& progress) {
  MappedTrace out;
  out.model = std::make_unique<Model>();
  out.warnings = std::move(t.warnings);
  Model& model = *out.model;
  if (const size_t unmatched = PairBeginEnd(t)) {
    out.warnings.push_back(std::to_string(unmatched) +
                           " begin/end events without their pair: left out");
  }
  out.framework = "chrome";
  for (const auto& e : t.events) {
    const std::string& n = t.str(e.name);
    if (StartsWith(n, "ProfilerStep#")) {
      out.framework = "pytorch";
      break;
    }
    if (StartsWith(n, "Iterator::")) out.framework = "tensorflow";
  }

  // Time zero: the first event.
  int64_t t0 = std::numeric_limits<int64_t>::max();
  for (const auto& e : t.events) t0 = std::min(t0, e.ts_ns);
  if (t.events.empty()) t0 = 0;

  // Spans in thread order, outer before inner at equal start, for self times and nesting.
  std::vector<size_t> spans, counters;
  size_t instants = 0, unshown = 0;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const RawEvent& e = t.events[i];
    if (e.ph == 'X') {
      spans.push_back(i);
    } else if (e.ph == 'i' || e.ph == 'I' || e.ph == 'R') {
      model.AddMarker({e.ts_ns - t0, t.str(e.name)});
      ++instants;
    } else if (e.ph == 'C') {
      counters.push_back(i);
    } else {
      ++unshown;
    }
  }
  std::sort(spans.begin(), spans.end(), [&](size_t a, size_t b) {
    const RawEvent &x = t.events[a], &y = t.events[b];
    if (x.pid != y.pid) return x.pid < y.pid;
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.ts_ns != y.ts_ns) return x.ts_ns < y.ts_ns;
    return x.dur_ns > y.dur_ns;
  });
  std::vector<int64_t> child_ns(t.events.size(), 0);
  std::vector<int64_t> parent(t.events.size(), -1);
  {
    std::vector<size_t> stack;
    for (size_t k = 0; k < spans.size(); ++k) {
      const RawEvent& e = t.events[spans[k]];
      if (k > 0) {
        const RawEvent& prev = t.events[spans[k - 1]];
        if (prev.pid != e.pid || prev.tid != e.tid) stack.clear();
      }
      while (!stack.empty()) {
        const RawEvent& top = t.events[stack.back()];
        if (top.ts_ns + top.dur_ns > e.ts_ns) break;
        stack.pop_back();
      }
      if (!stack.empty()) {
        const RawEvent& top = t.events[stack.back()];
        child_ns[stack.back()] += std::min(e.dur_ns, top.ts_ns + top.dur_ns - e.ts_ns);
        parent[spans[k]] = static_cast<int64_t>(stack.back());
      }
      stack.push_back(spans[k]);
    }
  }

  Mapper m(t, model);
  // TensorFlow's iterator paths become ops, the outermost last (the one the step pulls from).
  std::map<std::string, int> depth;  // "::" in an iterator path
  int shallowest = 0;
  if (out.framework == "tensorflow") {
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
    // Who pulls from whom: a path's input is its child path.
    for (const auto& [path, id] : m.iterator_stages) {
      for (const auto& [child, child_id] : m.iterator_stages) {
        if (child.size() > path.size() + 2 && StartsWith(child, (path + "::").c_str()) &&
            child.find("::", path.size() + 2) == std::string::npos) {
          record::StageDef def = *model.Stage(id);
          def.input = child_id;
          model.AddStage(def);
          break;
        }
      }
    }
  }

  // Events in time order, so each track's spans arrive in order.
  std::vector<size_t> by_time = spans;
  std::sort(by_time.begin(), by_time.end(),
            [&](size_t a, size_t b) { return t.events[a].ts_ns < t.events[b].ts_ns; });
  bool gpu = false;
  // A trace repeats a few hundred (name, category, process) triples: their role is decided
  // once each.
  std::unordered_map<uint64_t, Role> roles;
  std::map<int32_t, bool> gpu_process;
  size_t placed = 0;
  for (size_t i : by_time) {
    if ((++placed & 0x3FFFF) == 0 && progress &&
        !progress(static_cast<double>(placed) / static_cast<double>(by_time.size()))) {
      out.model.reset();
      return out;
    }
    const RawEvent& e = t.events[i];
    const std::string& n = t.str(e.name);
    auto [gpu_it, new_pid] = gpu_process.emplace(e.pid, false);
    if (new_pid) gpu_it->second = m.ProcessName(e.pid).find("/device:GPU") != std::string::npos;
    const uint64_t role_key = (uint64_t{e.name} << 32) | e.cat;
    auto [role_it, new_role] = roles.emplace(role_key, Role::kGeneric);
    if (new_role) role_it->second = RoleOf(out.framework, n, t.str(e.cat));
    const Role role = gpu_it->second ? Role::kGpu : role_it->second;
    const uint32_t thread = m.Thread(e.pid, e.tid);
    const int64_t start = e.ts_ns - t0, end = start + e.dur_ns;
    const uint32_t self =
        record::SaturateU32(static_cast<uint64_t>(std::max<int64_t>(0, e.dur_ns - child_ns[i])));
    switch (role) {
      case Role::kStep:
        model.AddEvent({start, end, 0, 0, 0, record::kDeviceOp, EventKind::kStep, 0});
        break;
      case Role::kInputWait:
        model.AddEvent({start, end, 0, 0, thread, record::kConsumerOp, EventKind::kInputWait, 0});
        break;
      case Role::kGpu:
        gpu = true;
        model.AddEvent({start, end, 0, 0, thread, record::kDeviceOp, GpuKind(n, t.str(e.cat)), 0});
        break;
      case Role::kIterator: {
        const uint16_t op = m.iterator_stages.count(n) ? m.iterator_stages[n] : record::kNoOp;
        model.AddEvent({start, end, 0, self, thread, op, EventKind::kCall, 0});
        // Calls of the root-most iterator op that no other iterator call holds are the
        // training loop waiting for input (the ops' own workers call deeper paths).
        const int64_t up = parent[i];
        const bool outermost =
            up < 0 || !StartsWith(t.str(t.events[static_cast<size_t>(up)].name), "Iterator::");
        if (outermost && depth[n] == shallowest)
          model.AddEvent({start, end, 0, 0, thread, record::kConsumerOp, EventKind::kInputWait, 0});
        break;
      }
      case Role::kGeneric:
        if (auto op = m.ProcessStage(e.pid))
          model.AddEvent({start, end, 0, self, thread, *op, EventKind::kCall, 0});
        break;
    }
  }
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
    if (!it->second) continue;
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
  if (unshown > 0) {
    out.warnings.push_back(std::to_string(unshown) +
                           " flow, async and other events are not shown (spans, counters and "
                           "instants are imported)");
  }
  RunInfo& info = model.run_info();
  info.pipeline_name = name;
  info.imported_from = out.framework;
  info.producer = "imported " + out.framework + " trace";
  info.device = gpu ? "gpu" : "";
  // The profiler's clock at time zero: traces of several hosts line up on it (profilers
  // write epoch or steady-clock microseconds; hosts share the former).
  info.clock.source = "imported";
  info.clock.origin_unix_ns = t0;
  model.Finish();
  return out;
}

}  // namespace pipescope::trace
