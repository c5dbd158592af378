#include "app/cli/report_command.h"

#include <iostream>
#include <map>

#include "app/cli/advice_format.h"
#include "app/cli/summary_format.h"
#include "app/cli/whatif_command.h"
#include "app/session/trace_files.h"
#include "engine/core/duration.h"
#include "instrumentation/trace/import/framework_report.h"
#include "instrumentation/trace/import/host_merge.h"
#include "instrumentation/trace/span_statistics.h"

namespace pipescope::cli {

// Several hosts' traces: each one's figures, and the host to look at first.
int ReportHosts(const ReportCommandOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<trace::HostTrace> hosts;
  std::map<std::string, std::vector<std::string>> host_warnings;
  std::vector<std::string> paths{options.trace_path};
  paths.insert(paths.end(), options.more_paths.begin(), options.more_paths.end());
  for (const auto& path : paths) {
    auto loaded = session::OpenTraceFile(path);
    if (!loaded.ok()) {
      err << "pipescope-cli: " << loaded.status().message() << "\n";
      return 1;
    }
    for (const auto& w : loaded->warnings) err << "pipescope-cli: warning: " << w << "\n";
    hosts.push_back({session::HostNameOf(path), loaded->model});
    auto& kept = host_warnings[hosts.back().host];
    kept.insert(kept.end(), loaded->warnings.begin(), loaded->warnings.end());
  }
  const trace::MergedHosts merged = trace::MergeHosts(hosts);
  for (const auto& w : merged.warnings) err << "pipescope-cli: warning: " << w << "\n";
  if (options.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [host, summary] : merged.hosts) {
      nlohmann::json j = FrameworkSummaryToJson(summary, host_warnings[host]);
      j["host"] = host;
      list.push_back(j);
    }
    out << nlohmann::json{{"hosts", list},
                          {"verdict", merged.verdict},
                          {"warnings", merged.warnings}}
               .dump(2)
        << "\n";
  } else {
    for (const auto& [host, summary] : merged.hosts)
      out << "== " << host << "\n" << FrameworkSummaryToText(summary);
    out << "verdict: " << merged.verdict << "\n";
  }
  return 0;
}

int ReportCommand(const ReportCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (!options.more_paths.empty()) return ReportHosts(options, out, err);
  int64_t t0 = 0, t1 = 0;
  if (!options.range.empty()) {
    auto range = engine::ParseTimeRange(options.range);
    if (!range.ok()) {
      err << "pipescope-cli: --range: " << range.status().message() << "\n";
      return 2;
    }
    t0 = range->t0_ns;
    t1 = range->t1_ns;
  }
  auto loaded = session::OpenTraceFile(options.trace_path);
  if (!loaded.ok()) {
    err << "pipescope-cli: " << loaded.status().message() << "\n";
    return 1;
  }
  for (const auto& w : loaded->warnings) err << "pipescope-cli: warning: " << w << "\n";
  const trace::Model& model = *loaded->model;
  if (t1 == 0) t1 = model.duration_ns();
  if (loaded->imported) {
    const auto summary = trace::SummarizeFramework(model, t0, t1);
    const auto spans = trace::SummarizeSpans(model, t0, t1);
    // A PyTorch job's DataLoader settings, searched in the simulator (whole traces only: a
    // range's steps are a what-if of their own).
    std::optional<WhatIfAdvice> advice;
    if (options.advice && summary.framework == "pytorch" && summary.input_bound &&
        options.range.empty())
      advice = AdviseFromTrace(model, options.trace_path, options.cores);
    if (options.json) {
      nlohmann::json j = FrameworkSummaryToJson(summary, loaded->warnings);
      j["spans"] = SpanStatisticsToJson(spans, options.top);
      if (advice) {
        j["advice"] = advice->json.is_null() ? nlohmann::json::array()
                                             : nlohmann::json::array({advice->json});
        j["advice_note"] = advice->text;
      }
      out << j.dump(2) << "\n";
    } else {
      out << FrameworkSummaryToText(summary);
      if (advice) out << "advice: " << advice->text << "\n";
      out << SpanStatisticsToText(spans, options.top);
    }
    return 0;
  }
  // Without a range, the run after its first step, as `run` grades it.
  auto analysis =
      options.range.empty() ? trace::AnalyzeSteady(model) : trace::Analyze(model, t0, t1);
  std::optional<engine::AdvisorResult> advice;
  if (options.advice) {
    advice = AdviseForSummary(model, analysis, err, options.cores);
  } else {
    MarkSuggestionUntried(analysis, model);
  }
  // Without a range, the run's own start-up and epochs, which a range leaves out.
  const SummaryContext context =
      ContextFromModel(model, nullptr, options.range.empty() ? &analysis : nullptr);
  if (options.json) {
    auto j = SummaryToJson(analysis, context);
    if (advice) PutAdvice(j, *advice);
    out << j.dump(2) << "\n";
  } else {
    out << SummaryToText(analysis, context);
    if (advice) out << AdviceToText(*advice);
  }
  return 0;
}

}  // namespace pipescope::cli
