#include "engine/spec/work_overrides.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>

#include "engine/core/duration.h"
#include "engine/spec/spec_overrides.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

// The Python generator `name` stands for: the source's, or the one the interleave `op` runs
// per element; null for any other.
spec::FromGeneratorSource* GeneratorNamed(spec::PipelineSpec& spec, spec::Op* op,
                                          const std::string& name) {
  if (name == spec.source().name() && spec.source().has_from_generator())
    return spec.mutable_source()->mutable_from_generator();
  if (op && op->has_interleave() && op->interleave().per_element().has_from_generator())
    return op->mutable_interleave()->mutable_per_element()->mutable_from_generator();
  return nullptr;
}

// `knob` cost: the function's CPU a call; wait: the time a call blocks beside it, using no
// core (time.sleep, a read from storage). A function that is only a wait (io_wait) takes a
// cost as CPU beside its wait. A native function's cost stands in for its work; its wait,
// which it has not, is refused.
Status SetWork(spec::WorkFunction& fn, const std::string& knob, const std::string& duration) {
  const bool wait = knob == "wait";
  if (!wait) fn.clear_cost_is_stand_in();  // the user's own figure
  if (wait && !fn.has_io_wait() && !fn.has_python() && !fn.has_cpu_work()) {
    return InvalidArgument("its function (" + WorkFunctionName(fn) +
                           ") does not wait: set its cost instead");
  }
  if (fn.has_io_wait()) {
    if (wait) {
      fn.mutable_io_wait()->set_duration(duration);
      return Status::Ok();
    }
    const std::string waits = fn.io_wait().duration();
    fn.mutable_cpu_work()->set_wait(waits);
  }
  if (fn.has_python()) {
    auto* py = fn.mutable_python();
    wait ? py->set_wait(duration) : py->set_duration(duration);
  } else {
    auto* cpu = fn.mutable_cpu_work();
    if (cpu->duration().empty()) cpu->set_duration("0us");
    wait ? cpu->set_wait(duration) : cpu->set_duration(duration);
  }
  return Status::Ok();
}

Status SetDurationKnob(spec::PipelineSpec& spec, const std::string& name, const std::string& knob,
                       const std::string& value) {
  const std::string assignment = name + "." + knob + "=" + value;
  RETURN_IF_ERROR(ParseDurationNs(value).status().WithContext(assignment));
  // The whole call's cost counts the parts of it import-code could not read.
  if (knob == "cost") {
    auto& left_out = *spec.mutable_left_out();
    left_out.erase(std::remove_if(left_out.begin(), left_out.end(),
                                  [&](const spec::LeftOutCode& c) { return c.op() == name; }),
                   left_out.end());
  }
  const bool per_item = knob != "collate_cost";
  spec::Op* op = FindOpNamed(spec, name);
  if (spec::FromGeneratorSource* g = GeneratorNamed(spec, op, name); g && per_item) {
    if (knob == "cost") {
      g->set_duration(value);
      g->clear_cost_is_stand_in();  // the user's own figure
    } else {
      (knob == "wait" ? g->mutable_wait() : g->mutable_first_wait())->assign(value);
    }
    return Status::Ok();
  }
  if (knob == "first_wait") {
    return InvalidArgument(assignment + ": first_wait is a Python generator's (from_generator): '" +
                           name + "' is none");
  }
  if (op == nullptr) return NotFound(assignment + ": no op named '" + name + "'");
  if (op->has_map() && per_item) {
    return SetWork(*op->mutable_map()->mutable_fn(), knob, value).WithContext(assignment);
  }
  if (op->has_dataloader()) {
    auto* dl = op->mutable_dataloader();
    return SetWork(per_item ? *dl->mutable_getitem() : *dl->mutable_collate(), knob, value)
        .WithContext(assignment);
  }
  if (op->has_keras_fit() && per_item) {
    return SetWork(*op->mutable_keras_fit()->mutable_getitem(), knob, value)
        .WithContext(assignment);
  }
  return InvalidArgument(assignment + ": '" + name + "' has no " + knob + WorkKnobsOf(op));
}

// The function an op runs on each item: a DataLoader's or a Keras Sequence's __getitem__, a
// map's function; null for any other op.
spec::WorkFunction* ItemFunctionOf(spec::Op* op) {
  return !op                    ? nullptr
         : op->has_dataloader() ? op->mutable_dataloader()->mutable_getitem()
         : op->has_keras_fit()  ? op->mutable_keras_fit()->mutable_getitem()
         : op->has_map()        ? op->mutable_map()->mutable_fn()
                                : nullptr;
}

