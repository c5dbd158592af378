#include "app/cli/advice_format.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/cli/progress_bar.h"
#include "app/cli/spec_argument.h"
#include "app/code/code_patch.h"
#include "app/session/advising.h"
#include "app/session/measurement.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/advisor.h"
#include "engine/tuning/advisor_findings.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::cli {

namespace {

std::optional<engine::AdvisorResult> Applied(engine::Result<engine::AdvisorResult> advice,
                                             trace::RangeAnalysis& analysis, std::ostream& err) {
  if (!advice.ok()) {
    err << "pipescope-cli: note: no advice: " << advice.status().message() << "\n";
    return std::nullopt;
  }
  session::ApplyAdvice(*advice, analysis.verdict);
  return std::move(advice).value();
}

// The advisor's progress on a terminal: simulating each change may take seconds on a large
// pipeline (an ImageNet batch of 2048 on 64 cores), and its rounds minutes.
std::function<void(size_t, size_t)> Showing(ProgressBar& bar) {
  return [&bar](size_t done, size_t total) {
    bar.Update(static_cast<int64_t>(done), static_cast<int64_t>(total));
  };
}

}  // namespace

std::optional<engine::AdvisorResult> AdviseForSummary(const trace::Model& model,
                                                      trace::RangeAnalysis& analysis,
                                                      std::ostream& err, double cores) {
  ProgressBar bar("changes simulated");
  return Applied(session::AdviseOnTrace(model, analysis, {}, cores, Showing(bar)), analysis, err);
}

std::optional<engine::AdvisorResult> AdviseForSummary(const spec::PipelineSpec& spec,
                                                      const sim::CostModel& model,
                                                      trace::RangeAnalysis& analysis,
                                                      std::ostream& err) {
  ProgressBar bar("changes simulated");
  return Applied(session::AdviseOn(spec, analysis, model, {}, Showing(bar)), analysis, err);
}

void MarkSuggestionUntried(trace::RangeAnalysis& analysis, const spec::PipelineSpec& spec) {
  trace::Verdict& v = analysis.verdict;
  session::AddFindings(engine::AdvisorFindings(
                           spec, analysis, static_cast<int64_t>(session::DefaultRamBudgetBytes())),
                       v);
  std::string s = v.suggestion;
  if (v.suggests_change && !s.empty()) {
    if (s.ends_with('.')) s.pop_back();
    s += " (a rule of thumb, not tried in the simulator: --no-advice)";
  }
  trace::SetSuggestion(v, s);  // the text, with the findings
}

void MarkSuggestionUntried(trace::RangeAnalysis& analysis, const trace::Model& model) {
  spec::PipelineSpec spec;  // an imported trace has none: no findings
  if (const std::string& text = model.run_info().spec_text; !text.empty()) {
    if (auto parsed = engine::ParseSpecText(text, "trace header"); parsed.ok()) spec = *parsed;
  }
  MarkSuggestionUntried(analysis, spec);
}

void PutAdvice(nlohmann::json& summary, const engine::AdvisorResult& advice) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : advice.advice) {
    nlohmann::json j = {{"kind", a.kind},
                        {"op", a.op},
                        {"change", a.change},
                        {"settings", a.settings},
                        {"predicted_steps_per_s", a.predicted_steps_per_s},
                        {"predicted_gain", a.predicted_gain},
                        {"confidence", a.confidence},
                        {"changes_output", a.changes_output},
                        {"text", a.text}};
    if (a.changes_output) j["what_changes"] = a.what_changes;
    if (!a.first_step.empty()) j["first_step"] = a.first_step;
    if (!a.fits_memory.empty()) j["fits_memory"] = a.fits_memory;
    // The advised pipeline itself: a move or an added op has no --set to try it with.
    if (a.spec.has_source()) j["spec"] = engine::SpecToText(a.spec);
    list.push_back(std::move(j));
  }
  summary["advice"] = std::move(list);
  summary["advice_from_steps_per_s"] = advice.simulated_steps_per_s;
  summary["advice_not_tried"] = advice.not_tried;
  const auto together_json = [](const engine::AdviceTogether& t) {
    nlohmann::json j = {{"changes", t.changes},
                        {"settings", t.settings},
                        {"kinds", t.kinds},
                        {"predicted_steps_per_s", t.predicted_steps_per_s},
                        {"predicted_gain", t.predicted_gain},
                        {"changes_output", !t.changes_output.empty()},
                        {"what_changes", t.changes_output},
                        {"spec", engine::SpecToText(t.spec)}};
    if (!t.first_step.empty()) j["first_step"] = t.first_step;
    if (!t.fits_memory.empty()) j["fits_memory"] = t.fits_memory;
    return j;
  };
  if (!advice.together.changes.empty()) {
    summary["advice_together"] = together_json(advice.together);
  }
  if (!advice.start_up_and_together.changes.empty()) {
    summary["advice_start_up_and_together"] = together_json(advice.start_up_and_together);
  }
}

