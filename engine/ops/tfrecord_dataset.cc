// TFRecordDataset: each record of each file, in order, as a string scalar. As a source it
// reads the files it is given; inside an interleave (tfrecord_file) it reads the file its
// input element names, which is how tf.data reads shards in parallel. Corrupt records are
// errors with the file, record and offset, or with skip_corrupt are skipped and counted.
// Reads go to the spec's disk where it names one.
#include "engine/io/tfrecord_reader.h"
#include "engine/ops/ops.h"
#include "engine/ops/record_file_source.h"

namespace pipescope::engine {
namespace {

class TfRecordIterator : public RecordFileIterator<TfRecordReader, TfRecordReader::Options> {
 public:
  TfRecordIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                   TfRecordReader::Options options, StorageDevicePtr storage)
      : RecordFileIterator(ctx, stats, std::move(files), options, std::move(storage), "tfrecord") {}
  ~TfRecordIterator() override {
    if (reader()) ReportSkipped(*reader());
  }

 protected:
  void FileEnded(TfRecordReader& reader) override { ReportSkipped(reader); }

 private:
  // Skipped corrupt regions show, when recording, as a marker in the trace (and so in the
  // run's summary).
  void ReportSkipped(const TfRecordReader& reader) {
    if (reader.corrupt_regions_skipped() == 0 || !ctx_.recorder) return;
    ctx_.recorder->Mark(record::NowNs(), "tfrecord '" + stats_->name + "' skipped " +
                                             std::to_string(reader.corrupt_regions_skipped()) +
                                             " corrupt region(s), " +
                                             std::to_string(reader.bytes_skipped()) +
                                             " bytes, in \"" + reader.path() + "\"");
  }
};
using TfRecordDataset = RecordFileDataset<TfRecordIterator, TfRecordReader::Options>;

}  // namespace

DatasetPtr MakeTfRecordDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression, bool skip_corrupt,
                               StorageDevicePtr storage) {
  return std::make_shared<TfRecordDataset>(std::move(stats), std::move(files),
                                           TfRecordReader::Options{compression, skip_corrupt},
                                           false, std::move(storage), "tfrecord_file");
}

DatasetPtr MakeTfRecordFileDataset(StatsPtr stats, Compression compression, bool skip_corrupt,
                                   StorageDevicePtr storage) {
  return std::make_shared<TfRecordDataset>(std::move(stats), std::vector<std::string>{},
                                           TfRecordReader::Options{compression, skip_corrupt}, true,
                                           std::move(storage), "tfrecord_file");
}

}  // namespace pipescope::engine
