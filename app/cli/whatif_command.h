#pragma once
// `pipescope-cli whatif TRACE [--set KNOB=VALUE]... [--given KNOB=VALUE]... [--cores N]
// [--json]`: what a PyTorch job whose profiler trace this is would do with other DataLoader
// settings (app/session/trace_whatif.h). With --set, the measured figures, the model's at
// the traced settings and the predicted ones side by side; without, the settings predicted
// best and what limits them. Every assumption is listed.

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/session/trace_whatif.h"

namespace pipescope::cli {

struct WhatIfCommandOptions {
  std::string trace_path;
  std::vector<std::string> sets;   // "num_workers=4", "dataloader.pin_memory=True"
  std::vector<std::string> given;  // what the trace does not show: "num_workers=4", "getitem=2ms"
  double cores = 0;
  bool json = false;
};

// A prediction as one entry of the advisor's list (advice_format.h's fields), `text` its
// sentence.
nlohmann::json WhatIfAdviceJson(const session::WhatIfPrediction& p, const std::string& text);

// For `report` on a PyTorch trace: the search's sentence and its advice entry, or why there is
// none (a multi-process trace, which needs --given).
struct WhatIfAdvice {
  std::string text;
  nlohmann::json json;  // null where there is none
};
// `cores`: the machine's the prediction is for (report --cores); 0: this machine's.
WhatIfAdvice AdviseFromTrace(const trace::Model& model, const std::string& trace_path,
                             double cores = 0);

int WhatIfCommand(const WhatIfCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
