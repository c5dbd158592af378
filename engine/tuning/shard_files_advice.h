#pragma once
// A shard right after the source: every worker of the job reads every record and keeps
// its share (tf.data's DATA sharding). The change worth trying is FILE sharding: a list of
// files sharded first, each worker reading only its own files, several at once.
//   - A source of several files: the file list sharded, then an interleave over the
//     worker's files (kind shard_earlier).
//   - One synthetic file: split into files first (kind split_files), as many per worker as
//     it reads at once. A real file the simulator cannot split: the advisor's finding
//     says so instead.
// The new interleave gets a name of its own, so the source's measured cost is not charged
// to it.

#include <optional>
#include <string>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct ShardFilesChange {
  std::string kind;            // "split_files" or "shard_earlier"
  std::string change;          // the change in a few words
  std::string action;          // for people
  std::string changes_output;  // what each worker gets instead
  spec::PipelineSpec spec;
};

// `cores`: the CPU budget (how many files a worker reads at once, at most 8).
std::optional<ShardFilesChange> ShardTheFiles(const spec::PipelineSpec& spec, int cores);

// `spec` with its source replaced by `files` (a list of file names or a count of files) and
// an interleave named `reader` reading `per_file` of each, `at_once` at a time, placed at
// `at` among the ops: 1 after a shard right after the source, 0 first (tf.data's
// num_parallel_reads, inside the reader).
spec::PipelineSpec FilesReadAtOnce(const spec::PipelineSpec& spec, const spec::Source& files,
                                   const spec::ElementSource& per_file, int64_t at_once,
                                   const std::string& reader, int at);

}  // namespace pipescope::engine
