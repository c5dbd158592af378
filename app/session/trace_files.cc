#include "app/session/trace_files.h"

#include "app/session/trace_formats.h"
#include "instrumentation/trace/format/trace_reader.h"
#include "instrumentation/trace/import/chrome_trace_import.h"

namespace pipescope::session {

std::string HostNameOf(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const size_t dot = name.find('.');
  return dot == 0 || dot == std::string::npos ? name : name.substr(0, dot);
}

engine::Result<OpenedTrace> OpenTraceFile(const std::string& path,
                                          const std::function<bool(double)>& progress) {
  ASSIGN_OR_RETURN(const TraceFormat* format, RecognizeTraceFile(path));
  OpenedTrace out;
  if (format->id == TraceFormatId::kPerfetto) {
    return engine::InvalidArgument(
        path +
        ": a Perfetto trace. Pipescope writes these for ui.perfetto.dev but does not "
        "read them; open the trace it was made from (.pstrace) or the profiler's JSON");
  }
  if (format->id == TraceFormatId::kChromeJson) {
    trace::ImportOptions options;
    options.progress = progress;
    ASSIGN_OR_RETURN(auto imported, trace::ImportChromeTrace(path, options));
    out.model = std::move(imported.model);
    out.warnings = std::move(imported.warnings);
    out.imported = true;
    return out;
  }
  pstrace::ReadOptions options;
  options.progress = progress;
  ASSIGN_OR_RETURN(auto loaded, pstrace::ReadTraceFile(path, options));
  out.model = std::move(loaded.model);
  out.warnings = std::move(loaded.warnings);
  // A profiler's trace saved as .pstrace is reported as the profiler's trace it was.
  out.imported = !out.model->run_info().imported_from.empty();
  return out;
}

}  // namespace pipescope::session
