#include "engine/spec/spec_loader.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "engine/core/text_file.h"
#include "engine/spec/file_readers.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::engine {
namespace {

class CollectingErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit CollectingErrorCollector(std::string_view source) : source_(source) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    Add(line, column, message);
  }
  void AddWarning(int line, google::protobuf::io::ColumnNumber column,
                  const std::string& message) override {
    Add(line, column, "warning: " + message);
  }
  const std::string& text() const { return text_; }

 private:
  void Add(int line, int column, const std::string& message) {
    if (!text_.empty()) text_ += "\n";
    // The parser counts from 0; editors count from 1.
    text_ += source_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " +
             message;
  }
  std::string source_;
  std::string text_;
};

}  // namespace

std::string SubstituteAutotune(std::string_view text) {
  static constexpr std::string_view kWord = "AUTOTUNE";
  std::string out;
  out.reserve(text.size());
  char quote = 0;
  bool comment = false;
  char last_significant = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (comment) {
      out += c;
      if (c == '\n') comment = false;
      continue;
    }
    if (quote) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '#') {
      comment = true;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (last_significant == ':' && text.substr(i, kWord.size()) == kWord &&
               (i + kWord.size() == text.size() ||
                !(std::isalnum(static_cast<unsigned char>(text[i + kWord.size()])) ||
                  text[i + kWord.size()] == '_'))) {
      out += "-1";
      i += kWord.size() - 1;
      last_significant = '1';
      continue;
    }
    out += c;
    if (!std::isspace(static_cast<unsigned char>(c))) last_significant = c;
  }
  return out;
}

Result<spec::PipelineSpec> ParseSpecText(std::string_view text, std::string_view source_name) {
  const std::string source(source_name.empty() ? "<spec>" : source_name);
  const std::string substituted = SubstituteAutotune(text);
  spec::PipelineSpec spec;
  google::protobuf::TextFormat::Parser parser;
  CollectingErrorCollector errors(source);
  google::protobuf::TextFormat::ParseInfoTree locations;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&locations);
  if (!parser.ParseFromString(substituted, &spec)) {
    return InvalidArgument(errors.text().empty() ? source + ": not a valid pipeline spec"
                                                 : errors.text());
  }
  AssignDefaultOpNames(spec);
  RETURN_IF_ERROR(ValidateSpec(spec, source, &locations));
  return spec;
}

namespace {

// Applies `f` to each data path a spec names (the ones ResolveDataPaths resolves).
template <typename F>
void ForEachDataPath(spec::PipelineSpec& spec, F f) {
  auto* source = spec.mutable_source();
  if (source->has_list_files()) f(source->mutable_list_files()->mutable_pattern());
  if (auto* files = MutableRecordFilesOf(*source)) {
    for (auto& file : *files) f(&file);
  }
}

}  // namespace

Result<spec::PipelineSpec> LoadSpecFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, "pipeline spec"));
  ASSIGN_OR_RETURN(spec::PipelineSpec spec, ParseSpecText(text, path));
  ResolveDataPaths(spec, std::filesystem::path(path).parent_path().string());
  return spec;
}

void ResolveDataPaths(spec::PipelineSpec& spec, const std::string& base_dir) {
  auto resolve = [&](std::string* p) {
    if (p->empty() || std::filesystem::path(*p).is_absolute()) return;
    *p =
        (std::filesystem::path(base_dir.empty() ? "." : base_dir) / *p).lexically_normal().string();
  };
  ForEachDataPath(spec, resolve);
}

Status WriteSpecFile(const spec::PipelineSpec& spec, const std::string& path,
                     const std::string& comment) {
  namespace fs = std::filesystem;
  spec::PipelineSpec copy = spec;
  const fs::path folder = fs::absolute(fs::path(path)).parent_path().lexically_normal();
  ForEachDataPath(copy, [&](std::string* p) {
    if (p->empty() || fs::path(*p).is_absolute()) return;
    const fs::path absolute = fs::absolute(fs::path(*p)).lexically_normal();
    const fs::path relative = absolute.lexically_relative(folder);
    // Sharing nothing but the root (/tmp against /home/...): the absolute path reads better.
    const bool only_root_shared = std::distance(folder.begin(), folder.end()) ==
                                  1 + std::count(relative.begin(), relative.end(), fs::path(".."));
    *p = only_root_shared ? absolute.string() : relative.string();
  });
  std::ofstream file(path);
  file << "# " << comment << "\n" << SpecToText(copy);
  file.close();
  if (!file) return InvalidArgument("cannot write the pipeline spec " + path);
  return Status::Ok();
}

std::string SpecToText(const spec::PipelineSpec& spec) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(spec, &text);
  // Spell the sentinel back out for the knobs that accept it.
  static const std::regex kKnob(
      "((num_parallel_calls|cycle_length|block_length|buffer_size): )-1\\b");
  return std::regex_replace(text, kKnob, "$1AUTOTUNE");
}

}  // namespace pipescope::engine
