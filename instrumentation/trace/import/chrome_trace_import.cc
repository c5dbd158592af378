#include "instrumentation/trace/import/chrome_trace_import.h"

#include "instrumentation/trace/import/framework_mapping.h"
#include "instrumentation/trace/import/json_file.h"
#include "instrumentation/trace/import/trace_events.h"

namespace pipescope::trace {
namespace {

// Reading is the first fifth of the progress, parsing up to three quarters, placing the
// spans on the model the rest.
std::function<bool(double)> Stage(const std::function<bool(double)>& progress, double from,
                                  double to) {
  if (!progress) return {};
  return [progress, from, to](double share) { return progress(from + (to - from) * share); };
}

std::string BaseName(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (const char* ext : {".gz", ".json"}) {
    if (name.ends_with(ext)) name.resize(name.size() - std::char_traits<char>::length(ext));
  }
  return name;
}

// Takes the text, which nothing else reads: its pages are given back as it is parsed, and
// it is freed before the model is built (a large trace's text and its model would
// otherwise be in memory at once).
engine::Result<ImportedTrace> Import(JsonText text, const std::string& source,
                                     const std::string& name, const ImportOptions& options,
                                     double parse_from) {
  EventParseOptions parse;
  parse.progress = Stage(options.progress, parse_from, 0.75);
  if (options.chunk_bytes > 0) parse.chunk_bytes = options.chunk_bytes;
  if (options.chunked_above > 0) parse.chunked_above = options.chunked_above;
  parse.release_parsed_text = true;
  ASSIGN_OR_RETURN(TraceEvents events, ParseTraceEvents(text.text(), source, parse));
  const uint64_t json_bytes = text.size;
  text = JsonText{};
  MappedTrace mapped = MapTraceEvents(std::move(events), name, Stage(options.progress, 0.75, 1.0));
  if (!mapped.model) return engine::Status(engine::StatusCode::kCancelled, "import cancelled");
  ImportedTrace out{std::move(mapped.model), std::move(mapped.framework),
                    std::move(mapped.warnings), json_bytes};
  if (options.progress) options.progress(1.0);
  return out;
}

}  // namespace

engine::Result<ImportedTrace> ImportChromeTrace(const std::string& path,
                                                const ImportOptions& options) {
  ASSIGN_OR_RETURN(JsonText text,
                   ReadJsonFile(path, options.max_bytes, Stage(options.progress, 0, 0.2)));
  return Import(std::move(text), path, BaseName(path), options, 0.2);
}

engine::Result<ImportedTrace> ImportChromeTraceText(std::string_view json, const std::string& name,
                                                    const ImportOptions& options) {
  if (json.size() > options.max_bytes) {
    return engine::Status(engine::StatusCode::kResourceExhausted, name + ": too large");
  }
  return Import(PaddedJson(json), name, name, options, 0);
}

}  // namespace pipescope::trace