// wait_loads_files=true: the function's wait is its loads of files (Python::wait_loads_files),
// as import-code reads an open or np.load in it; code written back says so in a pragma.
Status SetWaitLoadsFiles(spec::PipelineSpec& spec, const std::string& name,
                         const std::string& value) {
  const std::string assignment = name + ".wait_loads_files=" + value;
  spec::WorkFunction* fn = ItemFunctionOf(FindOpNamed(spec, name));
  if (!fn || !fn->has_python()) {
    return InvalidArgument(assignment + ": '" + name +
                           "' runs no Python function whose wait could load files");
  }
  if (value != "true" && value != "false") {
    return InvalidArgument(assignment + ": wait_loads_files is true or false");
  }
  fn->mutable_python()->set_wait_loads_files(value == "true");
  return Status::Ok();
}

Status SetSampleBytes(spec::PipelineSpec& spec, const std::string& name, const std::string& value) {
  const std::string assignment = name + ".sample_bytes=" + value;
  spec::Op* op = FindOpNamed(spec, name);
  // What a DataLoader's or a Keras Sequence's Python __getitem__ returns (it crosses from the
  // workers to the training loop), or a map's function (what a shuffle or a cache after it
  // holds).
  spec::WorkFunction* made = ItemFunctionOf(op);
  if (!made || (!op->has_map() && !made->has_python())) {
    return InvalidArgument(
        "'" + name +
        "' is no map, nor a DataLoader or Keras fit whose __getitem__ is Python: sample_bytes "
        "is what a call of its function returns");
  }
  Result<int64_t> bytes = ParseBytes(value);
  if (!bytes.ok()) return bytes.status().WithContext(assignment);
  made->set_output_bytes(*bytes);
  return Status::Ok();
}

// `value` as a number, all of it; nullopt where it is not one.
std::optional<double> NumberOf(const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end == value.c_str() || *end != '\0') return std::nullopt;
  return v;
}

Status SetKeepFraction(spec::PipelineSpec& spec, const std::string& name,
                       const std::string& value) {
  const std::string assignment = name + ".fraction=" + value;
  spec::Op* op = FindOpNamed(spec, name);
  if (!op || !op->has_filter()) return NotFound("no filter named '" + name + "'");
  const std::optional<double> f = NumberOf(value);
  if (!f) return InvalidArgument(assignment + ": a fraction is a number");
  if (*f <= 0 || *f > 1) return InvalidArgument(assignment + ": a fraction is in (0, 1]");
  op->mutable_filter()->mutable_predicate()->mutable_keep_fraction()->set_fraction(*f);
  return Status::Ok();
}

// The Python function of a map, a DataLoader's or a Keras Sequence's __getitem__ (the op
// kinds' FunctionOf names a map's alone); null where `op` runs none.
spec::Python* PythonFunctionOf(spec::Op* op) {
  spec::WorkFunction* fn = !op                    ? nullptr
                           : op->has_map()        ? op->mutable_map()->mutable_fn()
                           : op->has_dataloader() ? op->mutable_dataloader()->mutable_getitem()
                           : op->has_keras_fit()  ? op->mutable_keras_fit()->mutable_getitem()
                                                  : nullptr;
  return fn && fn->has_python() ? fn->mutable_python() : nullptr;
}

// The share of a Python function's time it holds its process's interpreter lock: 1 for
// Python itself, less for numpy or PIL work that releases it (issue 40's gil_share).
Status SetGilShare(spec::PipelineSpec& spec, const std::string& name, const std::string& value) {
  const std::string assignment = name + ".gil_share=" + value;
  const std::optional<double> share = NumberOf(value);
  if (!share || *share < 0 || *share > 1) {
    return InvalidArgument(assignment + ": a share of the function's time, from 0 to 1");
  }
  spec::Op* op = FindOpNamed(spec, name);
  if (spec::FromGeneratorSource* g = GeneratorNamed(spec, op, name)) {
    g->set_gil_share(*share);
    return Status::Ok();
  }
  spec::Python* python = PythonFunctionOf(op);
  if (!python) {
    return InvalidArgument(assignment + ": '" + name +
                           "' runs no Python function (tf.py_function, a generator, a "
                           "Dataset's __getitem__): gil_share is the share of such a "
                           "function's time it holds the interpreter lock");
  }
  python->set_gil_share(*share);
  return Status::Ok();
}

