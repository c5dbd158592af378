#include "app/cli/summary_format.h"

#include <cstdio>

namespace pipescope::cli {

nlohmann::json SummaryToJson(const engine::RunSummary& s) {
  nlohmann::json j;
  j["device"] = s.device;
  j["duration_s"] = s.duration_s;
  j["steps"] = s.steps;
  j["steps_per_s"] = s.steps_per_s;
  j["elements"] = s.elements;
  j["elements_per_s"] = s.elements_per_s;
  j["input_wait_fraction"] = s.input_wait_fraction;
  j["device_busy_fraction"] = s.device_busy_fraction;
  j["end_of_data"] = s.end_of_data;
  j["stages"] = nlohmann::json::array();
  for (const auto& st : s.stages) {
    j["stages"].push_back({
        {"name", st.name},
        {"op", st.op},
        {"depth", st.depth},
        {"parallelism", st.parallelism},
        {"buffer_size", st.buffer_size},
        {"elements", st.elements},
        {"self_ns_per_element", st.self_ns_per_element},
        {"busy_fraction", st.busy_fraction},
        {"waiting_input_fraction", st.waiting_input_fraction},
        {"blocked_output_fraction", st.blocked_output_fraction},
    });
  }
  j["knob_changes"] = nlohmann::json::array();
  for (const auto& c : s.knob_changes) {
    j["knob_changes"].push_back({{"op", c.change.op},
                                 {"knob", c.change.knob},
                                 {"from", c.change.from},
                                 {"to", c.change.to},
                                 {"who", c.change.who}});
  }
  return j;
}

std::string SummaryToText(const engine::RunSummary& s) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                "%lld steps in %.2f s on the %s device: %.1f steps/s, %.1f elements/s%s\n",
                static_cast<long long>(s.steps), s.duration_s, s.device.c_str(), s.steps_per_s,
                s.elements_per_s, s.end_of_data ? " (end of data)" : "");
  out += line;
  std::snprintf(line, sizeof line,
                "input wait %.1f%% of the time, device busy %.1f%%\n\n",
                100 * s.input_wait_fraction, 100 * s.device_busy_fraction);
  out += line;
  std::snprintf(line, sizeof line, "%-22s %-12s %5s %6s %10s %12s %6s %7s %7s\n", "stage", "op",
                "par", "buffer", "elements", "self/elem", "busy", "wait-in", "blocked");
  out += line;
  for (const auto& st : s.stages) {
    const std::string name = std::string(static_cast<size_t>(2 * st.depth), ' ') + st.name;
    std::snprintf(line, sizeof line, "%-22s %-12s %5lld %6lld %10lld %10.1fus %5.0f%% %6.0f%% %6.0f%%\n",
                  name.c_str(), st.op.c_str(), static_cast<long long>(st.parallelism),
                  static_cast<long long>(st.buffer_size), static_cast<long long>(st.elements),
                  st.self_ns_per_element / 1e3, 100 * st.busy_fraction,
                  100 * st.waiting_input_fraction, 100 * st.blocked_output_fraction);
    out += line;
  }
  return out;
}

}  // namespace pipescope::cli
