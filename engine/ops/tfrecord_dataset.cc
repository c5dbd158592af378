// TFRecordDataset: each record of each file, in order, as a string scalar. As a source it
// reads the files it is given; inside an interleave (tfrecord_file) it reads the file its
// input element names, which is how tf.data reads shards in parallel. Corrupt records are
// errors with the file, record and offset, or with skip_corrupt are skipped and counted.
#include "engine/io/tfrecord_reader.h"
#include "engine/ops/file_source.h"
#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class TfRecordIterator : public SourceIterator {
 public:
  TfRecordIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                   TfRecordReader::Options options)
      : SourceIterator(ctx, stats), files_(std::move(files)), options_(options) {}
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

  const std::vector<std::string> files_;
  const TfRecordReader::Options options_;
  size_t next_file_ = 0;
  std::unique_ptr<TfRecordReader> reader_;
};

class TfRecordDataset : public Dataset {
 public:
  TfRecordDataset(StatsPtr stats, std::vector<std::string> files, TfRecordReader::Options options,
                  bool per_file)
      : Dataset(std::move(stats)),
        files_(std::move(files)),
        options_(options),
        per_file_(per_file) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     FilesToRead(files_, per_file_, args, "tfrecord_file", stats()->name));
    return std::unique_ptr<Iterator>(
        std::make_unique<TfRecordIterator>(*args.ctx, stats(), std::move(files), options_));
  }

 private:
  const std::vector<std::string> files_;
  const TfRecordReader::Options options_;
  const bool per_file_;
};

}  // namespace

DatasetPtr MakeTfRecordDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression, bool skip_corrupt) {
  return std::make_shared<TfRecordDataset>(std::move(stats), std::move(files),
                                           TfRecordReader::Options{compression, skip_corrupt},
                                           false);
}

DatasetPtr MakeTfRecordFileDataset(StatsPtr stats, Compression compression, bool skip_corrupt) {
  return std::make_shared<TfRecordDataset>(std::move(stats), std::vector<std::string>{},
                                           TfRecordReader::Options{compression, skip_corrupt},
                                           true);
}

}  // namespace pipescope::engine