// The Python function of op `name` whose disk reads `assignment` sets (`what` says what the
// knob is); an error naming the op where it runs none.
Result<spec::Python*> DiskReaderNamed(spec::PipelineSpec& spec, const std::string& name,
                                      const std::string& assignment, const std::string& what) {
  spec::Python* python = PythonFunctionOf(FindOpNamed(spec, name));
  if (!python) {
    return InvalidArgument(assignment + ": '" + name +
                           "' runs no Python function (a Dataset's __getitem__, "
                           "tf.py_function): " +
                           what + " such a call loads from the disk (--set storage.kind=hdd)");
  }
  return python;
}

// The native work of a map (CpuWork: the file its tf.io.read_file reads), or null.
spec::CpuWork* NativeMapWorkOf(spec::Op* op) {
  return op && op->has_map() && op->map().fn().has_cpu_work()
             ? op->mutable_map()->mutable_fn()->mutable_cpu_work()
             : nullptr;
}

// Sets a knob of the files op `name`'s calls read from the spec's disk with `set`, on a
// native map's CpuWork (the files its tf.io.read_file reads) or a Python function's Python
// (a sample's files); an error naming the op where it has neither (`what` says the knob).
template <typename Set>
Status SetDiskReads(spec::PipelineSpec& spec, const std::string& name,
                    const std::string& assignment, const std::string& what, const Set& set) {
  if (spec::CpuWork* native = NativeMapWorkOf(FindOpNamed(spec, name))) {
    set(*native);
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(spec::Python * python, DiskReaderNamed(spec, name, assignment, what));
  set(*python);
  return Status::Ok();
}

// The bytes a call reads from the spec's disk: read_bytes.
Status SetReadBytes(spec::PipelineSpec& spec, const std::string& name, const std::string& value) {
  const std::string assignment = name + ".read_bytes=" + value;
  Result<int64_t> bytes = ParseBytes(value);
  if (!bytes.ok()) return bytes.status().WithContext(assignment);
  return SetDiskReads(spec, name, assignment, "read_bytes is the size of the files",
                      [&](auto& work) { work.set_read_bytes(*bytes); });
}

// How many files a call's read_bytes are in, each an access: read_files.
Status SetReadFiles(spec::PipelineSpec& spec, const std::string& name, const std::string& value) {
  const std::string assignment = name + ".read_files=" + value;
  int64_t files = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), files);
  if (error != std::errc() || end != value.data() + value.size() || files < 1 ||
      files > 1'000'000) {
    return InvalidArgument(assignment + ": expected a whole number of files from 1 to 1000000");
  }
  return SetDiskReads(spec, name, assignment, "read_files is how many files",
                      [&](auto& work) { work.set_read_files(files); });
}

}  // namespace

std::optional<Status> ApplyWorkOverride(spec::PipelineSpec& spec, const std::string& name,
                                        const std::string& knob, const std::string& value) {
  // A source that is no Python generator has no function: its own fields answer.
  spec::Op* op = FindOpNamed(spec, name);
  if (!op && !GeneratorNamed(spec, nullptr, name)) return std::nullopt;
  if (knob == "cost" || knob == "collate_cost" || knob == "wait" || knob == "first_wait") {
    return SetDurationKnob(spec, name, knob, value);
  }
  if (knob == "sample_bytes") return SetSampleBytes(spec, name, value);
  if (knob == "wait_loads_files") return SetWaitLoadsFiles(spec, name, value);
  if (knob == "fraction") return SetKeepFraction(spec, name, value);
  if (knob == "gil_share") return SetGilShare(spec, name, value);
  if (knob == "read_bytes") return SetReadBytes(spec, name, value);
  if (knob == "read_files") return SetReadFiles(spec, name, value);
  return std::nullopt;
}

std::string WorkKnobsOf(const spec::Op* op) {
  if (!op) return {};
  if (op->has_map())
    return "; for its function: cost, wait, sample_bytes, gil_share (Python), read_bytes, "
           "read_files";
  if (op->has_dataloader()) {
    return "; for its __getitem__: cost, wait, sample_bytes, collate_cost, gil_share, read_bytes, "
           "read_files";
  }
  if (op->has_keras_fit()) {
    return "; for its __getitem__: cost, wait, sample_bytes, gil_share, read_bytes, read_files";
  }
  if (op->has_filter()) return "; for its predicate: fraction";
  return {};
}

}  // namespace pipescope::engine
