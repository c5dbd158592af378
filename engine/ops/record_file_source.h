#pragma once
// A source of the records of files, one file after another, with a reader per file
// (TfRecordReader, TextLineReader, FixedLengthRecordReader): each record a string scalar,
// each file opened when the one before it ends, its records read from the spec's disk where
// it names one (file_disk_reads.h). As a source it reads the files it is given; inside an
// interleave (a per-file reader: tfrecord_file, ...) it reads the file its input element
// names (file_source.h). The loop every file format's dataset shares; a format gives its
// reader, the reader's options, and what to do when a file ends.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/ops/file_disk_reads.h"
#include "engine/ops/file_source.h"
#include "engine/runtime/iterator.h"

namespace pipescope::engine {

// `Reader::Open(path, options)` makes a reader; `reader.Read(record, end)` gives each record.
template <class Reader, class Options>
class RecordFileIterator : public SourceIterator {
 public:
  RecordFileIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                     Options options, StorageDevicePtr storage, const char* kind)
      : SourceIterator(ctx, stats),
        files_(std::move(files)),
        options_(std::move(options)),
        disk_(std::move(storage)),
        kind_(kind) {}
  void Cancel() override {}

 protected:
  // The file `reader` read has ended (or the iterator is done with it).
  virtual void FileEnded(Reader& /*reader*/) {}
  Reader* reader() { return reader_.get(); }

  Status GetNextInternal(Element& out, bool& end) override {
    while (true) {
      if (cancelled()) return Cancelled();
      if (!reader_) {
        if (next_file_ >= files_.size()) {
          end = true;
          return Status::Ok();
        }
        const std::string& path = files_[next_file_++];
        auto opened = Reader::Open(path, options_);
        if (!opened.ok()) return opened.status().WithContext(Context());
        reader_ = std::move(opened).value();
        disk_.Open(path);
      }
      std::string record;
      bool file_end = false;
      if (Status s = reader_->Read(record, file_end); !s.ok()) return s.WithContext(Context());
      if (file_end) {
        FileEnded(*reader_);
        reader_.reset();
        continue;
      }
      if (!disk_.Read(static_cast<int64_t>(record.size()), ctx_.cancellation)) return Cancelled();
      out.id = ctx_.NewElementId();
      out.value = Tensor::String(std::move(record));
      out.features.clear();
      return Status::Ok();
    }
  }

 private:
  std::string Context() const { return std::string(kind_) + " '" + stats_->name + "'"; }

  const std::vector<std::string> files_;
  const Options options_;
  FileDiskReads disk_;
  const char* const kind_;  // the spec's name of the source: "tfrecord", "text_line", ...
  size_t next_file_ = 0;
  std::unique_ptr<Reader> reader_;
};

// The dataset of such an iterator (`Iterator`, made from the context, the stage, the files,
// the options and the disk): over its own files, or per file inside an interleave.
template <class Iterator, class Options>
class RecordFileDataset : public Dataset {
 public:
  RecordFileDataset(StatsPtr stats, std::vector<std::string> files, Options options, bool per_file,
                    StorageDevicePtr storage, const char* per_file_kind)
      : Dataset(std::move(stats)),
        files_(std::move(files)),
        options_(std::move(options)),
        per_file_(per_file),
        storage_(std::move(storage)),
        per_file_kind_(per_file_kind) {}

  Result<std::unique_ptr<engine::Iterator>> MakeIterator(const IteratorArgs& args) const override {
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     FilesToRead(files_, per_file_, args, per_file_kind_, stats()->name));
    return std::unique_ptr<engine::Iterator>(
        std::make_unique<Iterator>(*args.ctx, stats(), std::move(files), options_, storage_));
  }

 private:
  const std::vector<std::string> files_;
  const Options options_;
  const bool per_file_;
  const StorageDevicePtr storage_;
  const char* const per_file_kind_;  // "tfrecord_file", ...
};

}  // namespace pipescope::engine
