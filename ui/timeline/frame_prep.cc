#include "ui/timeline/frame_prep.h"

#include <algorithm>
#include <functional>

#include "instrumentation/trace/device_gaps.h"
#include "ui/timeline/counter_values.h"
#include "ui/timeline/coverage.h"
#include "ui/timeline/markers_in_view.h"
#include "ui/timeline/palette.h"
#include "ui/timeline/span_caption.h"

namespace pipescope::ui {
namespace {

using record::EventKind;

// A device pixel idle for less than this share of its time shows nothing.
constexpr double kMinIdleShare = 0.02;
// A note's label: its first line, at most this long.
constexpr size_t kNoteLabelChars = 40;
// Of a span's arguments, the tooltip shows this many characters.
constexpr size_t kTooltipArgsChars = 400;
constexpr size_t kTooltipFlows = 4;

}  // namespace

void FramePrep::Clear() {
  summaries_.Clear();
  idle_waits_key_ = 0;
  idle_waits_.clear();
}

void FramePrep::Prepare(const FrameRequest& r, FrameContent& out) {
  axis_ = r.axis;
  axis_.x = 0;
  pixels_ = std::max(1, static_cast<int>(axis_.width));
  const trace::Model& model = *r.model;
  const std::vector<Lane>& lanes = *r.lanes;
  out.pixels = pixels_;
  out.pixel_ns = axis_.span() / pixels_;
  out.lanes.resize(lanes.size());
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    LaneContent& c = out.lanes[i];
    c = LaneContent{};
    c.in_view = i < r.in_view.size() && r.in_view[i];
    if (!c.in_view) continue;
    c.matches = r.search->LaneMatches(&model, lane);
    const bool named_matches = r.search->LaneHasMatchingSpans(lane);
    if (lane.kind == LaneKind::kCounter) {
      CounterValues(lane, axis_, pixels_, model.duration_ns(), c.values, &summaries_);
      c.counter_window_ns = CounterWindowNs(axis_);
      continue;
    }
    if (lane.kind != LaneKind::kConsumer || !PrepareConsumerWaits(r, lane, c))
      PrepareSpans(r, lane, r.search->active() && !c.matches && !named_matches, c);
    if (lane.kind == LaneKind::kDevice && lane.tracks[0]->key().kind == EventKind::kStep)
      PrepareDeviceIdle(r, lane, c);
    if (named_matches) {
      // The spans whose name matches, at most kMaxOutlines a lane and frame (zoomed out,
      // thousands of matches are one band anyway).
      constexpr size_t kMaxOutlines = 20'000;
      for (int k = 0; k < lane.track_count; ++k) {
        const trace::Track& track = *lane.tracks[k];
        if (!r.search->tracks.contains(&track)) continue;
        float last = -1e9f;
        for (size_t s = track.FirstEndingAfter(axis_.t0);
             s < track.size() && track.start(s) < axis_.t1 && c.outlines.size() < kMaxOutlines;
             ++s) {
          if (!r.search->labels[track.label(s)]) continue;
          const float a = std::max(axis_.ToPixel(track.start(s)), 0.0f);
          const float b = std::min(std::max(axis_.ToPixel(track.end(s)), a + 2), axis_.width);
          if (b <= last) continue;  // within a pixel already outlined
          c.outlines.emplace_back(a, b);
          last = b;
        }
      }
    }
  }
  out.has_plot = r.steps != nullptr;
  out.plot = r.steps != nullptr ? BuildRatePlot(*r.steps, axis_) : RatePlot{};
  out.overlay = r.overlay_steps != nullptr ? BuildRatePlot(*r.overlay_steps, axis_) : RatePlot{};
  PrepareOverlays(r, out);
  PrepareTooltip(r, out);
}

