#include "engine/tuning/shard_files_advice.h"

#include <algorithm>

#include "engine/spec/file_readers.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::engine {
namespace {

// The shard at ops(0) kept, the reader after it, named apart from the source.
spec::PipelineSpec ShardedFileList(const spec::PipelineSpec& spec, const spec::Source& files,
                                   const spec::ElementSource& per_file, int64_t at_once) {
  return FilesReadAtOnce(spec, files, per_file, at_once,
                         UnusedName(spec, spec.source().name() + "_files"), 1);
}

// "2nd", "3rd", "10th": which of every n records a worker keeps.
std::string Ordinal(int64_t n) {
  const int64_t last = n % 10, tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : last == 1                ? "st"
                       : last == 2                ? "nd"
                       : last == 3                ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

}  // namespace

spec::PipelineSpec FilesReadAtOnce(const spec::PipelineSpec& spec, const spec::Source& files,
                                   const spec::ElementSource& per_file, int64_t at_once,
                                   const std::string& reader, int at) {
  spec::PipelineSpec out = spec;
  *out.mutable_source() = files;
  spec::Op read;
  read.set_name(reader);
  auto* interleave = read.mutable_interleave();
  *interleave->mutable_per_element() = per_file;
  interleave->set_cycle_length(at_once);
  interleave->set_num_parallel_calls(at_once);
  auto* ops = out.mutable_ops();
  ops->Add(std::move(read));
  for (int i = ops->size() - 1; i > at; --i) ops->SwapElements(i, i - 1);
  return out;
}

std::optional<ShardFilesChange> ShardTheFiles(const spec::PipelineSpec& spec, int cores) {
  if (spec.ops_size() == 0 || !Splits(spec.ops(0))) return std::nullopt;
  const spec::Op& shard = spec.ops(0);
  const int64_t workers = ReadIntKnob(spec, shard.name(), "num_shards").value_or(0);
  if (workers < 2) return std::nullopt;
  const std::string& source = spec.source().name();
  const std::string every = "every " + Ordinal(workers) + " record";
  ShardFilesChange change;

  std::vector<std::string> names;
  spec::ElementSource per_file;
  if (FilesAndReaderOf(spec.source(), names, per_file)) {
    // Fewer files than workers: some worker would get none (tf.data's FILE sharding
    // refuses it). Splitting a real file is the user's to do; the finding says so.
    if (static_cast<int64_t>(names.size()) < workers) return std::nullopt;
    const int64_t own = static_cast<int64_t>(names.size()) / workers;
    const int64_t more = static_cast<int64_t>(names.size()) % workers;  // get one file more
    const int64_t at_once = std::clamp<int64_t>(std::min<int64_t>(own, cores), 1, 8);
    spec::Source list;
    list.set_name(UnusedName(spec, "files"));
    for (const std::string& f : names) list.mutable_from_tensor_slices()->add_strings(f);
    change.kind = "shard_earlier";
    change.change = "shard the file list before '" + source + "'";
    change.spec = ShardedFileList(spec, list, per_file, at_once);
    change.action =
        "shard the file list: from_tensor_slices(files).shard(" + std::to_string(workers) +
        ", index), then interleave over each worker's " + std::to_string(own) +
        (more > 0 ? " or " + std::to_string(own + 1) : "") + " files, " + std::to_string(at_once) +
        " at a time (each worker reads only its own files instead of " + every + " of all)";
    // tf.data's FILE sharding gives worker i the files i, i + n, ...: with a count that is
    // not a multiple of n, some workers get one file more and the others finish each epoch
    // first, while a synchronous job waits on the slowest.
    if (more > 0) {
      change.action += "; " + std::to_string(names.size()) + " files over " +
                       std::to_string(workers) + " workers are uneven: " + std::to_string(more) +
                       " workers read " + std::to_string(own + 1) + " files, " +
                       std::to_string(workers - more) + " read " + std::to_string(own) +
                       " and finish each epoch first (a multiple of " + std::to_string(workers) +
                       " files shares them evenly)";
    }
  } else if (spec.source().has_synthetic()) {
    const spec::SyntheticSource& one = spec.source().synthetic();
    const int64_t at_once = std::clamp<int64_t>(cores, 2, 8);
    const int64_t files = workers * at_once;
    spec::Source list;
    list.set_name(UnusedName(spec, "files"));
    list.mutable_range()->set_stop(files);
    auto* file = per_file.mutable_synthetic_file();
    file->set_records_per_file(
        one.records() < 0 ? -1 : std::max<int64_t>(1, (one.records() + files - 1) / files));
    file->set_record_bytes(one.record_bytes());
    file->set_read_latency(one.read_latency());
    file->set_bandwidth(one.bandwidth());
    change.kind = "split_files";
    change.change =
        "split '" + source + "' into " + std::to_string(files) + " files, shard the file list";
    change.spec = ShardedFileList(spec, list, per_file, at_once);
    change.action = "split " + source + "'s one file into " + std::to_string(files) +
                    " files and shard the file list: each of the " + std::to_string(workers) +
                    " workers reads its " + std::to_string(at_once) +
                    " files at once (interleave with cycle_length=" + std::to_string(at_once) +
                    ", num_parallel_calls=" + std::to_string(at_once) + ") instead of " + every +
                    " of one file";
  } else {
    return std::nullopt;
  }
  change.changes_output = "Each worker gets whole files of its own instead of " + every +
                          ", and the records come interleaved from several files at a time.";
  return change;
}

}  // namespace pipescope::engine
