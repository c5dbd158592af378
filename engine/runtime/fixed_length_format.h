#pragma once
// A spec's fixed-length record file (spec::FixedLengthRecordFile) as the reader takes it:
// the one conversion both clocks and the simulator's counting use.

#include "engine/io/fixed_length_record_reader.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

inline Result<FixedLengthRecordFormat> FixedLengthFormatOf(const spec::FixedLengthRecordFile& f) {
  ASSIGN_OR_RETURN(const Compression compression, ParseCompression(f.compression()));
  return FixedLengthRecordFormat{f.record_bytes(), f.header_bytes(), f.footer_bytes(), compression};
}

}  // namespace pipescope::engine
