#pragma once
// Bracket depth over JSON text, outside its strings: where a value that is open closes,
// and whether a piece of an event array holds whole events. The importer's pieces are
// checked with the second before simdjson parses them (simdjson's on-demand parser
// checks only what it visits, so a piece cut inside an event could pass for a shorter one),
// which made it a seventh of an import: it runs on 64-byte blocks where the processor
// allows (AVX2, on x86 since 2013; older ones and other architectures walk byte by byte).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace pipescope::trace {

// The index just past the bracket that brings `depth` (the brackets open at `from`) to
// zero, or npos if the text ends first (or inside a string).
size_t BracketClose(std::string_view t, size_t from, int64_t depth);

// Whether `piece` is whole values: outside strings its brackets balance and never close
// more than they opened, and no string is left open. `piece` must be followed by 64
// readable bytes (simdjson's padding, or more text).
bool WholeEvents(std::string_view piece);
// The same, one byte at a time (the reference the block versions are tested against).
bool WholeEventsScalar(std::string_view piece);

// The block versions this processor runs (AVX2 with carry-less multiply; an ARM version
// would join it), fastest first: WholeEvents uses the first, tests check each against
// WholeEventsScalar.
struct WholeEventsVersion {
  const char* name;
  bool (*check)(std::string_view piece);
};
std::vector<WholeEventsVersion> WholeEventsBlockVersions();

}  // namespace pipescope::trace
