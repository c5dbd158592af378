#pragma once
// `pipescope-cli convert IN OUT`: writes a trace in another format, the one OUT's extension
// names; IN is any trace Pipescope opens, recognised by its content (trace_formats.h).

#include <iosfwd>
#include <string>

namespace pipescope::cli {

struct ConvertCommandOptions {
  std::string in_path;
  std::string out_path;
};

int ConvertCommand(const ConvertCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
