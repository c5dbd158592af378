#include "instrumentation/trace/import/host_merge.h"

#include <algorithm>
#include <limits>
#include <map>

#include "instrumentation/trace/verdict.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

constexpr int kPositionsPerHost = 1000;  // keeps a host's ops together, in their order

// What each host's lanes other than its ops become: ops of their own, named after it.
struct HostLanes {
  uint16_t steps, waits, gpu;
};

}  // namespace

MergedHosts MergeHosts(const std::vector<HostTrace>& hosts) {
  MergedHosts out;
  out.model = std::make_unique<Model>();
  Model& merged = *out.model;
  int64_t earliest = std::numeric_limits<int64_t>::max();
  bool clocks = true;
  for (const auto& h : hosts) {
    const int64_t origin = h.model->run_info().clock.origin_unix_ns;
    clocks &= origin != 0;
    earliest = std::min(earliest, origin);
  }
  if (!clocks) {
    out.warnings.push_back(
        "a trace has no clock to align on: all are aligned at their first event");
  }
  uint16_t next_stage = 0;
  uint32_t next_thread = 1;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const Model& m = *hosts[h].model;
    const std::string& host = hosts[h].host;
    const int64_t shift = clocks ? m.run_info().clock.origin_unix_ns - earliest : 0;
    const int base = static_cast<int>(h) * kPositionsPerHost;
    out.hosts.emplace_back(host, SummarizeFramework(m));

    std::map<uint16_t, uint16_t> stage_of;
    auto add_stage = [&](const std::string& name, const std::string& kind, int position) {
      record::StageDef def;
      def.id = next_stage++;
      def.name = HostedName(host, name);
      def.kind = kind;
      def.position = base + position;
      merged.AddStage(def);
      return def.id;
    };
    for (const record::StageDef* stage : m.StagesInOrder()) {
      record::StageDef def = *stage;
      def.id = next_stage++;
      def.name = HostedName(host, stage->name);
      def.position = base + kPositionsPerHost / 2 + stage->position;
      stage_of[stage->id] = def.id;
      merged.AddStage(def);
    }
    for (const record::StageDef* stage : m.StagesInOrder()) {
      if (stage->input < 0 || !stage_of.count(static_cast<uint16_t>(stage->input))) continue;
      record::StageDef def = *merged.Stage(stage_of[stage->id]);
      def.input = stage_of[static_cast<uint16_t>(stage->input)];
      merged.AddStage(def);
    }
    const HostLanes lanes{add_stage("steps", "host steps", kPositionsPerHost - 1),
                          add_stage("input wait", "host input wait", kPositionsPerHost - 2),
                          add_stage("GPU", "host device", kPositionsPerHost - 3)};
    std::map<uint32_t, uint32_t> thread_of;
    std::vector<uint32_t> label_of;  // this host's label ids → the merged model's
    auto thread = [&](uint32_t t) {
      auto [it, added] = thread_of.emplace(t, 0);
      if (added) {
        it->second = next_thread++;
        // The lane's op already names the host.
        merged.AddThread({it->second, t == 0 ? "device" : m.ThreadName(t)});
      }
      return it->second;
    };
    for (const auto& track : m.tracks()) {
      const TrackKey& key = track->key();
      uint16_t op = key.op;
      EventKind kind = key.kind;
      if (key.op == record::kDeviceOp) {
        op = key.kind == EventKind::kStep ? lanes.steps : lanes.gpu;
        kind = EventKind::kCall;
      } else if (key.op == record::kConsumerOp) {
        op = lanes.waits;
        kind = EventKind::kCall;
      } else if (auto it = stage_of.find(key.op); it != stage_of.end()) {
        op = it->second;
      } else {
        continue;
      }
      // Names, arguments and nesting depths come along; the names interned anew.
      Track& into = merged.TrackFor({kind, op, thread(key.thread), key.depth});
      for (size_t i = 0; i < track->size(); ++i) {
        uint32_t label = track->label(i);
        if (label != 0) {
          if (label_of.size() < m.labels().size()) label_of.resize(m.labels().size(), UINT32_MAX);
          if (label_of[label] == UINT32_MAX)
            label_of[label] =
                merged.labels().Intern(m.labels()[label].name, m.labels()[label].category);
          label = label_of[label];
        }
        const uint32_t args = track->args(i) != 0 ? merged.args().Add(m.args()[track->args(i)]) : 0;
        into.Append(track->start(i) + shift, track->end(i) + shift, track->element(i),
                    track->value(i), track->calls(i), label, args);
        merged.ExtendDuration(track->end(i) + shift);
      }
    }
    for (const auto& marker : m.markers())
      merged.AddMarker({marker.time_ns + shift, HostedName(host, marker.text)});
    for (const auto& note : m.annotations())
      merged.AddAnnotation(
          {note.start_ns + shift, note.end_ns + shift, HostedName(host, note.text), note.author});
  }
  RunInfo& info = merged.run_info();
  info.pipeline_name = std::to_string(hosts.size()) + " hosts";
  info.imported_from = "hosts";
  info.producer = "merged traces";
  info.clock.origin_unix_ns = clocks ? earliest : 0;
  merged.Finish();

  // The host that waits most for input is where to look first, among those whose traces
  // record the wait.
  const std::pair<std::string, FrameworkSummary>* worst = nullptr;
  bool any_steps = false;
  for (const auto& h : out.hosts) {
    any_steps |= h.second.steps > 0;
    if (h.second.steps > 0 && h.second.input_measured &&
        (!worst || h.second.input_wait_fraction > worst->second.input_wait_fraction))
      worst = &h;
  }
  if (!any_steps) {
    out.verdict = "No host's trace has training steps.";
  } else if (!worst) {
    out.verdict =
        "No host's trace records its wait for input (a DataLoader's __next__): how long the "
        "steps wait for data is not measured, and input marked only by the job's own "
        "annotations is not read as such; each host's verdict says what its device does.";
  } else if (worst->second.input_wait_fraction < 0.0005) {
    // Naming a host "waiting most" at 0% would send people looking for nothing.
    out.verdict = "No host waits for input: every host's steps ran without waiting for data.";
  } else {
    out.verdict = worst->first + " waits most for input (" +
                  FormatPercent(worst->second.input_wait_fraction) +
                  " of its step time): " + worst->second.verdict;
  }
  return out;
}

std::string HostedName(const std::string& host, const std::string& name) {
  return host + ": " + name;
}

std::string HostOf(const std::string& hosted_name) {
  const size_t colon = hosted_name.find(": ");
  return colon == std::string::npos ? std::string() : hosted_name.substr(0, colon);
}

}  // namespace pipescope::trace
