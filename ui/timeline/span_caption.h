#pragma once
// What a span says inside itself on the timeline when it is wide enough: an imported span
// its own name; a recorded one its op, element and duration ("decode #841 3.2 ms"), so that
// zoomed in, a lane reads without hovering. The tooltip says more; this is one line.

#include <cstddef>
#include <string>

#include "instrumentation/trace/model.h"

namespace pipescope::ui {

std::string SpanCaption(const trace::Model& model, const trace::Track& track, size_t i);

}  // namespace pipescope::ui
