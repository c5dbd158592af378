#pragma once
// decode_csv: text lines of comma-separated fields become float32 values, a line's fields
// in its last dimension (a [B] batch of lines becomes [B, columns]), as tf.io.decode_csv
// parses them (RFC 4180 quoting; spec DecodeCsv says the rules). The work is the real
// parse: every byte of every line is scanned, quotes undone, numbers converted.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "engine/work/work_function.h"

namespace pipescope::engine {

struct CsvRules {
  char delimiter = ',';
  bool quotes = true;           // a field in double quotes may hold the delimiter and ""
  int64_t columns = 0;          // fields a line must have; 0: as many as the first line has
  std::vector<int64_t> select;  // the fields kept, in order; empty: all
  std::string na_value;         // a field of this text is missing: 0, as an empty one
};

// The fields of one line as float32 values (appended to `out`), or an error naming the
// record by `index` and the byte of the line where the fault is.
Status ParseCsvLine(std::string_view line, const CsvRules& rules, int64_t index,
                    std::vector<float>& out);

class DecodeCsv : public WorkFunction {
 public:
  static Result<std::unique_ptr<WorkFunction>> Create(const spec::DecodeCsv& spec);
  std::string name() const override { return "decode_csv"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;

 private:
  explicit DecodeCsv(CsvRules rules) : rules_(std::move(rules)) {}
  Status Parse(Element& lines) const;
  CsvRules rules_;
};

}  // namespace pipescope::engine
