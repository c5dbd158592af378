#include "ui/timeline/lanes.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "instrumentation/trace/import/host_merge.h"
#include "instrumentation/trace/intervals.h"

namespace pipescope::ui {

using record::EventKind;

namespace {

// Lanes of one op by (thread name, depth, thread id) in natural order of the names.
struct ThreadOrder {
  bool operator()(const std::tuple<std::string, int, uint32_t>& a,
                  const std::tuple<std::string, int, uint32_t>& b) const {
    if (std::get<0>(a) != std::get<0>(b)) return NaturalLess(std::get<0>(a), std::get<0>(b));
    return std::tie(std::get<2>(a), std::get<1>(a)) < std::tie(std::get<2>(b), std::get<1>(b));
  }
};

// Several hosts' traces in one view (host_merge.h): each op lane's host is its op's
// (trace::HostOf). A host is named once, on its first lane; its next lanes say only their own
// part, under it.
void GroupByHost(const trace::Model& model, std::vector<Lane>& lanes) {
  const std::string* previous = nullptr;
  for (Lane& lane : lanes) {
    const record::StageDef* stage = lane.op >= 0 ? model.Stage(lane.op) : nullptr;
    lane.host = stage ? trace::HostOf(stage->name) : std::string();
    if (lane.host.empty()) {
      previous = nullptr;
      continue;
    }
    const std::string prefix = trace::HostedName(lane.host, "");
    if (previous && *previous == lane.host && lane.label.starts_with(prefix))
      lane.label.replace(0, prefix.size(), prefix.size(), ' ');
    previous = &lane.host;
  }
}

}  // namespace

bool RedOnlyWhileDeviceIdles(const trace::Model& model) {
  return !trace::DeviceWorkTracks(model).empty() &&
         model.TracksOf(EventKind::kInputWait, record::kConsumerOp).size() == 1;
}

bool ShowsDeviceIdle(const trace::Model& model) {
  return model.run_info().imported_from.empty() || !trace::DeviceWorkTracks(model).empty();
}

std::string OpThreadLabel(const std::string& op, const std::string& thread, size_t* thread_at) {
  // An imported thread is named "process / thread" and its "op" is the process: said once.
  std::string_view own = thread;
  if (own.size() > op.size() + 3 && own.starts_with(op) && own.substr(op.size(), 3) == " / ")
    own.remove_prefix(op.size() + 3);
  // A long identifier (no spaces: "penv#native-main#platform-runtime#...") keeps its ends,
  // where such names differ; names with words (a host's "worker-3: python") stay whole.
  std::string name = op;
  if (name.size() > kLongOpName && name.find(' ') == std::string::npos) {
    name = op.substr(0, kLongOpName / 2 - 2) + "..." + op.substr(op.size() - kLongOpName / 2 + 1);
  }
  if (thread_at) *thread_at = name.size() + 2;
  return name + "  " + std::string(own);
}

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i_end = i, j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
      // Without leading zeros, the longer number is the larger.
      std::string_view x = a.substr(i, i_end - i), y = b.substr(j, j_end - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<Lane> BuildLanes(const trace::Model& model) {
  std::vector<Lane> lanes;
  // The consumer and the device first: where the accelerator waits is the question.
  const char* consumer =
      RedOnlyWhileDeviceIdles(model) ? "consumer (red: device idle)" : "consumer (waits in red)";
  for (const trace::Track* t : model.TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    Lane lane{LaneKind::kConsumer, consumer};
    lane.tracks[lane.track_count++] = t;
    lanes.push_back(lane);
  }
  const trace::Track* steps = model.FindTrack({EventKind::kStep, record::kDeviceOp, 0});
  if (steps) {
    Lane lane{LaneKind::kDevice, "device"};
    lane.tracks[lane.track_count++] = steps;
    lanes.push_back(lane);
  }
  // The spec's disk, where it has one, under the device: busy all the time, it is the limit
  // whatever the ops below do (distiller#202: 22 workers' lanes, each waiting for it).
  if (const trace::Track* disk = model.FindTrack({EventKind::kStorageBusy, record::kNoOp, 0})) {
    Lane lane{LaneKind::kCounter, "disk busy"};
    lane.tracks[lane.track_count++] = disk;
    lane.counter = CounterKind::kStorageBusy;
    lanes.push_back(lane);
  }
  // On a GPU, what the device itself recorded (CUPTI) or an imported trace holds: its
  // kernels and copies, per stream and nesting row (a recording has one of each).
  std::vector<const trace::Track*> gpu_tracks;
  std::map<std::pair<uint32_t, int>, Lane> gpu_lanes;  // by (stream, depth)
  for (auto [kind, label] : {std::pair{EventKind::kGpuKernel, "GPU kernels"},
                             std::pair{EventKind::kGpuMemcpy, "GPU copies"},
                             std::pair{EventKind::kGpuMemset, "GPU sets"}}) {
    for (const trace::Track* t : model.TracksOf(kind, record::kDeviceOp)) {
      gpu_tracks.push_back(t);
      const uint32_t stream = t->key().thread;
      if (stream == 0) {  // a recording: a lane per kind
        Lane lane{LaneKind::kDevice, label};
        lane.tracks[lane.track_count++] = t;
        lanes.push_back(lane);
        continue;
      }
      Lane& lane = gpu_lanes[{stream, t->key().depth}];
      lane.kind = LaneKind::kDevice;
      lane.depth = t->key().depth;
      lane.thread = stream;
      // A nested row continues its stream's track: the name is on the row above.
      lane.label = lane.depth == 0 ? model.ThreadName(stream) : std::string();
      if (lane.track_count < kMaxLaneTracks) lane.tracks[lane.track_count++] = t;
    }
  }
  for (auto& [key, lane] : gpu_lanes) lanes.push_back(lane);
  // Then every op, last (nearest the consumer) first, a sub-lane per thread, threads in the
  // order of their names (decode/0, decode/1, ..., decode/10), not of their ids, which vary
  // from run to run. A recording's rebuilt pipeline defines its ops again under new ids: an
  // op and a thread of the same names continue the same lane (the rebuild's marker shows
  // where), where each rebuild listed every lane again.
  const bool recorded = model.run_info().imported_from.empty();
  auto stages = model.StagesInOrder();
  std::reverse(stages.begin(), stages.end());
  if (model.run_info().imported_from == "hosts") {
    // Hosts (or workers) of a merged view keep their own order (worker0 before worker1); the
    // ops within each are reversed like a single trace's.
    std::map<std::string, size_t> host_order;
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      host_order.emplace(trace::HostOf((*it)->name), host_order.size());
    }
    std::stable_sort(stages.begin(), stages.end(), [&](const auto* x, const auto* y) {
      return host_order.at(trace::HostOf(x->name)) < host_order.at(trace::HostOf(y->name));
    });
  }
  std::vector<std::vector<const record::StageDef*>> ops;  // each op's definitions, oldest first
  {
    std::map<std::string, size_t> by_name;
    for (const record::StageDef* stage : stages) {
      const std::string key = recorded ? stage->name : "#" + std::to_string(stage->id);
      auto [it, added] = by_name.emplace(key, ops.size());
      if (added) ops.emplace_back();
      ops[it->second].push_back(stage);
    }
    for (auto& defs : ops) {
      std::sort(defs.begin(), defs.end(), [](auto* x, auto* y) { return x->id < y->id; });
    }
  }
  for (const auto& defs : ops) {
    const record::StageDef& newest = *defs.back();
    // By (thread name, depth) for a recording; by thread id for an imported trace, whose
    // threads of one name are different threads.
    std::map<std::tuple<std::string, int, uint32_t>, Lane, ThreadOrder> by_thread;
    for (const record::StageDef* stage : defs) {
      // In drawing order: a wait for the interpreter lock lies inside the work (or call) it
      // waits for, and a batch's receipt inside the call that took it: drawn over them.
      for (EventKind kind :
           {EventKind::kIdle, EventKind::kWaitInput, EventKind::kBlocked, EventKind::kCall,
            EventKind::kWork, EventKind::kReceive, EventKind::kLockWait}) {
        for (const trace::Track* t : model.TracksOf(kind, stage->id)) {
          const uint32_t thread = t->key().thread;
          Lane& lane = by_thread[{model.ThreadName(thread), t->key().depth, recorded ? 0 : thread}];
          if (lane.track_count == 0) lane.thread = thread;
          if (lane.track_count < kMaxLaneTracks) lane.tracks[lane.track_count++] = t;
        }
      }
    }
    const std::string indent(static_cast<size_t>(2 * newest.depth), ' ');
    bool named = false;  // the op's name is on a lane above
    for (auto& [key, lane] : by_thread) {
      lane.kind = LaneKind::kOp;
      lane.op = newest.id;  // the live analysis and the verdict name the newest
      lane.depth = std::get<1>(key);
      // A nested row continues its thread's track: the name is on the row above. An op (an
      // imported trace's process) says its name once, on its first thread ("decode
      // decode/0", then "        decode/1"): the column reads as the op and its threads,
      // and they fold into it.
      if (lane.depth > 0) {
        lane.label.clear();
      } else if (named) {
        lane.continues_op = true;
        size_t thread_at = 0;
        const std::string first = OpThreadLabel(newest.name, std::get<0>(key), &thread_at);
        lane.label = indent + std::string(thread_at, ' ') + first.substr(thread_at);
      } else {
        lane.label = indent + OpThreadLabel(newest.name, std::get<0>(key));
        named = true;
      }
      lanes.push_back(lane);
    }
  }
  // Counters last, under the lanes they explain: one per op, its definitions' samples in
  // the order they were taken.
  for (const auto& defs : ops) {
    const record::StageDef& newest = *defs.back();
    // An imported trace's own counters are named as their trace names them.
    Lane lane{LaneKind::kCounter,
              newest.kind == "counter" ? newest.name : newest.name + " buffer fill"};
    lane.op = newest.id;
    lane.counter = CounterKind::kBufferLevel;
    // Buffer levels are sampled every few ms, so their maximum is cheap to find; a map's
    // output buffer can hold more than its buffer_size knob says.
    int64_t peak = 1;
    for (const record::StageDef* stage : defs) {
      const trace::Track* levels = model.FindTrack({EventKind::kBufferLevel, stage->id, 0});
      if (!levels || lane.track_count == kMaxLaneTracks) continue;
      lane.tracks[lane.track_count++] = levels;
      peak = std::max<int64_t>(peak, stage->buffer_size);
      for (size_t i = 0; i < levels->size(); ++i) peak = std::max<int64_t>(peak, levels->value(i));
    }
    if (lane.track_count == 0) continue;
    lane.counter_max = static_cast<double>(peak);
    lanes.push_back(lane);
  }
  // Device utilisation from the GPU's own records where there are some, else from steps.
  if (!gpu_tracks.empty() || steps) {
    Lane lane{LaneKind::kCounter, gpu_tracks.empty() ? "device utilisation" : "GPU utilisation"};
    if (gpu_tracks.empty()) {
      lane.tracks[lane.track_count++] = steps;
    } else {
      lane.busy_tracks = gpu_tracks;
      for (const trace::Track* t : gpu_tracks)
        if (lane.track_count < kMaxLaneTracks) lane.tracks[lane.track_count++] = t;
    }
    lane.counter = CounterKind::kDeviceBusy;
    lanes.push_back(lane);
  }
  if (model.run_info().imported_from == "hosts") GroupByHost(model, lanes);
  return lanes;
}

std::vector<int> TrackParents(const std::vector<Lane>& lanes) {
  std::vector<int> parents(lanes.size(), -1);
  int top = -1;    // the latest lane that starts a track: its nested rows follow it
  int group = -1;  // the latest lane that starts an op's group: its other threads follow it
  int host = -1;   // the latest lane that starts a host's group: its other ops follow it
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    if (group >= 0 && lane.continues_op && lanes[static_cast<size_t>(group)].op == lane.op) {
      parents[i] = group;
      top = static_cast<int>(i);
      continue;
    }
    if (lane.depth == 0 || top < 0) {
      top = group = static_cast<int>(i);
      // A host's first lane heads its group; its other ops' lanes fold into it.
      if (!lane.host.empty() && host >= 0 && lanes[static_cast<size_t>(host)].host == lane.host)
        parents[i] = host;
      else
        host = lane.host.empty() ? -1 : static_cast<int>(i);
      continue;
    }
    const Lane& head = lanes[static_cast<size_t>(top)];
    if (head.kind == lane.kind && head.op == lane.op && head.thread == lane.thread) {
      parents[i] = top;
    }
  }
  return parents;
}

const trace::Track* StepTrackOf(const std::vector<Lane>& lanes) {
  for (const Lane& lane : lanes) {
    if (lane.kind == LaneKind::kDevice && lane.track_count > 0 &&
        lane.tracks[0]->key().kind == EventKind::kStep) {
      return lane.tracks[0];
    }
  }
  return nullptr;
}

const trace::Track* StepTrackOf(const trace::Model& model) {
  return StepTrackOf(BuildLanes(model));
}

size_t LaneFingerprint(const trace::Model& model) {
  size_t h = model.tracks().size();
  for (const record::StageDef* stage : model.StagesInOrder()) {
    h = h * 31 + static_cast<size_t>(stage->id) * 7 + static_cast<size_t>(stage->position) +
        static_cast<size_t>(stage->buffer_size) * 131;
  }
  return h ^ (model.threads().size() << 20);
}

}  // namespace pipescope::ui
