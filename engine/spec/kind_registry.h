#pragma once
// A table from op kind to what one part of Pipescope needs of it (an engine factory, a
// simulator factory, a value rule), filled at start-up by the kinds' own files
// (engine/kinds/op_kind_registration.h). One table per Entry type.

#include <map>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

template <typename Entry>
class KindRegistry {
 public:
  static void Register(spec::Op::KindCase kind, Entry entry) { Table()[kind] = entry; }
  // The entry of `kind`, or a value-initialized Entry (null) where it registered none.
  static Entry Of(spec::Op::KindCase kind) {
    auto it = Table().find(kind);
    return it == Table().end() ? Entry{} : it->second;
  }

 private:
  // Built at its first use: registrations run during static initialization, in no order.
  static std::map<spec::Op::KindCase, Entry>& Table() {
    static std::map<spec::Op::KindCase, Entry> table;
    return table;
  }
};

}  // namespace pipescope::engine
