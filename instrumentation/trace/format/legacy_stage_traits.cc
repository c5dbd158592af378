#include "instrumentation/trace/format/legacy_stage_traits.h"

#include "instrumentation/record/trace_sink.h"

namespace pipescope::trace {

uint32_t LegacyStageTraits(std::string_view kind) {
  using namespace record;  // NOLINT(google-build-using-namespace): the trait names
  if (kind == "range" || kind == "synthetic" || kind == "list_files" || kind == "tfrecord" ||
      kind == "synthetic_file" || kind == "from_element") {
    return kTraitSource;
  }
  if (kind == "batch") return kTraitBatches;
  if (kind == "unbatch") return kTraitUnbatches;
  if (kind == "cache") return kTraitReplays;
  if (kind == "shuffle") return kTraitDrawsOrderFromBuffer;
  if (kind == "repeat") return kTraitRepeats;
  if (kind == "prefetch") return kTraitOneProducer;
  if (kind == "map") return kTraitParallelFunction;
  if (kind == "interleave") return kTraitParallelReads;
  return 0;
}

}  // namespace pipescope::trace
