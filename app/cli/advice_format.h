#pragma once
// The advice after a summary (`run`, `simulate`, `report` of a trace of Pipescope's own):
// computed by the advisor on the trace's cost model, applied to the verdict, printed as
// JSON ("advice") and as text.

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/sim/cost_model.h"
#include "engine/tuning/advisor.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/model.h"

namespace pipescope::cli {

// Advice for the run in `model`, analysed as `analysis`, whose verdict takes it. A trace
// the advisor cannot work on gets a note on `err` and no advice. `cores`: the machine the
// advice is for (report --cores); 0: the run's.
std::optional<engine::AdvisorResult> AdviseForSummary(const trace::Model& model,
                                                      trace::RangeAnalysis& analysis,
                                                      std::ostream& err, double cores = 0);

// Advice for a simulation of `spec` on `model` (the model it ran on, `--model` included).
std::optional<engine::AdvisorResult> AdviseForSummary(const spec::PipelineSpec& spec,
                                                      const sim::CostModel& model,
                                                      trace::RangeAnalysis& analysis,
                                                      std::ostream& err);

// Without advice (--no-advice), a verdict that suggests a change says it was not tried: its
// rule of thumb can lose where the simulator would have seen it. What the spec shows
// whatever the speed (engine::AdvisorFindings: a shard's waste, a replicated dataset's
// copies) needs no simulation, and is said all the same.
void MarkSuggestionUntried(trace::RangeAnalysis& analysis, const spec::PipelineSpec& spec);
// The same for a trace: its header's spec, where it has one.
void MarkSuggestionUntried(trace::RangeAnalysis& analysis, const trace::Model& model);

// Sets "advice" (the list, best first) and "advice_from_steps_per_s" (the simulator's rate of
// the spec as given, which every prediction starts from) on `summary`.
void PutAdvice(nlohmann::json& summary, const engine::AdvisorResult& advice);
std::string AdviceToText(const engine::AdvisorResult& advice);

// What `--advice-code OUT.py` is asked to write: the .py's path, its --set and --pipeline, the
// copy's path, and which piece of advice (`piece`, 1 for the first as listed; 0: Together's
// changes where the code can take them all, else the first piece it can take).
struct AdviceCodeRequest {
  std::string py_path;
  std::vector<std::string> overrides;
  std::string pipeline;
  std::string out_path;
  int piece = 0;
};
// `--advice-code OUT.py` on a .py: the user's file with the advice written in, where each
// op's call is (code_patch.h), to the request's `out_path`; what it wrote and its notes on
// `out`. Returns 0 written; 2 with the reason on `err` for what the command was given (not a
// .py, code it cannot read, a piece that is not there); 1 where the file cannot be written;
// kNothingToWrite where the advice holds nothing the code can take (no advice gains, or it
// changes a function's own code, which is the author's to write), said on `err`: the
// simulation ran, and its output stands.
inline constexpr int kNothingToWrite = 3;
int WriteAdviceIntoCode(const AdviceCodeRequest& request, const engine::AdvisorResult& advice,
                        std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
