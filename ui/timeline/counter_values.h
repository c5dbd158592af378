#pragma once
// A counter lane's value at each pixel of the view, computed from the model before the
// lane is drawn (the drawing only turns values into heights): a buffer's level, the mean
// of its samples in the pixel (the last sample before where there is none), reading the
// newest definition of a rebuilt op; the device's busy share over a window of at least
// 50 ms around the pixel, the streams' overlap capped at 100%. Pixels after `known_ns`
// (a live run's "now") are 0: nothing is known there yet. The model's lock is held by the
// caller.
//
// With `summaries` (the frame's per-pixel summaries of the device's tracks), a pixel whose
// window lies inside the view reads its busy time from them, the window's edges taken as
// fractions of their pixels, instead of two searches and two sums over the track: the
// device lane cost a zoomed-out frame 1.4 ms of its 2.2 over 24 M steps.

#include <cstdint>
#include <vector>

#include "ui/timeline/lanes.h"
#include "ui/timeline/summary_cache.h"
#include "ui/timeline/time_axis.h"

namespace pipescope::ui {

inline constexpr int64_t kMinCounterWindowNs = 50'000'000;  // busy share over ≥ 50 ms

// The device-busy window at this zoom: four pixels, at least kMinCounterWindowNs.
int64_t CounterWindowNs(const TimeAxis& axis);

// `values` gets one value per pixel of `axis` (`pixels` of them).
void CounterValues(const Lane& lane, const TimeAxis& axis, int pixels, int64_t known_ns,
                   std::vector<float>& values, SummaryCache* summaries = nullptr);

}  // namespace pipescope::ui