void FramePrep::PrepareSpans(const FrameRequest& r, const Lane& lane, bool dimmed,
                             LaneContent& out) {
  const double bucket_ns = axis_.span() / pixels_;
  out.tracks.resize(static_cast<size_t>(lane.track_count));
  for (int k = 0; k < lane.track_count; ++k) {
    const trace::Track* track = lane.tracks[k];
    TrackInView& t = out.tracks[static_cast<size_t>(k)];
    const auto& buckets = summaries_.Of(*track, axis_.t0, axis_.t1, pixels_);
    t.color = ColorOf(track->key().kind);
    if (dimmed && !r.search->KindMatches(track->key().kind)) t.color = WithAlpha(t.color, 70);
    for (int p = 0; p < pixels_; ++p) {
      const auto covered = static_cast<double>(buckets[static_cast<size_t>(p)].covered_ns);
      if (covered <= 0) continue;
      // Runs of fully covered pixels become one rectangle; a partly covered pixel is filled
      // from the bottom in proportion to its coverage (coverage.h).
      int q = p;
      while (q + 1 < pixels_ &&
             static_cast<double>(buckets[static_cast<size_t>(q) + 1].covered_ns) >=
                 bucket_ns * kFullPixelShare)
        ++q;
      t.runs.push_back({p, q, covered});
      if (q - p >= kMinLabelPixels)
        PrepareNames(*r.model, *track, p, q, static_cast<int>(t.color >> 24), t);
      p = q;
    }
  }
}

void FramePrep::PrepareNames(const trace::Model& model, const trace::Track& track, int p, int q,
                             int alpha, TrackInView& out) const {
  // The spans in a run of covered pixels [p, q], each named inside itself where it is wide
  // enough: one binary search per span named, nothing for runs too narrow to hold a name.
  // An imported span that wide is also painted in its name's colour (NameColor).
  const auto right = static_cast<float>(q + 1);
  auto x = static_cast<float>(p);
  for (size_t i = track.FirstEndingAfter(axis_.ToTime(x)); i < track.size() && x < right - 4; ++i) {
    const float a = std::max(axis_.ToPixel(track.start(i)), x);
    const float b = std::min(axis_.ToPixel(track.end(i)), right);
    x = b;
    if (b - a < kMinLabelPixels) {
      if (track.start(i) > axis_.t1) break;
      // Past the narrow ones, and always past this one (pixel rounding may map b + 1 back
      // into it).
      i = std::max(track.FirstEndingAfter(axis_.ToTime(b + 1)), i + 1) - 1;
      continue;
    }
    SpanNameInView name;
    name.a = a;
    name.b = b;
    name.caption = SpanCaption(model, track, i);
    if (track.label(i) != 0) {
      name.painted = true;
      name.paint = NameColor(model.SpanName(track, i), alpha);
    }
    out.names.push_back(std::move(name));
  }
}

void FramePrep::RefreshIdleWaits(const trace::Model& model) {
  size_t key = std::hash<const void*>()(&model);
  const std::vector<const trace::Track*> device_work = trace::DeviceWorkTracks(model);
  for (const trace::Track* t : device_work) key = key * 31 + t->size();
  for (const trace::Track* t : model.TracksOf(EventKind::kInputWait, record::kConsumerOp))
    key = key * 31 + t->size();
  if (key == idle_waits_key_) return;
  idle_waits_key_ = key;
  async_device_ = RedOnlyWhileDeviceIdles(model);
  idle_waits_ = async_device_ ? trace::WaitsWhileDeviceIdle(model) : std::vector<trace::Interval>{};
}

bool FramePrep::PrepareConsumerWaits(const FrameRequest& r, const Lane& lane, LaneContent& out) {
  // On an asynchronous device every wait is faint, and red the part during which the device
  // idled too; on a synchronous one every wait is red (a plain span lane).
  RefreshIdleWaits(*r.model);
  if (!async_device_) return false;
  out.split_waits = true;
  const auto& waits = summaries_.Of(*lane.tracks[0], axis_.t0, axis_.t1, pixels_);
  out.waited_ns.resize(static_cast<size_t>(pixels_));
  for (int p = 0; p < pixels_; ++p) {
    out.waited_ns[static_cast<size_t>(p)] =
        static_cast<double>(waits[static_cast<size_t>(p)].covered_ns);
  }
  CoverageByPixel(idle_waits_, axis_.t0, axis_.t1, pixels_, out.idle_wait_ns);
  return true;
}

