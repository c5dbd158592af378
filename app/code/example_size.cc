#include "app/code/example_size.h"

#include <algorithm>

namespace pipescope::code {

namespace {

// A varint's bytes: seven bits each.
int64_t VarintBytes(uint64_t v) {
  int64_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field: its tag (one byte for the field numbers here), its length, its
// bytes.
int64_t Delimited(int64_t bytes) { return 1 + VarintBytes(static_cast<uint64_t>(bytes)) + bytes; }

constexpr int64_t kInt64ValueBytes = 2;

}  // namespace

std::optional<int64_t> EncodedExampleBytes(const spec::ParseExample& parse) {
  if (parse.features().empty()) return std::nullopt;
  int64_t features = 0;  // Features' map entries
  for (const spec::FeatureSpec& f : parse.features()) {
    if (f.var_len() || (f.dtype() != "float" && f.dtype() != "int64")) return std::nullopt;
    int64_t values = 1;
    for (const int64_t d : f.shape()) {
      if (d < 0) return std::nullopt;
      values *= d;
    }
    // FloatList / Int64List: one packed field of the values.
    const int64_t list = Delimited(values * (f.dtype() == "float" ? 4 : kInt64ValueBytes));
    // Feature: the list as its float_list or int64_list field.
    const int64_t feature = Delimited(list);
    // The map entry: key (field 1) and the Feature as value (field 2), itself a field of
    // Features.
    const int64_t name = static_cast<int64_t>(f.name().size());
    features += Delimited(Delimited(name) + Delimited(feature));
  }
  // Example: Features as its field 1.
  return Delimited(features);
}

std::string SizeText(int64_t bytes) {
  if (bytes > 0 && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return bytes > 0 && bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KiB"
                                        : std::to_string(bytes) + " bytes";
}

std::string CompressedStandInNote(const std::string& whose, const std::string& compression,
                                  const std::string& setting) {
  return whose + " files are " + compression +
         "-compressed: the synthetic records that stand in are not, so their decompression is "
         "not counted; --set " +
         setting + ".files=PATTERN reads the real files, decompressing them";
}

std::string StandInRecordsNote(const std::string& source, int64_t records, int64_t record_bytes,
                               const std::string& why) {
  return "the stand-in is " + std::to_string(records) + " records of " + SizeText(record_bytes) +
         (why.empty() ? "" : ", " + why) + ": --set " + source + ".records=N --set " + source +
         ".record_bytes=SIZE give the real data's count and size";
}

std::string SizeStandInRecordsByTheirParse(ImportedCode& code) {
  spec::Source& source = *code.spec.mutable_source();
  if (!code.source_stand_in || !source.has_synthetic() ||
      source.synthetic().stands_for() != spec::tfrecord_files ||
      source.synthetic().record_bytes() != kStandInRecordBytes) {
    return "";
  }
  for (const spec::Op& op : code.spec.ops()) {
    if (!op.has_map()) continue;
    if (!op.map().fn().has_parse_example()) return "";  // the first map is not the parse
    const auto bytes = EncodedExampleBytes(op.map().fn().parse_example());
    if (!bytes) return "";
    source.mutable_synthetic()->set_record_bytes(*bytes);
    return "an Example of the features '" + op.name() + "' parses";
  }
  return "";
}

}  // namespace pipescope::code
