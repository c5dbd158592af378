#pragma once
// What the timeline draws, lane by lane, built from a trace model: the consumer (its input
// waits), the device (its steps), the disk's busy share where the spec names a disk, then
// every op from the one nearest the consumer up to the sources with a sub-lane per worker
// thread, and the counter lanes (buffer fill of each buffered op, device utilisation); the
// steps/s plot above them counts the device's steps. An imported trace's nested spans get a lane
// per depth under their thread, and each GPU stream lanes of its own. No drawing here: the lanes
// are plain data, tested without a display.

#include <string>
#include <string_view>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::ui {

enum class LaneKind {
  kConsumer,  // kInputWait spans
  kDevice,    // kStep spans
  kOp,        // an op's spans on one thread
  kCounter,   // a value over time, drawn as a filled graph
};

enum class CounterKind {
  kBufferLevel,  // an op's buffer level samples, out of its capacity
  kDeviceBusy,   // share of each pixel's time covered by device steps
  kStorageBusy,  // share of each pixel's time the spec's disk was busy (its samples' amounts)
};

// Whether a counter lane draws a share of time (0 to 1, shown as a percentage busy).
inline bool IsBusyShare(CounterKind kind) {
  return kind == CounterKind::kDeviceBusy || kind == CounterKind::kStorageBusy;
}

inline constexpr int kMaxLaneTracks = 16;

struct Lane {
  LaneKind kind = LaneKind::kOp;
  std::string label;
  int op = -1;  // stage id for op and buffer lanes
  uint32_t thread = 0;
  // Drawn in order, later ones on top; a rebuilt pipeline's op adds its new definition's.
  const trace::Track* tracks[kMaxLaneTracks] = {};
  int track_count = 0;
  int depth = 0;  // an imported trace's nesting row on the thread
  // An op lane after its op's first one (another thread of the same op, or of an imported
  // trace's process): it belongs to the first one's group, which folds them together.
  bool continues_op = false;
  // The host whose lanes this one is among, in a view of several hosts' traces (their ops
  // are named "host: op", host_merge.h); empty otherwise.
  std::string host;
  // The device utilisation lane: every device track (a trace may have many streams).
  std::vector<const trace::Track*> busy_tracks;
  CounterKind counter = CounterKind::kBufferLevel;
  double counter_max = 1;  // the value drawn at full height
};

std::vector<Lane> BuildLanes(const trace::Model& model);

// "decode/2" before "decode/10": names compared with their numbers as numbers.
bool NaturalLess(std::string_view a, std::string_view b);

// An op lane's label: the op and its thread, without saying an imported thread's process
// twice ("GPU 0  stream 7", not "GPU 0  GPU 0 / stream 7"), an identifier longer than
// kLongOpName shortened in its middle so that the thread stays in the label column.
inline constexpr size_t kLongOpName = 14;
// `thread_at`, where given, is where the thread's part starts.
std::string OpThreadLabel(const std::string& op, const std::string& thread,
                          size_t* thread_at = nullptr);

// Whether the consumer lane paints red only the waits during which the device idled: when
// the trace holds the device's own work (a GPU, which runs queued steps while the host
// waits) and there is one consumer (with several, the union of their waits is no one
// lane's). Otherwise every wait is red: a synchronous step never overlaps one.
bool RedOnlyWhileDeviceIdles(const trace::Model& model);

// Whether the device lane paints the device's idle time: always for a recording; for an
// imported trace only when it holds the device's own work (within steps, nothing else says
// when it idled).
bool ShowsDeviceIdle(const trace::Model& model);

// Foldable groups, three deep: in a view of several hosts, a host is its first lane and
// the lanes of its other ops; an op (an imported trace's process) is its first thread's
// lane and its other threads' lanes; a thread's (or GPU stream's) track is its depth-0 lane
// and the deeper rows right under it, which continue it without a label of their own.
// parents[i] is the index of the lane that heads lane i's group (for another op of a host,
// the host's first lane; for another thread of an op, the op's first lane; for a nested
// row, its thread's lane), -1 for a lane that heads one (or none). Folding a lane hides
// every lane whose chain of parents reaches it.
std::vector<int> TrackParents(const std::vector<Lane>& lanes);

// The steps the steps/s plot counts: the first device lane's steps; nullptr when the trace
// has none (a trace of kernels only).
const trace::Track* StepTrackOf(const std::vector<Lane>& lanes);
const trace::Track* StepTrackOf(const trace::Model& model);

// A fingerprint that changes when BuildLanes would give another answer (a live run adds
// tracks and stages as it goes).
size_t LaneFingerprint(const trace::Model& model);

}  // namespace pipescope::ui
