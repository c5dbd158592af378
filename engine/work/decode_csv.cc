#include "engine/work/decode_csv.h"

#include <charconv>
#include <cmath>
#include <string>

namespace pipescope::engine {
namespace {

// A field's text as a number: leading and trailing spaces allowed (as TensorFlow allows
// for numeric fields), empty or `na_value` is 0 (the numeric default), anything else that
// is not a whole number is NaN.
float FieldValue(std::string_view text, std::string_view na_value) {
  if (!na_value.empty() && text == na_value) return 0.0f;
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  if (text.empty()) return 0.0f;
  if (text.front() == '+') text.remove_prefix(1);
  float value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nanf("");
  return value;
}

std::string Where(int64_t index, size_t at) {
  return "decode_csv: record " + std::to_string(index) + ", byte " + std::to_string(at);
}

}  // namespace

Status ParseCsvLine(std::string_view line, const CsvRules& rules, int64_t index,
                    std::vector<float>& out) {
  // A line read with its newline (a CRLF file's \r) ends before it.
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t first = out.size();
  std::string unquoted;
  int64_t field = 0;
  size_t next_selected = 0;
  size_t i = 0;
  const auto keep = [&](float v) {
    if (rules.select.empty()) {
      out.push_back(v);
    } else if (next_selected < rules.select.size() && rules.select[next_selected] == field) {
      out.push_back(v);
      ++next_selected;
    }
  };
  while (true) {
    if (rules.quotes && i < line.size() && line[i] == '"') {
      // A quoted field: up to the quote that is not doubled, then a delimiter or the end.
      unquoted.clear();
      size_t j = i + 1;
      while (true) {
        if (j >= line.size()) return InvalidArgument(Where(index, i) + ": a quote is not closed");
        if (line[j] == '"') {
          if (j + 1 < line.size() && line[j + 1] == '"') {
            unquoted.push_back('"');
            j += 2;
            continue;
          }
          break;
        }
        unquoted.push_back(line[j++]);
      }
      ++j;  // past the closing quote
      if (j < line.size() && line[j] != rules.delimiter) {
        return InvalidArgument(Where(index, j) +
                               ": a quoted field must end at a delimiter or the line's end");
      }
      keep(FieldValue(unquoted, rules.na_value));
      i = j;
    } else {
      const size_t end = line.find(rules.delimiter, i);
      const size_t stop = end == std::string_view::npos ? line.size() : end;
      keep(FieldValue(line.substr(i, stop - i), rules.na_value));
      i = stop;
    }
    ++field;
    if (i >= line.size()) break;
    ++i;  // past the delimiter: a field follows, empty if the line ends here
    if (i == line.size()) {
      keep(0.0f);
      ++field;
      break;
    }
  }
  if (rules.columns > 0 && field != rules.columns) {
    out.resize(first);
    return InvalidArgument("decode_csv: expected " + std::to_string(rules.columns) +
                           " fields but record " + std::to_string(index) + " has " +
                           std::to_string(field));
  }
  if (next_selected < rules.select.size()) {
    out.resize(first);
    return InvalidArgument("decode_csv: select_cols names field " +
                           std::to_string(rules.select[next_selected]) + " but record " +
                           std::to_string(index) + " has " + std::to_string(field));
  }
  return Status::Ok();
}

Result<std::unique_ptr<WorkFunction>> DecodeCsv::Create(const spec::DecodeCsv& spec) {
  CsvRules rules;
  if (spec.field_delim().size() > 1) {
    return InvalidArgument("decode_csv: field_delim must be one character, got '" +
                           spec.field_delim() + "'");
  }
  if (!spec.field_delim().empty()) rules.delimiter = spec.field_delim()[0];
  if (rules.delimiter == '"' || rules.delimiter == '\n') {
    return InvalidArgument("decode_csv: field_delim cannot be a quote or a newline");
  }
  rules.quotes = !spec.quotes_are_text();
  rules.na_value = spec.na_value();
  if (spec.columns() < 0) return InvalidArgument("decode_csv: columns must be 0 or more");
  rules.columns = spec.columns();
  for (int64_t c : spec.select_cols()) {
    if (c < 0 || (!rules.select.empty() && c <= rules.select.back())) {
      return InvalidArgument("decode_csv: select_cols must be increasing indices from 0");
    }
    rules.select.push_back(c);
  }
  return std::unique_ptr<WorkFunction>(new DecodeCsv(std::move(rules)));
}

Status DecodeCsv::Apply(Element& element, CancellationToken&) const { return Parse(element); }

Status DecodeCsv::ApplyBatched(Element& batch, int64_t, CancellationToken&) const {
  return Parse(batch);
}

// A line or a batch of lines: TensorFlow's record numbers count the lines of the call.
Status DecodeCsv::Parse(Element& batch) const {
  if (batch.value.dtype() != DType::kString) {
    return InvalidArgument("decode_csv needs text lines (string elements), got " +
                           std::string(DTypeName(batch.value.dtype())));
  }
  const auto& lines = batch.value.strings();
  std::vector<float> values;
  CsvRules rules = rules_;
  int64_t per_line = 0;
  for (size_t r = 0; r < lines.size(); ++r) {
    const size_t before = values.size();
    RETURN_IF_ERROR(ParseCsvLine(lines[r], rules, static_cast<int64_t>(r), values));
    const auto made = static_cast<int64_t>(values.size() - before);
    if (r == 0) {
      per_line = made;
      // Without a column count every line must have as many fields as the first.
      if (rules.columns == 0 && rules.select.empty()) rules.columns = made;
    } else if (made != per_line) {
      return InvalidArgument("decode_csv: record " + std::to_string(r) + " has " +
                             std::to_string(made) + " fields, the first had " +
                             std::to_string(per_line));
    }
  }
  ASSIGN_OR_RETURN(Shape shape, batch.value.shape().Append(per_line));
  Tensor out(DType::kFloat32, shape);
  std::copy(values.begin(), values.end(), out.data<float>());
  batch.value = std::move(out);
  return Status::Ok();
}

}  // namespace pipescope::engine
