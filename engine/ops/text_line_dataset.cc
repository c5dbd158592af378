// TextLineDataset: each line of each file, in order, as a string scalar (text_line_reader.h
// says what a line is). As a source it reads the files it is given; inside an interleave
// (text_line_file) it reads the file its input element names.
#include "engine/io/text_line_reader.h"
#include "engine/ops/file_source.h"
#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class TextLineIterator : public SourceIterator {
 public:
  TextLineIterator(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files,
                   Compression compression)
      : SourceIterator(ctx, stats), files_(std::move(files)), compression_(compression) {}
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
        auto opened = TextLineReader::Open(files_[next_file_++], compression_);
        if (!opened.ok()) return opened.status().WithContext("text_line '" + stats_->name + "'");
        reader_ = std::move(opened).value();
      }
      std::string line;
      bool file_end = false;
      Status s = reader_->Read(line, file_end);
      if (!s.ok()) return s.WithContext("text_line '" + stats_->name + "'");
      if (file_end) {
        reader_.reset();
        continue;
      }
      out.id = ctx_.NewElementId();
      out.value = Tensor::String(std::move(line));
      out.features.clear();
      return Status::Ok();
    }
  }

 private:
  const std::vector<std::string> files_;
  const Compression compression_;
  size_t next_file_ = 0;
  std::unique_ptr<TextLineReader> reader_;
};

class TextLineDataset : public Dataset {
 public:
  TextLineDataset(StatsPtr stats, std::vector<std::string> files, Compression compression,
                  bool per_file)
      : Dataset(std::move(stats)),
        files_(std::move(files)),
        compression_(compression),
        per_file_(per_file) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    ASSIGN_OR_RETURN(std::vector<std::string> files,
                     FilesToRead(files_, per_file_, args, "text_line_file", stats()->name));
    return std::unique_ptr<Iterator>(
        std::make_unique<TextLineIterator>(*args.ctx, stats(), std::move(files), compression_));
  }

 private:
  const std::vector<std::string> files_;
  const Compression compression_;
  const bool per_file_;
};

}  // namespace

DatasetPtr MakeTextLineDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression) {
  return std::make_shared<TextLineDataset>(std::move(stats), std::move(files), compression, false);
}

DatasetPtr MakeTextLineFileDataset(StatsPtr stats, Compression compression) {
  return std::make_shared<TextLineDataset>(std::move(stats), std::vector<std::string>{},
                                           compression, true);
}

}  // namespace pipescope::engine
