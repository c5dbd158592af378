#include "app/code/code_patch.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
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

// The line before which an import goes: the file's first import that is not a __future__
// one (those must come first), else its start.
size_t ImportLine(const std::string& source) {
  size_t at = 0;
  while (at < source.size()) {
    const size_t end = source.find('\n', at);
    const std::string_view line(source.data() + at,
                                (end == std::string::npos ? source.size() : end) - at);
    if ((line.starts_with("import ") || line.starts_with("from ")) &&
        !line.starts_with("from __future__")) {
      return at;
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return 0;
}

// A DataLoader made to fetch whole batches (batch_at_source): batch_size=None and the batch
// drawn by a BatchSampler around the loader's order, PyTorch's own spelling (its
// documentation's "Disable automatic batching"); shuffle=False, as a sampler excludes it.
// The knobs it writes, so that nothing else writes them; empty when it cannot.
std::set<std::string> WriteFetchBatches(const ImportedCode& original, const spec::Op& after,
                                        std::vector<Edit>& edits, EmittedCode& out) {
  const std::string& op = after.name();
  const auto site = [&](const std::string& knob) -> const KnobSite* {
    const auto it = original.sites.find(op + "." + knob);
    return it == original.sites.end() ? nullptr : &it->second;
  };
  const KnobSite* batch = site("batch_size");
  const KnobSite* shuffle = site("shuffle");
  const KnobSite* dataset = site("dataset");
  if (!batch || !dataset || dataset->value_end == 0 || batch->in_splat ||
      (shuffle && shuffle->in_splat) || !batch->unknown_splat.empty()) {
    out.notes.push_back(op +
                        ".fetch_batches = True: not written, as the call's arguments are "
                        "not all in it; give it sampler=BatchSampler(..., batch_size=N) "
                        "and batch_size=None");
    return {};
  }
  const auto& dl = after.dataloader();
  const std::string text = original.source_text;
  const std::string ds =
      text.substr(dataset->value_begin, dataset->value_end - dataset->value_begin);
  const std::string sampler = std::string("BatchSampler(") +
                              (dl.shuffle() ? "RandomSampler(" : "SequentialSampler(") + ds +
                              "), batch_size=" + std::to_string(dl.batch_size()) +
                              ", drop_last=" + (dl.drop_last() ? "True" : "False") + ")";
  if (batch->value_end > 0) {
    edits.push_back({batch->value_begin, batch->value_end, "None"});
    edits.push_back({batch->insert_at, batch->insert_at, ", sampler=" + sampler});
  } else {
    edits.push_back({batch->insert_at, batch->insert_at, ", batch_size=None, sampler=" + sampler});
  }
  if (shuffle && shuffle->value_end > 0) {
    edits.push_back({shuffle->value_begin, shuffle->value_end, "False"});
  }
  const size_t import_at = ImportLine(text);
  edits.push_back({import_at, import_at,
                   std::string("from torch.utils.data import BatchSampler, ") +
                       (dl.shuffle() ? "RandomSampler" : "SequentialSampler") + "\n"});
  out.notes.push_back(op +
                      " fetches whole batches: batch_size=None, the batch drawn by "
                      "sampler=" +
                      sampler);
  return {op + ".batch_size", op + ".shuffle", op + ".drop_last", op + ".fetch_batches"};
}

}  // namespace

engine::Result<EmittedCode> PatchCode(const ImportedCode& original,
                                      const spec::PipelineSpec& tuned) {
  EmittedCode out;
  const bool tfdata = original.framework == "tfdata";
  std::vector<Edit> edits;
  std::set<std::string> written;  // knobs a rewrite of their call wrote
  for (const spec::Op& op : tuned.ops()) {
    const spec::Op* before = FindOp(original.spec.ops(), op.name());
    if (before && before->has_dataloader() && op.has_dataloader() &&
        !before->dataloader().fetch_batches() && op.dataloader().fetch_batches()) {
      written.merge(WriteFetchBatches(original, op, edits, out));
    }
  }
  for (const auto& [key, site] : original.sites) {
    if (written.count(key)) continue;
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
      if (original.sites.count(op.name() + "." + knob) || written.count(op.name() + "." + knob)) {
        continue;
      }
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
