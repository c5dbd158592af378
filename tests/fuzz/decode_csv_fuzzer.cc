// Fuzz target: decode_csv's parse of text lines (quotes, delimiters, numbers, select_cols)
// on arbitrary bytes, a line at a time and as a batch. It must give values or an error,
// never crash or read past a line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/work/decode_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pipescope::engine;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size() && lines.size() < 1000) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  CsvRules plain, fixed, picked, unquoted;
  fixed.columns = 3;
  picked.select = {0, 2};
  unquoted.quotes = false;
  unquoted.delimiter = ';';
  std::vector<float> out;
  for (const CsvRules* rules : {&plain, &fixed, &picked, &unquoted}) {
    for (size_t i = 0; i < lines.size(); ++i) {
      (void)ParseCsvLine(lines[i], *rules, static_cast<int64_t>(i), out);
      if (out.size() > (1 << 20)) out.clear();
    }
  }
  pipescope::spec::DecodeCsv config;
  auto fn = DecodeCsv::Create(config);
  if (!fn.ok()) return 0;
  CancellationToken c;
  Element batch;
  batch.value = Tensor(DType::kString, Shape{static_cast<int64_t>(lines.size())});
  batch.value.strings() = lines;
  (void)(*fn)->ApplyBatched(batch, static_cast<int64_t>(lines.size()), c);
  return 0;
}
