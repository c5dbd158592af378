// FixedLengthRecordDataset: the records of each file, in order, as string scalars, cut as
// fixed_length_record_reader.h says; inside an interleave (fixed_length_record_file), the
// file its input element names, which is what num_parallel_reads does. Reads go to the
// spec's disk where it names one.
#include "engine/io/fixed_length_record_reader.h"
#include "engine/ops/ops.h"
#include "engine/ops/record_file_source.h"

namespace pipescope::engine {
namespace {

class FixedLengthRecordIterator
    : public RecordFileIterator<FixedLengthRecordReader, FixedLengthRecordFormat> {
 public:
  FixedLengthRecordIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                            const FixedLengthRecordFormat& format, StorageDevicePtr storage)
      : RecordFileIterator(ctx, stats, std::move(files), format, std::move(storage),
                           "fixed_length_record") {}
};
using FixedLengthRecordDataset =
    RecordFileDataset<FixedLengthRecordIterator, FixedLengthRecordFormat>;

}  // namespace

DatasetPtr MakeFixedLengthRecordDataset(StatsPtr stats, std::vector<std::string> files,
                                        const FixedLengthRecordFormat& format,
                                        StorageDevicePtr storage) {
  return std::make_shared<FixedLengthRecordDataset>(std::move(stats), std::move(files), format,
                                                    false, std::move(storage),
                                                    "fixed_length_record_file");
}

DatasetPtr MakeFixedLengthRecordFileDataset(StatsPtr stats, const FixedLengthRecordFormat& format,
                                            StorageDevicePtr storage) {
  return std::make_shared<FixedLengthRecordDataset>(std::move(stats), std::vector<std::string>{},
                                                    format, true, std::move(storage),
                                                    "fixed_length_record_file");
}

}  // namespace pipescope::engine
