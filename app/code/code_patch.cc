#include "app/code/code_patch.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace pipescope::code {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

const spec::Op* FindOp(const google::protobuf::RepeatedPtrField<spec::Op>& ops,
                       const std::string& name) {
  for (const spec::Op& op : ops) {
    if (op.name() == name) return &op;
    if (op.has_interleave()) {
      if (const spec::Op* sub = FindOp(op.interleave().ops(), name)) return sub;
    }
    if (op.has_flat_map()) {
      if (const spec::Op* sub = FindOp(op.flat_map().ops(), name)) return sub;
    }
  }
  return nullptr;
}

// The op's kind message (MapOp, DataLoaderOp, ...).
const Message* KindOf(const spec::Op& op) {
  const auto* oneof = op.GetDescriptor()->FindOneofByName("kind");
  const FieldDescriptor* f = op.GetReflection()->GetOneofFieldDescriptor(op, oneof);
  return f ? &op.GetReflection()->GetMessage(op, f) : nullptr;
}

// A knob as the code would write it; nullopt when the spec leaves it at the code's default.
std::optional<std::string> KnobCode(const Message& m, const std::string& knob, bool tfdata) {
  const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(knob);
  if (!f || f->is_repeated()) return std::nullopt;
  const auto* r = m.GetReflection();
  if (f->has_presence() && !r->HasField(m, f)) return std::nullopt;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64: {
      const int64_t v = r->GetInt64(m, f);
      return v == -1 && tfdata ? std::string("tf.data.AUTOTUNE") : std::to_string(v);
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      return std::string(r->GetBool(m, f) ? "True" : "False");
    default:
      return std::nullopt;
  }
}

struct Edit {
  size_t begin, end;
  std::string text;
};

std::vector<std::string> Names(const spec::PipelineSpec& spec) {
  std::vector<std::string> names;
  for (const spec::Op& op : spec.ops()) names.push_back(op.name());
  return names;
}

}  // namespace

engine::Result<EmittedCode> PatchCode(const ImportedCode& original,
                                      const spec::PipelineSpec& tuned) {
  EmittedCode out;
  const bool tfdata = original.framework == "tfdata";
  std::vector<Edit> edits;
  for (const auto& [key, site] : original.sites) {
    const size_t dot = key.rfind('.');
    const std::string op_name = key.substr(0, dot), knob = key.substr(dot + 1);
    const spec::Op* before = FindOp(original.spec.ops(), op_name);
    const spec::Op* after = FindOp(tuned.ops(), op_name);
    if (!before || !after || before->kind_case() != after->kind_case()) continue;
    const auto old_code = KnobCode(*KindOf(*before), knob, tfdata);
    const auto new_code = KnobCode(*KindOf(*after), knob, tfdata);
    if (old_code == new_code || !new_code) continue;
    if (site.value_end > 0) {
      // A knob the code leaves to run time (a flag) keeps its name in a comment.
      const std::string was =
          original.source_text.substr(site.value_begin, site.value_end - site.value_begin);
      edits.push_back({site.value_begin, site.value_end, *new_code});
      if (!old_code)
        out.notes.push_back(op_name + "." + knob + ": `" + was + "` becomes " + *new_code);
      if (site.in_splat) {
        out.notes.push_back(op_name + "." + knob + ": written into the dict the call spreads, `" +
                            was + "` becomes " + *new_code +
                            " (other calls given that dict get it too)");
      }
    } else if (!site.unknown_splat.empty()) {
      // A keyword written beside `**kwargs` that holds it would raise a TypeError.
      out.notes.push_back(op_name + "." + knob + " = " + *new_code +
                          ": not written, as the call passes `" + site.unknown_splat +
                          "`, which may hold it; set it there");
    } else {
      edits.push_back({site.insert_at, site.insert_at,
                       std::string(site.call_has_arguments ? ", " : "") + knob + "=" + *new_code});
    }
  }
  // What arguments cannot say.
  const auto a = Names(original.spec), b = Names(tuned);
  for (const spec::Op& op : tuned.ops()) {
    if (std::find(a.begin(), a.end(), op.name()) != a.end()) continue;
    const std::string method = tfdata ? TfDataMethod(op) : std::string();
    out.notes.push_back("the tuned pipeline adds op '" + op.name() + "'" +
                        (method.empty() ? std::string() : " (" + method + ")") +
                        ": not written into the file; add it where the tuned spec has it");
  }
  for (const std::string& n : a) {
    if (std::find(b.begin(), b.end(), n) == b.end()) {
      out.notes.push_back("the tuned pipeline has no op '" + n + "': not written into the file");
    }
  }
  std::vector<std::string> common_a, common_b;
  for (const auto& n : a) {
    if (std::find(b.begin(), b.end(), n) != b.end()) common_a.push_back(n);
  }
  for (const auto& n : b) {
    if (std::find(a.begin(), a.end(), n) != a.end()) common_b.push_back(n);
  }
  if (common_a != common_b) {
    out.notes.push_back(
        "the tuned pipeline orders its ops otherwise: not written into the file "
        "(--emit gives the whole pipeline as code)");
  }
  for (const spec::Op& op : tuned.ops()) {
    const spec::Op* before = FindOp(original.spec.ops(), op.name());
    if (!before) continue;
    const Message* m = KindOf(op);
    const Message* o = KindOf(*before);
    if (!m || !o || before->kind_case() != op.kind_case()) continue;
    for (int k = 0; k < m->GetDescriptor()->field_count(); ++k) {
      const std::string knob = m->GetDescriptor()->field(k)->name();
      if (original.sites.count(op.name() + "." + knob)) continue;
      const auto x = KnobCode(*o, knob, tfdata), y = KnobCode(*m, knob, tfdata);
      if (x != y && y) {
        out.notes.push_back(op.name() + "." + knob + " = " + *y +
                            ": the code has no argument for it to write into");
      }
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& x, const Edit& y) { return x.begin > y.begin; });
  out.text = original.source_text;
  for (const Edit& e : edits) out.text.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

}  // namespace pipescope::code