std::string AdviceToText(const engine::AdvisorResult& advice) {
  if (advice.tried == 0 && advice.advice.empty()) return "";
  std::string out = "\nAdvice (" + engine::AdviceHeading(advice) + "):\n";
  std::string not_tried;
  for (const std::string& n : advice.not_tried) not_tried += "  Not tried: " + n + "\n";
  if (advice.advice.empty()) return out + "  none gains.\n" + not_tried;
  for (const auto& a : advice.advice) {
    out += "  [" + a.kind + ", " + a.confidence + "] " + a.text + "\n";
    if (!a.settings.empty()) {
      out += "    try it:";
      for (const auto& s : a.settings) out += " --set " + s;
      out += "\n";
    }
  }
  if (const auto& t = advice.together; !t.changes.empty()) {
    out += "  Together, " + engine::TogetherText(advice) + "\n";
    if (!t.moves) {
      out += "    try it:";
      for (const auto& s : t.settings) out += " --set " + s;
      out += "\n";
    } else {
      out +=
          "    the pipeline: --json's advice_together.spec (for a .py, --advice-code OUT.py "
          "writes it into a copy of the file)\n";
    }
  }
  if (const std::string both = engine::StartUpAndTogetherText(advice); !both.empty()) {
    out += "  First, then the steady changes: " + both +
           "\n    the pipeline: --json's advice_start_up_and_together.spec (for a .py, "
           "--advice-code OUT.py writes it into a copy of the file)\n";
  }
  return out + not_tried;
}

namespace {

// Whether `a` is one of the changes Together adds up.
bool InTogether(const engine::AdvisorResult& advice, const engine::Advice& a) {
  const auto& changes = advice.together.changes;
  return std::find(changes.begin(), changes.end(), a.change) != changes.end();
}

}  // namespace

