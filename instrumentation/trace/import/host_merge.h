#pragma once
// Several traces of one training job (one per host or worker) in one view: each host's
// ops, steps, input waits and device activity become a group of lanes named after the
// host ("host1: steps", "host1: decode", ...), aligned on the traces' clocks (their
// origin_unix_ns: PyTorch and TensorFlow write epoch microseconds, Pipescope records the
// wall clock at the start), with each host's figures and verdict kept beside the view.

#include <memory>
#include <string>
#include <vector>

#include "instrumentation/trace/import/framework_report.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct HostTrace {
  std::string host;  // the lane group's name (the file's name without extension)
  std::shared_ptr<const Model> model;
};

struct MergedHosts {
  std::unique_ptr<Model> model;
  std::vector<std::pair<std::string, FrameworkSummary>> hosts;  // each host's own figures
  std::vector<std::string> warnings;
  std::string verdict;  // one line: which host waits most for input
};

MergedHosts MergeHosts(const std::vector<HostTrace>& hosts);

// A merged op's (or marker's) name: "host: name". HostOf gives the host back, empty for a
// name that has none.
std::string HostedName(const std::string& host, const std::string& name);
std::string HostOf(const std::string& hosted_name);

}  // namespace pipescope::trace
