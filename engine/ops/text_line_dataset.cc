// TextLineDataset: each line of each file, in order, as a string scalar (text_line_reader.h
// says what a line is). As a source it reads the files it is given; inside an interleave
// (text_line_file) it reads the file its input element names. Its reads pay no disk (the
// simulator's cost model gives text files none).
#include "engine/io/text_line_reader.h"
#include "engine/ops/ops.h"
#include "engine/ops/record_file_source.h"

namespace pipescope::engine {
namespace {

class TextLineIterator : public RecordFileIterator<TextLineReader, Compression> {
 public:
  TextLineIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                   Compression compression, const StorageDevicePtr& /*no disk for text*/)
      : RecordFileIterator(ctx, stats, std::move(files), compression, nullptr, "text_line") {}
};
using TextLineDataset = RecordFileDataset<TextLineIterator, Compression>;

}  // namespace

DatasetPtr MakeTextLineDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression) {
  return std::make_shared<TextLineDataset>(std::move(stats), std::move(files), compression, false,
                                           nullptr, "text_line_file");
}

DatasetPtr MakeTextLineFileDataset(StatsPtr stats, Compression compression) {
  return std::make_shared<TextLineDataset>(std::move(stats), std::vector<std::string>{},
                                           compression, true, nullptr, "text_line_file");
}

}  // namespace pipescope::engine