int WriteAdviceIntoCode(const AdviceCodeRequest& request, const engine::AdvisorResult& advice,
                        std::ostream& out, std::ostream& err) {
  const std::string& py_path = request.py_path;
  const std::string& out_path = request.out_path;
  if (!py_path.ends_with(".py")) {
    err << "pipescope-cli: --advice-code writes advice into a .py's code; " << py_path
        << " is a spec (import-code FILE.py --apply SPEC does it for a tuned spec)\n";
    return 2;
  }
  // Together's changes where the code can take them all, else the first piece it can take.
  // A change of a function's own code (a generator that yields whole batches, or runs as
  // copies) is the author's to write: said as such, with what to write (tensorflow#13101's
  // generator), where it comes before what is written or nothing else can be.
  const bool together_writable =
      !advice.together.changes.empty() &&
      std::none_of(advice.advice.begin(), advice.advice.end(), [&](const engine::Advice& a) {
        return engine::AdviceOnly(a) && InTogether(advice, a);
      });
  // What to write, in order: Together's changes, else each piece of advice the code can
  // take; one the code has no place for (a sampler over every epoch's indices) gives way to
  // the next, and is said.
  struct Choice {
    const spec::PipelineSpec* spec;
    std::string what;
    const engine::Advice* advice;  // null for Together's changes
  };
  std::vector<Choice> choices;
  // The piece asked for (--advice-piece), else the first, where it is code's to change.
  const engine::Advice* by_hand = nullptr;
  if (request.piece > 0) {
    if (static_cast<size_t>(request.piece) > advice.advice.size()) {
      err << "pipescope-cli: --advice-piece " << request.piece << ": the advice has "
          << advice.advice.size() << (advice.advice.size() == 1 ? " piece" : " pieces") << "; "
          << out_path << " is not written\n";
      return 2;
    }
    const engine::Advice& asked = advice.advice[static_cast<size_t>(request.piece - 1)];
    if (engine::AdviceOnly(asked) || !asked.spec.has_source()) {
      by_hand = &asked;
    } else {
      choices.push_back(
          {&asked.spec,
           "piece " + std::to_string(request.piece) + " of the advice (" + asked.change + ")",
           &asked});
    }
  } else if (!advice.advice.empty() && engine::AdviceOnly(advice.advice[0])) {
    by_hand = &advice.advice[0];
  }
  // A first step that comes late is what the user waits for first: its change leads, with
  // the steady changes where the two were simulated together.
  if (const auto& both = advice.start_up_and_together;
      request.piece == 0 && !both.changes.empty() &&
      std::none_of(advice.advice.begin(), advice.advice.end(), [&](const engine::Advice& a) {
        return engine::AdviceOnly(a) &&
               std::find(both.changes.begin(), both.changes.end(), a.change) != both.changes.end();
      })) {
    choices.push_back({&both.spec, "the first piece of advice with the steady changes", nullptr});
  }
  if (together_writable && request.piece == 0) {
    choices.push_back({&advice.together.spec, "Together's changes", nullptr});
  }
  for (const engine::Advice& a : advice.advice) {
    if (request.piece != 0 || engine::AdviceOnly(a) || !a.spec.has_source()) continue;
    const size_t n = static_cast<size_t>(&a - advice.advice.data()) + 1;
    choices.push_back({&a.spec,
                       (n == 1 ? std::string("the first piece of advice")
                               : "piece " + std::to_string(n) + " of the advice") +
                           " (" + a.change + ")",
                       &a});
  }
  const auto say_by_hand = [&](std::ostream& to, const std::string& lead) {
    // Faster storage is a change of machine, not of anyone's code.
    const std::string what =
        by_hand->changes_machine      ? "' changes the machine, not the code, which --advice-code "
                                        "cannot write"
        : by_hand->op == "train_step" ? "' changes the training loop's own code, which "
                                        "--advice-code does not write"
                                      : "' changes the code of '" + by_hand->op +
                                            "' itself, which --advice-code does not write";
    to << lead << "'" << by_hand->change << what
       << " (it writes knobs and the order of calls); by hand: " << by_hand->text << "\n";
  };
  if (choices.empty() && by_hand) {
    say_by_hand(err, "pipescope-cli: --advice-code: ");
    return kNothingToWrite;
  }
  if (choices.empty()) {
    err << "pipescope-cli: --advice-code: no change to write (no advice gains); " << out_path
        << " is not written\n";
    return kNothingToWrite;
  }
  auto code = LoadCodeArgument(py_path, request.overrides, nullptr, {.pipeline = request.pipeline});
  if (!code.ok()) {
    err << "pipescope-cli: --advice-code: " << code.status().message() << "\n";
    return 2;
  }
  // Where the code has no place for a change (a cache after a zip), the next is tried rather
  // than a copy written that is the file itself; what could not be written is said.
  std::optional<code::EmittedCode> patched;
  const Choice* chosen = nullptr;
  std::vector<std::string> skipped;
  for (const Choice& c : choices) {
    auto p = code::PatchCode(*code, *c.spec);
    if (!p.ok()) {
      err << "pipescope-cli: --advice-code: " << p.status().message() << "\n";
      return 2;
    }
    if (p->text != code->source_text) {
      patched = std::move(p).value();
      chosen = &c;
      break;
    }
    std::string why = c.what + " cannot be written into " + py_path + "'s code:";
    for (const std::string& n : p->notes) why += "\n    " + n;
    skipped.push_back(std::move(why));
  }
  if (!patched) {
    for (const std::string& why : skipped) err << "pipescope-cli: --advice-code: " << why << "\n";
    if (by_hand) say_by_hand(err, "  before it, ");
    return kNothingToWrite;
  }
  const std::string& what = chosen->what;
  const bool unwritten =
      std::any_of(patched->notes.begin(), patched->notes.end(),
                  [](const std::string& n) { return n.find("not written") != std::string::npos; });
  std::ofstream f(out_path);
  f << patched->text;
  if (!f) {
    err << "pipescope-cli: --advice-code: cannot write " << out_path << "\n";
    return 1;
  }
  out << what << (unwritten ? " written in part" : " written") << " into a copy of " << py_path
      << ": " << out_path << " (diff it against " << py_path << ")\n";
  for (const std::string& n : patched->notes) out << "  " << n << "\n";
  for (const std::string& why : skipped) out << "  before it, " << why << "\n";
  if (by_hand) say_by_hand(out, "  before it, not written: ");
  // A parallelism tuned on this machine is this machine's: said where the spec gave no
  // budget, as the job may train on another (seed 000's NUM_MAP_THREADS=10 written as 2).
  const bool parallelism_written = std::any_of(
      patched->knobs_written.begin(), patched->knobs_written.end(), [](const std::string& k) {
        return engine::IsRunsAheadKnob(std::string_view(k).substr(k.rfind('.') + 1));
      });
  if (advice.cores_unbudgeted && parallelism_written) {
    out << "  the values are for " << advice.cores << (advice.cores == 1 ? " core" : " cores")
        << ", this machine's (the spec sets no budget): --set budget.cpu_cores=N advises for the "
           "machine that trains\n";
  }
  // A change that alters what reaches the step is said again where the code is written.
  if (chosen->advice && chosen->advice->changes_output) {
    out << "  it changes the output: " << chosen->advice->what_changes << "\n";
  } else if (!chosen->advice) {
    for (const engine::Advice& a : advice.advice) {
      if (InTogether(advice, a) && a.changes_output) {
        out << "  " << a.change << " changes the output: " << a.what_changes << "\n";
      }
    }
  }
  return 0;
}

}  // namespace pipescope::cli