void FramePrep::PrepareDeviceIdle(const FrameRequest& r, const Lane& lane, LaneContent& out) {
  const trace::Model& model = *r.model;
  const double bucket_ns = axis_.span() / pixels_;
  const bool imported = !model.run_info().imported_from.empty();
  if (!ShowsDeviceIdle(model)) return;  // nothing says when the device idled
  // Busy: the device's own records where it has them (the sum over streams, at most the
  // pixel: a per-pixel summary has no union), else its steps.
  std::vector<double> busy(static_cast<size_t>(pixels_), 0.0);
  const std::vector<const trace::Track*> device_work = trace::DeviceWorkTracks(model);
  const bool any = !device_work.empty();
  for (const trace::Track* t : device_work) {
    const auto& work = summaries_.Of(*t, axis_.t0, axis_.t1, pixels_);
    for (int p = 0; p < pixels_; ++p)
      busy[static_cast<size_t>(p)] += static_cast<double>(work[static_cast<size_t>(p)].covered_ns);
  }
  const auto& step_buckets = summaries_.Of(*lane.tracks[0], axis_.t0, axis_.t1, pixels_);
  out.device_idle_ns.assign(static_cast<size_t>(pixels_), 0.0);
  // Idle only up to the trace's end: past a live run's "now" nothing is known, and red
  // there looked like a stall.
  const int known = axis_.PixelsBefore(model.duration_ns(), pixels_);
  for (int p = 0; p < known; ++p) {
    const auto step_ns = static_cast<double>(step_buckets[static_cast<size_t>(p)].covered_ns);
    const double busy_ns = any ? std::min(busy[static_cast<size_t>(p)], bucket_ns) : step_ns;
    // A recording's device idles wherever it is not busy; an imported trace's within steps.
    const double window = imported ? step_ns : bucket_ns;
    const double idle = std::max(0.0, window - busy_ns);
    if (idle >= bucket_ns * kMinIdleShare) out.device_idle_ns[static_cast<size_t>(p)] = idle;
  }
}

void FramePrep::PrepareOverlays(const FrameRequest& r, FrameContent& out) const {
  const trace::Model& model = *r.model;
  const std::vector<Lane>& lanes = *r.lanes;
  out.notes.clear();
  for (const auto& note : model.annotations()) {
    NoteInView n;
    n.start_ns = note.start_ns;
    n.end_ns = note.end_ns;
    n.label = note.text.substr(0, std::min(note.text.find('\n'), kNoteLabelChars));
    n.text = note.text;
    n.author = note.author;
    out.notes.push_back(std::move(n));
  }
  out.knob_changes.clear();
  for (const auto& k : model.knob_changes()) {
    if (k.time_ns < axis_.t0 || k.time_ns >= axis_.t1) continue;
    const record::StageDef* stage = model.Stage(k.op);
    out.knob_changes.push_back({k.time_ns, (stage ? stage->name : std::string("?")) + "." + k.knob,
                                k.who, k.from, k.to, k.who.starts_with("autotuner")});
  }
  // Markers: all of those in view, or as ticks one per pixel (markers_in_view.h).
  const MarkersInView shown = FindMarkersInView(model.markers(), axis_);
  out.markers_as_ticks = shown.as_ticks;
  out.markers.clear();
  float last_pixel = -1;
  for (size_t i = shown.first; i < shown.last; ++i) {
    const record::MarkerDef& m = model.markers()[i];
    const float px = std::floor(axis_.ToPixel(m.time_ns));
    if (shown.as_ticks && px == last_pixel) continue;
    last_pixel = px;
    out.markers.push_back({m.time_ns, m.text});
  }
  // Outlined spans: the path, then the search's match, each on the lanes showing its track.
  auto lanes_of = [&](const trace::Track* track) {
    std::vector<int> held;
    for (size_t l = 0; l < lanes.size(); ++l) {
      const Lane& lane = lanes[l];
      if (lane.kind != LaneKind::kCounter && std::find(lane.tracks, lane.tracks + lane.track_count,
                                                       track) != lane.tracks + lane.track_count)
        held.push_back(static_cast<int>(l));
    }
    return held;
  };
  out.boxes.clear();
  if (r.path != nullptr) {
    for (const OutlinedSpan& span : *r.path) {
      const float a = axis_.ToPixel(span.start);
      const float b = std::max(axis_.ToPixel(span.end), a + 2);
      if (b < 0 || a > axis_.width) continue;
      out.boxes.push_back({a, b, lanes_of(span.track)});
    }
  }
  out.has_match_box = false;
  if (r.match_track != nullptr && r.match_index < r.match_track->size() && r.search->active()) {
    const float a = axis_.ToPixel(r.match_track->start(r.match_index));
    const float b = std::max(axis_.ToPixel(r.match_track->end(r.match_index)), a + 2);
    out.boxes.push_back({a, b, lanes_of(r.match_track)});
    out.has_match_box = true;
  }
}

