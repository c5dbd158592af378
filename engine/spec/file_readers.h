#pragma once
// The readers of record files a spec names (TFRecordDataset, TextLineDataset,
// FixedLengthRecordDataset), each written as how it reads one file: an ElementSource of kind
// tfrecord_file, text_line_file or fixed_length_record_file. A source over a list of files
// is that reader applied to each file in turn, and an interleave over the names applies it
// to several at once (num_parallel_reads): the one mapping between the two forms.

#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The files a source reads and how it reads each; false for a source that reads no listed
// files (a range, a generator, synthetic records).
inline bool FilesAndReaderOf(const spec::Source& source, std::vector<std::string>& files,
                             spec::ElementSource& per_file) {
  per_file.Clear();
  switch (source.kind_case()) {
    case spec::Source::kTfrecord: {
      const auto& t = source.tfrecord();
      files.assign(t.files().begin(), t.files().end());
      per_file.mutable_tfrecord_file()->set_compression(t.compression());
      per_file.mutable_tfrecord_file()->set_skip_corrupt(t.skip_corrupt());
      return true;
    }
    case spec::Source::kTextLine: {
      const auto& t = source.text_line();
      files.assign(t.files().begin(), t.files().end());
      per_file.mutable_text_line_file()->set_compression(t.compression());
      return true;
    }
    case spec::Source::kFixedLengthRecord: {
      const auto& f = source.fixed_length_record();
      files.assign(f.files().begin(), f.files().end());
      *per_file.mutable_fixed_length_record_file() = f.format();
      return true;
    }
    default:
      return false;
  }
}

// A source named `name` reading `files` one after another with `per_file`, a file reader
// (FilesAndReaderOf's inverse); a source of no kind for any other element source.
inline spec::Source SourceOfFiles(const std::string& name, const std::vector<std::string>& files,
                                  const spec::ElementSource& per_file) {
  spec::Source s;
  s.set_name(name);
  switch (per_file.kind_case()) {
    case spec::ElementSource::kTfrecordFile:
      for (const auto& f : files) s.mutable_tfrecord()->add_files(f);
      s.mutable_tfrecord()->set_compression(per_file.tfrecord_file().compression());
      s.mutable_tfrecord()->set_skip_corrupt(per_file.tfrecord_file().skip_corrupt());
      break;
    case spec::ElementSource::kTextLineFile:
      for (const auto& f : files) s.mutable_text_line()->add_files(f);
      s.mutable_text_line()->set_compression(per_file.text_line_file().compression());
      break;
    case spec::ElementSource::kFixedLengthRecordFile:
      for (const auto& f : files) s.mutable_fixed_length_record()->add_files(f);
      *s.mutable_fixed_length_record()->mutable_format() = per_file.fixed_length_record_file();
      break;
    default:
      break;
  }
  return s;
}

// The files a source reads records from, as it lists them (TFRecordDataset's,
// TextLineDataset's, FixedLengthRecordDataset's); null for every other source.
inline const google::protobuf::RepeatedPtrField<std::string>* RecordFilesOf(const spec::Source& s) {
  if (s.has_tfrecord()) return &s.tfrecord().files();
  if (s.has_text_line()) return &s.text_line().files();
  if (s.has_fixed_length_record()) return &s.fixed_length_record().files();
  return nullptr;
}
// Whether a source reads records (from files it lists, or synthetic ones standing in for
// them), not names or numbers.
inline bool ReadsRecords(const spec::Source& s) {
  return RecordFilesOf(s) != nullptr || s.has_synthetic();
}

// The files a source lists, to change in place; null for a source that lists none.
inline google::protobuf::RepeatedPtrField<std::string>* MutableRecordFilesOf(spec::Source& s) {
  if (s.has_tfrecord()) return s.mutable_tfrecord()->mutable_files();
  if (s.has_text_line()) return s.mutable_text_line()->mutable_files();
  if (s.has_fixed_length_record()) return s.mutable_fixed_length_record()->mutable_files();
  return nullptr;
}

// The compression a reader of one file reads it with ("" for none, or for no reader).
inline const std::string& CompressionOfReader(const spec::ElementSource& per_file) {
  if (per_file.has_text_line_file()) return per_file.text_line_file().compression();
  if (per_file.has_fixed_length_record_file()) {
    return per_file.fixed_length_record_file().compression();
  }
  return per_file.tfrecord_file().compression();
}

// Whether an element source reads the file its element names with one of these readers.
inline bool ReadsANamedFile(const spec::ElementSource& per_file) {
  return per_file.has_tfrecord_file() || per_file.has_text_line_file() ||
         per_file.has_fixed_length_record_file();
}

}  // namespace pipescope::engine
