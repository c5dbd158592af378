#include "engine/spec/field_checker.h"

#include "engine/core/duration.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::engine {

int FieldChecker::LineOf(const Message& msg, const Where& where, const char* field,
                         int index) const {
  if (!where.tree) return where.line;
  const auto* fd = msg.GetDescriptor()->FindFieldByName(field);
  if (!fd) return where.line;
  if (fd->is_repeated() && index < 0) index = 0;  // the first occurrence
  auto loc = where.tree->GetLocation(fd, index);
  return loc.line >= 0 ? loc.line : where.line;
}

Where FieldChecker::Nested(const Message& msg, const Where& where, const char* field,
                           std::string what, int index) const {
  Where w{nullptr, LineOf(msg, where, field, index), std::move(what)};
  if (where.tree) {
    if (const auto* fd = msg.GetDescriptor()->FindFieldByName(field)) {
      w.tree = where.tree->GetTreeForNested(fd, index);
    }
  }
  return w;
}

void FieldChecker::Fail(const Message& msg, const Where& where, const char* field,
                        const std::string& text) {
  const int line = LineOf(msg, where, field);
  // Appended piece by piece: GCC 12 misreads "literal" + std::string as an overlapping copy.
  std::string error = source_;
  if (line >= 0) error.append(":").append(std::to_string(line + 1));
  error.append(": ");
  if (!where.what.empty()) error.append(where.what).append(": ");
  if (field[0]) error.append(field).append(" ");
  errors_.push_back(error.append(text));
  failed_.emplace(&msg, field);
}

bool FieldChecker::Failed(const Message& msg, std::string_view field) const {
  return failed_.count({&msg, std::string(field)}) > 0;
}

void FieldChecker::AtLeast(const Message& msg, const Where& where, const char* field, int64_t value,
                           int64_t min) {
  if (value < min) {
    Fail(msg, where, field, "must be ≥ " + std::to_string(min) + ", got " + std::to_string(value));
  }
}

void FieldChecker::Knob(const Message& msg, const Where& where, std::string_view kind,
                        const char* field, int64_t value) {
  const KnobDescription& knob = *DescribeKnob(kind, field);
  if (value == kAutotune && (knob.autotune || knob.min > kAutotune)) {
    if (!knob.autotune) {
      Fail(msg, where, field,
           std::string("cannot be AUTOTUNE") +
               (knob.fixed_because.empty() ? "" : ": " + std::string(knob.fixed_because)));
    }
    return;
  }
  if (value < knob.min || value > knob.max) {
    Fail(msg, where, field,
         (value < knob.min ? "must be ≥ " + std::to_string(knob.min)
                           : "must be ≤ " + std::to_string(knob.max)) +
             (knob.autotune ? " or AUTOTUNE" : "") + ", got " + std::to_string(value));
  }
}

void FieldChecker::Duration(const Message& msg, const Where& where, const char* field,
                            const std::string& text, bool required) {
  if (text.empty()) {
    if (required) Fail(msg, where, field, "is required (e.g. \"2ms\")");
    return;
  }
  auto parsed = ParseDurationNs(text);
  if (!parsed.ok()) Fail(msg, where, field, parsed.status().message());
}

void FieldChecker::GilShare(const Message& msg, const Where& where, double share) {
  if (share >= 0 && share <= 1) return;
  std::string text = "is the share of its time under the interpreter lock, from 0 to 1; got ";
  Fail(msg, where, "gil_share", text.append(std::to_string(share)));
}

void FieldChecker::FileReads(const Message& msg, const Where& where, int64_t bytes, int64_t files) {
  if (bytes < 0 || bytes > (int64_t{1} << 40)) {
    Fail(msg, where, "read_bytes", "is the files a call loads, in bytes, from 0 to 1 TiB");
  }
  if (files < 0 || files > 1'000'000) {
    Fail(msg, where, "read_files", "is how many files a call loads, from 0 to 1000000");
  }
}

bool FieldChecker::WorkFunction(const spec::WorkFunction& fn, const Where& fw) {
  if (fn.output_bytes() < 0 || fn.output_bytes() > (int64_t{1} << 30)) {
    Fail(fn, fw, "output_bytes", "is a call's result in bytes, from 0 to 1 GiB");
  }
  switch (fn.kind_case()) {
    case spec::WorkFunction::kCpuWork: {
      const Where cw = Nested(fn, fw, "cpu_work", fw.what);
      Duration(fn.cpu_work(), cw, "duration", fn.cpu_work().duration(), true);
      Duration(fn.cpu_work(), cw, "wait", fn.cpu_work().wait(), false);
      FileReads(fn.cpu_work(), cw, fn.cpu_work().read_bytes(), fn.cpu_work().read_files());
      break;
    }
    case spec::WorkFunction::kIoWait:
      Duration(fn.io_wait(), Nested(fn, fw, "io_wait", fw.what), "duration",
               fn.io_wait().duration(), true);
      break;
    case spec::WorkFunction::kPython: {
      const Where pw = Nested(fn, fw, "python", fw.what);
      Duration(fn.python(), pw, "duration", fn.python().duration(), true);
      Duration(fn.python(), pw, "wait", fn.python().wait(), false);
      GilShare(fn.python(), pw, PythonGilShare(fn.python()));
      FileReads(fn.python(), pw, fn.python().read_bytes(), fn.python().read_files());
      break;
    }
    case spec::WorkFunction::KIND_NOT_SET:
      return false;
    default:
      break;
  }
  return true;
}

void FieldChecker::Rate(const Message& msg, const Where& where, const char* field,
                        const std::string& text) {
  if (text.empty()) return;
  auto parsed = ParseBytesPerSecond(text);
  if (!parsed.ok()) Fail(msg, where, field, parsed.status().message());
}

Status FieldChecker::Finish() const {
  if (errors_.empty()) return Status::Ok();
  std::string text;
  for (const auto& e : errors_) text += (text.empty() ? "" : "\n") + e;
  return InvalidArgument(text);
}

}  // namespace pipescope::engine