void FramePrep::PrepareTooltip(const FrameRequest& r, FrameContent& out) const {
  SpanTooltip& tip = out.tooltip;
  tip = SpanTooltip{};
  const std::vector<Lane>& lanes = *r.lanes;
  if (r.hovered_lane < 0 || static_cast<size_t>(r.hovered_lane) >= lanes.size()) return;
  const Lane& lane = lanes[static_cast<size_t>(r.hovered_lane)];
  if (lane.kind == LaneKind::kCounter) return;  // counters say their value when drawn
  const trace::Model& model = *r.model;
  const int64_t t = r.hovered_t;
  using Style = TooltipLine::Style;
  auto line = [&](std::string text, Style style = Style::kPlain) {
    tip.lines.push_back({std::move(text), style});
  };
  for (int k = lane.track_count - 1; k >= 0; --k) {
    const trace::Track* track = lane.tracks[k];
    const size_t i = track->FirstEndingAfter(t);
    if (i >= track->size() || track->start(i) > t) continue;
    tip.shown = true;
    tip.key = (static_cast<uint64_t>(track->id()) << 40) ^ i;
    if (track->label(i) != 0) {
      const trace::SpanLabel& label = model.labels()[track->label(i)];
      line(label.name, Style::kWrapped);
      if (!label.category.empty()) line(label.category, Style::kDim);
    } else {
      line(record::KindLabel(track->key().kind));
    }
    line(lane.label);
    // The start as precisely as a pixel tells times apart at this zoom.
    line("start " + FormatTimeAt(track->start(i), axis_.ns_per_pixel()) + ", duration " +
         FormatDuration(track->duration(i)));
    const uint32_t calls = track->calls(i);
    if (calls > 1) {
      line("a run of " + std::to_string(calls) + " calls, elements " +
           std::to_string(track->element(i)) + " to " +
           std::to_string(track->element(i) + calls - 1));
    } else if (track->element(i) != 0) {
      line("element " + std::to_string(track->element(i)) + " (click: its path)");
    }
    if (track->key().kind == EventKind::kCall) {
      line("own work " + FormatDuration(track->value(i)) + (calls > 1 ? " in all" : ""));
    }
    if ((track->key().kind == EventKind::kGpuMemcpy ||
         track->key().kind == EventKind::kGpuMemset) &&
        track->value(i) > 0) {
      line(std::to_string(track->value(i)) + " bytes");
    }
    if (const std::string_view args = model.args()[track->args(i)]; !args.empty()) {
      line(std::string(args.substr(0, kTooltipArgsChars)) +
               (args.size() > kTooltipArgsChars ? "..." : ""),
           Style::kDimWrapped);
    }
    const trace::EventRef self{track->id(), static_cast<uint32_t>(i)};
    const auto flows = model.FlowsOf(self);
    // Each flow as an arrow from the start of its first span to the start of its second, in
    // the lanes that show them (an end whose lane is scrolled away is not drawn).
    auto where = [&](trace::EventRef e) -> std::pair<int, float> {
      const trace::Track* other = model.tracks()[e.track].get();
      for (size_t l = 0; l < lanes.size(); ++l) {
        if (std::find(lanes[l].tracks, lanes[l].tracks + lanes[l].track_count, other) ==
            lanes[l].tracks + lanes[l].track_count)
          continue;
        return {static_cast<int>(l),
                std::clamp(axis_.ToPixel(other->start(e.index)), 0.0f, axis_.width)};
      }
      return {-1, 0};
    };
    for (const trace::Flow& f : flows) {
      const auto [from_lane, from_x] = where(f.from);
      const auto [to_lane, to_x] = where(f.to);
      if (from_lane >= 0 && to_lane >= 0) tip.flows.push_back({from_lane, from_x, to_lane, to_x});
    }
    for (size_t f = 0; f < flows.size() && f < kTooltipFlows; ++f) {
      const trace::EventRef other = flows[f].from == self ? flows[f].to : flows[f].from;
      const std::string name(model.SpanName(*model.tracks()[other.track], other.index));
      line(std::string(flows[f].to == self ? "from " : "to ") +
               model.labels()[flows[f].label].name + ": " + name.substr(0, 80),
           Style::kDim);
    }
    if (lane.kind == LaneKind::kConsumer) line("click: which op caused this wait", Style::kDim);
    return;
  }
}

}  // namespace pipescope::ui
