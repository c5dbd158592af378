#include "ui/timeline/lanes.h"

#include <algorithm>
#include <map>

#include "instrumentation/trace/intervals.h"

namespace pipescope::ui {

using record::EventKind;

bool RedOnlyWhileDeviceIdles(const trace::Model& model) {
  return !trace::DeviceWorkTracks(model).empty() &&
         model.TracksOf(EventKind::kInputWait, record::kConsumerOp).size() == 1;
}

bool ShowsDeviceIdle(const trace::Model& model) {
  return model.run_info().imported_from.empty() || !trace::DeviceWorkTracks(model).empty();
}

std::string OpThreadLabel(const std::string& op, const std::string& thread) {
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
  return name + "  " + std::string(own);
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
      if (lane.track_count < 4) lane.tracks[lane.track_count++] = t;
    }
  }
  for (auto& [key, lane] : gpu_lanes) lanes.push_back(lane);
  // Then every op, last (nearest the consumer) first, a sub-lane per thread.
  auto stages = model.StagesInOrder();
  std::reverse(stages.begin(), stages.end());
  for (const record::StageDef* stage : stages) {
    std::map<std::pair<uint32_t, int>, Lane> by_thread;  // by (thread, depth)
    for (EventKind kind : {EventKind::kIdle, EventKind::kWaitInput, EventKind::kBlocked,
                           EventKind::kCall, EventKind::kWork}) {
      for (const trace::Track* t : model.TracksOf(kind, stage->id)) {
        Lane& lane = by_thread[{t->key().thread, t->key().depth}];
        if (lane.track_count < 4) lane.tracks[lane.track_count++] = t;
      }
    }
    const std::string indent(static_cast<size_t>(2 * stage->depth), ' ');
    for (auto& [key, lane] : by_thread) {
      lane.kind = LaneKind::kOp;
      lane.op = stage->id;
      lane.thread = key.first;
      lane.depth = key.second;
      // A nested row continues its thread's track: the name is on the row above.
      lane.label = key.second == 0
                       ? indent + OpThreadLabel(stage->name, model.ThreadName(key.first))
                       : std::string();
      lanes.push_back(lane);
    }
  }
  // Counters last, under the lanes they explain.
  for (const record::StageDef* stage : stages) {
    const trace::Track* levels = model.FindTrack({EventKind::kBufferLevel, stage->id, 0});
    if (!levels) continue;
    // An imported trace's own counters are named as their trace names them.
    Lane lane{LaneKind::kCounter,
              stage->kind == "counter" ? stage->name : stage->name + " buffer fill"};
    lane.op = stage->id;
    lane.tracks[lane.track_count++] = levels;
    lane.counter = CounterKind::kBufferLevel;
    // Buffer levels are sampled every few ms, so their maximum is cheap to find; a map's
    // output buffer can hold more than its buffer_size knob says.
    uint32_t peak = 1;
    for (size_t i = 0; i < levels->size(); ++i) peak = std::max(peak, levels->value(i));
    lane.counter_max = static_cast<double>(std::max<int64_t>(stage->buffer_size, peak));
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
        if (lane.track_count < 4) lane.tracks[lane.track_count++] = t;
    }
    lane.counter = CounterKind::kDeviceBusy;
    lanes.push_back(lane);
  }
  return lanes;
}

std::vector<int> TrackParents(const std::vector<Lane>& lanes) {
  std::vector<int> parents(lanes.size(), -1);
  int top = -1;  // the latest lane that starts a track
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    if (lane.depth == 0 || top < 0) {
      top = static_cast<int>(i);
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
