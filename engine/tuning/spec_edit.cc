#include "engine/tuning/spec_edit.h"

#include "engine/spec/spec_overrides.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::engine {
namespace {

int IndexOf(const spec::PipelineSpec& spec, const std::string& name) {
  for (int i = 0; i < spec.ops_size(); ++i) {
    if (spec.ops(i).name() == name) return i;
  }
  return -1;
}

}  // namespace

SpecEdit SettingsEdit(std::vector<std::string> settings) {
  SpecEdit e;
  e.settings = std::move(settings);
  return e;
}

Result<spec::PipelineSpec> ApplyEdit(spec::PipelineSpec spec, const SpecEdit& edit) {
  if (!edit.reapplicable) return InvalidArgument("the change is made on the spec as given only");
  for (const spec::Op& op : edit.replace) {
    const int at = IndexOf(spec, op.name());
    if (at < 0) return InvalidArgument("no op '" + op.name() + "' to replace");
    *spec.mutable_ops(at) = op;
  }
  if (!edit.move.empty()) {
    const int from = IndexOf(spec, edit.move), to = IndexOf(spec, edit.before);
    if (from < 0 || to < 0) {
      return InvalidArgument("no op '" + (from < 0 ? edit.move : edit.before) + "' to move");
    }
    // Right before `before`: moving later lands one place short of its index.
    spec = MoveOp(std::move(spec), from, from < to ? to - 1 : to);
  }
  if (edit.add) {
    if (IndexOf(spec, edit.add->name()) >= 0) {
      return InvalidArgument("op '" + edit.add->name() + "' is there already");
    }
    // After the source: first.
    int after = edit.after.empty()                   ? spec.ops_size() - 1
                : edit.after == spec.source().name() ? -1
                                                     : IndexOf(spec, edit.after);
    if (after < 0 && !edit.after.empty() && edit.after != spec.source().name()) {
      return InvalidArgument("no op '" + edit.after + "' to add after");
    }
    if (edit.after.empty() && !edit.add_before.empty()) {
      const int before = IndexOf(spec, edit.add_before);
      if (before < 0) return InvalidArgument("no op '" + edit.add_before + "' to add before");
      after = before - 1;
    }
    auto* ops = spec.mutable_ops();
    *ops->Add() = *edit.add;
    for (int i = ops->size() - 1; i > after + 1; --i) ops->SwapElements(i, i - 1);
  }
  for (const std::string& s : edit.settings) RETURN_IF_ERROR(ApplyOverride(spec, s));
  return spec;
}

}  // namespace pipescope::engine
