#pragma once
// Stage traits for .pstrace files written before stages carried them (a Stage without its
// `traits` field): the op kinds those builds knew, by name. The one place outside the op
// descriptions that names kinds; newer files say what each stage does themselves.

#include <cstdint>
#include <string_view>

namespace pipescope::trace {

// record::StageTrait bits of an op of `kind` as recorded by a build before traits; 0 for a
// kind it did not know (a filter, a shuffle, an imported stage).
uint32_t LegacyStageTraits(std::string_view kind);

}  // namespace pipescope::trace
