#include "app/session/trace_files.h"

#include "instrumentation/trace/format/trace_reader.h"
#include "instrumentation/trace/import/chrome_trace_import.h"

namespace pipescope::session {

engine::Result<OpenedTrace> OpenTraceFile(const std::string& path,
                                          const std::function<bool(double)>& progress) {
  OpenedTrace out;
  if (trace::IsJsonTracePath(path)) {
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
  return out;
}

}  // namespace pipescope::session
