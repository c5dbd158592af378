#include "app/cli/convert_command.h"

#include <chrono>
#include <ostream>

#include "app/cli/progress_bar.h"
#include "app/session/trace_files.h"
#include "instrumentation/trace/export/trace_export.h"
#include "instrumentation/trace/format/model_writer.h"

namespace pipescope::cli {

int ConvertCommand(const ConvertCommandOptions& options, std::ostream& out, std::ostream& err) {
  const bool to_pstrace = options.out_path.ends_with(".pstrace");
  if (!to_pstrace && !trace::ExportFormatOf(options.out_path)) {
    err << "pipescope-cli: cannot tell the format of '" << options.out_path
        << "': name it .perfetto-trace or .pftrace (Perfetto), .json or .json.gz (Chrome trace "
           "JSON), or .pstrace\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  auto loaded = session::OpenTraceFile(options.in_path);
  if (!loaded.ok()) {
    err << "pipescope-cli: " << loaded.status().message() << "\n";
    return 1;
  }
  for (const auto& w : loaded->warnings) err << "pipescope-cli: warning: " << w << "\n";
  const trace::Model& model = *loaded->model;
  ProgressBar bar("events");
  const int64_t events = static_cast<int64_t>(model.event_count());
  auto progress = [&](double share) {
    bar.Update(static_cast<int64_t>(share * static_cast<double>(events)), events);
    return true;
  };
  const engine::Status status = to_pstrace ? pstrace::WriteModel(model, options.out_path, progress)
                                           : trace::ExportTrace(model, options.out_path, progress);
  if (!status.ok()) {
    err << "pipescope-cli: " << status.message() << "\n";
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "wrote " << options.out_path << ": " << model.event_count() << " events in " << seconds
      << " s\n";
  return 0;
}

}  // namespace pipescope::cli
