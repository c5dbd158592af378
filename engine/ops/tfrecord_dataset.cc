// TFRecordDataset: each record of each file, in order, as a string scalar. As a source it
// reads the files it is given; inside an interleave (tfrecord_file) it reads the file its
// input element names, which is how tf.data reads shards in parallel. Corrupt records are
// errors with the file, record and offset, or with skip_corrupt are skipped and counted.
#include <functional>

#include "engine/io/tfrecord_reader.h"
#include "engine/ops/file_source.h"
#include "engine/ops/ops.h"
#include "engine/runtime/storage_rules.h"

namespace pipescope::engine {
namespace {

class TfRecordIterator : public SourceIterator {
 public:
  TfRecordIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                   TfRecordReader::Options options, StorageDevicePtr storage)
      : SourceIterator(ctx, stats),
        files_(std::move(files)),
        options_(options),
        storage_(std::move(storage)) {}
  ~TfRecordIterator() override { ReportSkipped(); }
  void Cancel() override {}

 protected:
  Status GetNextInternal(Element& out, bool& end) override {
    while (true) {
      if (cancelled()) return Cancelled();
      if (!reader_) {
        if (next_file_ >= files_.size()) {
          end = true;
          return Status::Ok();
        }
        auto opened = TfRecordReader::Open(files_[next_file_++], options_);
        if (!opened.ok()) return opened.status().WithContext("tfrecord '" + stats_->name + "'");
        reader_ = std::move(opened).value();
        file_bytes_ = 0;
        file_ = std::hash<std::string>{}(files_[next_file_ - 1]);
      }
      std::string record;
      bool file_end = false;
      Status s = reader_->Read(record, file_end);
      if (!s.ok()) return s.WithContext("tfrecord '" + stats_->name + "'");
      if (file_end) {
        ReportSkipped();
        reader_.reset();
        continue;
      }
      if (!ReadFromTheDisk(static_cast<int64_t>(record.size()))) return Cancelled();
      out.id = ctx_.NewElementId();
      out.value = Tensor::String(std::move(record));
      out.features.clear();
      return Status::Ok();
    }
  }

 private:
  // Skipped corrupt regions show, when recording, as a marker in the trace (and so in the
  // run's summary).
  void ReportSkipped() {
    if (!reader_ || reader_->corrupt_regions_skipped() == 0) return;
    if (ctx_.recorder) {
      ctx_.recorder->Mark(record::NowNs(), "tfrecord '" + stats_->name + "' skipped " +
                                               std::to_string(reader_->corrupt_regions_skipped()) +
                                               " corrupt region(s), " +
                                               std::to_string(reader_->bytes_skipped()) +
                                               " bytes, in \"" + reader_->path() + "\"");
    }
  }

  // The reader's buffers a record of `payload` bytes needs that none before it in the file
  // brought in, from the spec's disk, a buffer (kDiskReadBytes) at a time, the file's first
  // read opening it: the simulator's rule (DiskReadOfRecords), on the records' own sizes.
  // Their framing (16 bytes each) is left out as the simulator leaves it out. False when
  // cancelled.
  bool ReadFromTheDisk(int64_t payload) {
    if (!storage_) return true;
    const int64_t before = file_bytes_;
    file_bytes_ += payload;
    const auto buffers = [](int64_t bytes) {
      return (bytes + kDiskReadBytes - 1) / kDiskReadBytes;
    };
    const int64_t needed = buffers(file_bytes_) - buffers(before);
    if (needed == 0) return true;
    return storage_->Read(needed * kDiskReadBytes, before == 0 ? 1 : 0, file_, ctx_.cancellation);
  }

  const std::vector<std::string> files_;
  const TfRecordReader::Options options_;
  const StorageDevicePtr storage_;
  size_t next_file_ = 0;
  std::unique_ptr<TfRecordReader> reader_;
  int64_t file_bytes_ = 0;  // of the file being read, through the last record given
  uint64_t file_ = 0;       // which file the disk reads, for a read that goes on in it
};

class TfRecordDataset : public Dataset {
 public:
  TfRecordDataset(StatsPtr stats, std::vector<std::string> files, TfRecordReader::Options options,
                  bool per_file, StorageDevicePtr storage)
      : Dataset(std::move(stats)),
        files_(std::move(files)),
        options_(options),
        per_file_(per_file),
        storage_(std::move(storage)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     FilesToRead(files_, per_file_, args, "tfrecord_file", stats()->name));
    return std::unique_ptr<Iterator>(std::make_unique<TfRecordIterator>(
        *args.ctx, stats(), std::move(files), options_, storage_));
  }

 private:
  const std::vector<std::string> files_;
  const TfRecordReader::Options options_;
  const bool per_file_;
  const StorageDevicePtr storage_;
};

}  // namespace

DatasetPtr MakeTfRecordDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression, bool skip_corrupt,
                               StorageDevicePtr storage) {
  return std::make_shared<TfRecordDataset>(std::move(stats), std::move(files),
                                           TfRecordReader::Options{compression, skip_corrupt},
                                           false, std::move(storage));
}

DatasetPtr MakeTfRecordFileDataset(StatsPtr stats, Compression compression, bool skip_corrupt,
                                   StorageDevicePtr storage) {
  return std::make_shared<TfRecordDataset>(std::move(stats), std::vector<std::string>{},
                                           TfRecordReader::Options{compression, skip_corrupt}, true,
                                           std::move(storage));
}

}  // namespace pipescope::engine
