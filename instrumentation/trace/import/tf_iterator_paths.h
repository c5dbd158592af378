#pragma once
// TensorFlow's iterator paths as a trace gives them, made into the path of each op.
//
// tf.data names each iterator's GetNext span by its prefix: the root "Iterator::Root", each
// input below its consumer ("Iterator::Root::Prefetch::ParallelMapV2"). Two things keep
// that path from naming one op:
// - TensorBoard's trace viewer (and xprof's JSON export) writes the span's display name,
//   the last part only ("Iterator::ParallelMapV2"), and keeps the path in args.long_name;
// - an op with several inputs or passes suffixes its own part in its inputs' prefixes: a
//   zip's inputs are "Zip[0]::..." and "Zip[1]::...", a repeat's epochs "Repeat[0]::...",
//   "Repeat[1]::..." (tf.data's nested_prefix), so every epoch would be a new op.
// The path of an op here is the full prefix with the epoch suffixes of repeats removed;
// zip's input indices stay (they are different ops).

#include <string>
#include <string_view>

#include "instrumentation/trace/import/trace_events.h"

namespace pipescope::trace {

// `path` without the epoch suffixes of its repeat parts: "Iterator::Root::ForeverRepeat[3]::
// Map" -> "Iterator::Root::ForeverRepeat::Map". Other suffixes stay.
std::string OpPathOfIterator(std::string_view path);

// The path of the op that `path` is an input of, as that op's own spans name it (its part
// without an input index): "Iterator::Root::Zip[1]::Map" -> "Iterator::Root::Zip"; "" for
// the root.
std::string ConsumerOfIterator(std::string_view path);

// Renames every "Iterator::..." span to its op's path (OpPathOfIterator), taking the path
// from args.long_name where the trace viewer put it there.
void NameIteratorSpansByPath(TraceEvents& t);

}  // namespace pipescope::trace
