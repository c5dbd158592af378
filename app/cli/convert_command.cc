#include "app/cli/convert_command.h"

#include <chrono>
#include <ostream>

#include "app/cli/progress_bar.h"
#include "app/session/trace_files.h"
#include "app/session/trace_formats.h"

namespace pipescope::cli {

int ConvertCommand(const ConvertCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (session::WrittenFormatNamedBy(options.out_path) == nullptr) {
    err << "pipescope-cli: cannot tell which format to write '" << options.out_path
        << "' in: name it for one of " << session::ListOfFormats(true) << "\n";
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
  const engine::Status status = session::WriteTraceFile(model, options.out_path, progress);
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
