#include "instrumentation/trace/export/trace_export.h"

namespace pipescope::trace {

std::optional<ExportFormat> ExportFormatOf(const std::string& path) {
  for (const char* ext : {".perfetto-trace", ".pftrace", ".perfetto"}) {
    if (path.ends_with(ext)) return ExportFormat::kPerfetto;
  }
  if (path.ends_with(".json") || path.ends_with(".json.gz")) return ExportFormat::kChromeJson;
  return std::nullopt;
}

engine::Status ExportTrace(const Model& model, const std::string& path,
                           const ExportProgress& progress) {
  const auto format = ExportFormatOf(path);
  if (!format) {
    return engine::Status(engine::StatusCode::kInvalidArgument,
                          "cannot tell the export format of '" + path +
                              "': name it .perfetto-trace / .pftrace (Perfetto) or .json / "
                              ".json.gz (Chrome trace JSON)");
  }
  return *format == ExportFormat::kPerfetto ? ExportPerfetto(model, path, progress)
                                            : ExportChromeJson(model, path, progress);
}

}  // namespace pipescope::trace
