#pragma once
// The size of a tf.train.Example as the code's parse describes it, for stand-in records: a
// TFRecord file the code computes is replaced by synthetic records, whose size is better an
// Example of the features the pipeline parses (tensorflow#37093's 135 floats, about 580 bytes)
// than a fixed 10 KiB.

#include <cstdint>
#include <optional>
#include <string>

#include "app/code/code_import.h"

namespace pipescope::code {

// The encoded bytes of an Example holding every feature of `parse` at its FixedLenFeature
// shape, as protobuf encodes it (packed lists, each length a varint); nullopt where a
// feature's size is not in the code (bytes, a VarLenFeature, no shape). An int64 counts two
// bytes a value, the varint of a small number (labels, sizes).
std::optional<int64_t> EncodedExampleBytes(const spec::ParseExample& parse);

// "the stand-in is 10000 records of 10 KiB: --set read.records=N ..." with `why` after the
// size where the size is not the default's.
std::string StandInRecordsNote(const std::string& source, int64_t records, int64_t record_bytes,
                               const std::string& why = "");
// Stand-in records for `whose` compressed files ("read's files are ZLIB-compressed: ..."):
// plain, so their decompression is not counted, which `setting` (the files) brings back.
std::string CompressedStandInNote(const std::string& whose, const std::string& compression,
                                  const std::string& setting);
// "100 bytes", "10 KiB", "8 MiB": a size in a note.
std::string SizeText(int64_t bytes);

// Where the source's stand-in records are of the default size and the first map parses
// Examples of known size: the records are that size. Returns why, for StandInRecordsNote
// ("an Example of the features 'parse' parses"); "" where their size stays the default.
std::string SizeStandInRecordsByTheirParse(ImportedCode& code);

}  // namespace pipescope::code
