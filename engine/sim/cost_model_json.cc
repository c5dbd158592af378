#include "engine/sim/cost_model_json.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "engine/core/text_file.h"

namespace pipescope::sim {
namespace {

using nlohmann::json;

constexpr double kMaxMeanNs = 3.6e12;
constexpr double kMaxCv = 100;

json DistToJson(const Dist& d) { return json{{"mean_ns", d.mean_ns}, {"cv", d.cv}}; }

// Reads `key` of `j` into `out` when present; a wrong type is an error naming the path.
template <typename T>
engine::Status Read(const json& j, const char* key, T& out, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) return engine::Status::Ok();
  if (!it->is_number()) {
    return engine::InvalidArgument(path + "." + key + ": expected a number, found " +
                                   std::string(it->type_name()));
  }
  if constexpr (std::is_integral_v<T>) {
    // Whole numbers may be written as floats; beyond int64 they would not convert.
    const double v = it->get<double>();
    if (!(v >= -9e18 && v <= 9e18)) {
      return engine::InvalidArgument(path + "." + key + ": out of range");
    }
    out = it->is_number_integer() ? it->get<T>() : static_cast<T>(v);
  } else {
    out = it->get<T>();
  }
  return engine::Status::Ok();
}

// An interleave's files' record counts: an array of counts, each at least 0.
engine::Status ReadRecordsByFile(const json& j, std::vector<int64_t>& out,
                                 const std::string& path) {
  auto it = j.find("records_by_file");
  if (it == j.end()) return engine::Status::Ok();
  const std::string here = path + ".records_by_file";
  if (!it->is_array()) return engine::InvalidArgument(here + ": expected an array of counts");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& n = (*it)[i];
    if (!n.is_number_integer() || n.get<int64_t>() < 0) {
      return engine::InvalidArgument(here + "[" + std::to_string(i) +
                                     "]: expected a whole number of records, at least 0");
    }
    out.push_back(n.get<int64_t>());
  }
  return engine::Status::Ok();
}

engine::Status ReadDist(const json& j, const char* key, Dist& out, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) return engine::Status::Ok();
  const std::string here = path + "." + key;
  if (!it->is_object()) return engine::InvalidArgument(here + ": expected {\"mean_ns\", \"cv\"}");
  RETURN_IF_ERROR(Read(*it, "mean_ns", out.mean_ns, here));
  RETURN_IF_ERROR(Read(*it, "cv", out.cv, here));
  if (out.mean_ns < 0 || out.cv < 0)
    return engine::InvalidArgument(here + ": must not be negative");
  // Beyond these a model is a mistake (an hour per element, a spread of 100x the mean), and
  // the simulator's arithmetic would overflow.
  if (!(out.mean_ns <= kMaxMeanNs) || !(out.cv <= kMaxCv)) {
    return engine::InvalidArgument(here +
                                   ": mean_ns must be at most 3.6e12 (an hour) and cv at most 100");
  }
  return engine::Status::Ok();
}

}  // namespace

std::string CostModelToJson(const CostModel& m) {
  json ops = json::object();
  for (const auto& [name, c] : m.ops) {
    ops[name] = json{{"cpu", DistToJson(c.cpu)},
                     {"cpu_per_row", DistToJson(c.cpu_per_row)},
                     {"wait", DistToJson(c.wait)},
                     {"open_wait", DistToJson(c.open_wait)},
                     {"request_wait", DistToJson(c.request_wait)},
                     {"request_bytes", c.request_bytes},
                     {"keep_fraction", c.keep_fraction},
                     {"gil_share", c.gil_share},
                     {"out_bytes", c.out_bytes},
                     {"records", c.records},
                     {"worker_startup_ns", c.worker_startup_ns}};
    if (!c.records_by_file.empty()) ops[name]["records_by_file"] = c.records_by_file;
  }
  json j{{"format", "pipescope-cost-model"},
         {"version", 1},
         {"origin", m.origin},
         {"cores", m.cores},
         {"oversubscription_cost", m.oversubscription_cost},
         {"handoff_ns", m.handoff_ns},
         {"handoff_giver_ns", m.handoff_giver_ns},
         {"step", DistToJson(m.step)},
         {"step_host", DistToJson(m.step_host)},
         {"step_host_gil_share", m.step_host_gil_share},
         {"loop_python", DistToJson(m.loop_python)},
         {"timer_wake", DistToJson(m.timer_wake)},
         {"startup_ns", m.startup_ns},
         {"ops", ops}};
  return j.dump(2) + "\n";
}

engine::Result<CostModel> ParseCostModelJson(const std::string& text, CostModel m,
                                             const std::string& where) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return engine::InvalidArgument(where + ": not valid JSON");
  if (!j.is_object()) return engine::InvalidArgument(where + ": expected a JSON object");
  if (auto f = j.find("format"); f != j.end() && *f != "pipescope-cost-model") {
    return engine::InvalidArgument(where + ": not a Pipescope cost model (format " + f->dump() +
                                   ")");
  }
  if (auto o = j.find("origin"); o != j.end() && o->is_string()) m.origin = o->get<std::string>();
  RETURN_IF_ERROR(Read(j, "cores", m.cores, where));
  RETURN_IF_ERROR(Read(j, "oversubscription_cost", m.oversubscription_cost, where));
  RETURN_IF_ERROR(Read(j, "handoff_ns", m.handoff_ns, where));
  RETURN_IF_ERROR(Read(j, "handoff_giver_ns", m.handoff_giver_ns, where));
  RETURN_IF_ERROR(ReadDist(j, "step", m.step, where));
  RETURN_IF_ERROR(ReadDist(j, "step_host", m.step_host, where));
  RETURN_IF_ERROR(ReadDist(j, "loop_python", m.loop_python, where));
  RETURN_IF_ERROR(Read(j, "step_host_gil_share", m.step_host_gil_share, where));
  if (!(m.step_host_gil_share >= 0 && m.step_host_gil_share <= 1)) {
    return engine::InvalidArgument(where + ".step_host_gil_share: must be within [0, 1]");
  }
  RETURN_IF_ERROR(ReadDist(j, "timer_wake", m.timer_wake, where));
  RETURN_IF_ERROR(Read(j, "startup_ns", m.startup_ns, where));
  if (m.startup_ns < 0 || m.startup_ns > 3'600'000'000'000) {
    return engine::InvalidArgument(where + ".startup_ns: must be within [0, 1 hour]");
  }
  if (!(m.cores > 0 && m.cores <= 4096)) {
    return engine::InvalidArgument(where + ".cores: must be positive (at most 4096)");
  }
  if (!(m.oversubscription_cost >= 0 && m.oversubscription_cost <= 10) || m.handoff_ns < 0 ||
      m.handoff_ns > 1'000'000'000) {
    return engine::InvalidArgument(where +
                                   ": oversubscription_cost must be within [0, 10] and handoff_ns "
                                   "within [0, 1e9]");
  }
  if (m.handoff_giver_ns < -1 || m.handoff_giver_ns > m.handoff_ns) {
    return engine::InvalidArgument(
        where + ".handoff_giver_ns: must be -1 (half) or within [0, handoff_ns]");
  }
  if (auto ops = j.find("ops"); ops != j.end()) {
    if (!ops->is_object()) return engine::InvalidArgument(where + ".ops: expected an object");
    for (const auto& [name, o] : ops->items()) {
      const std::string path = where + ".ops." + name;
      if (!o.is_object()) return engine::InvalidArgument(path + ": expected an object");
      OpCost& c = m.ops[name];
      RETURN_IF_ERROR(ReadDist(o, "cpu", c.cpu, path));
      RETURN_IF_ERROR(ReadDist(o, "cpu_per_row", c.cpu_per_row, path));
      RETURN_IF_ERROR(ReadDist(o, "wait", c.wait, path));
      RETURN_IF_ERROR(ReadDist(o, "open_wait", c.open_wait, path));
      RETURN_IF_ERROR(ReadDist(o, "request_wait", c.request_wait, path));
      RETURN_IF_ERROR(Read(o, "request_bytes", c.request_bytes, path));
      if (c.request_bytes < 0 || c.request_bytes > (int64_t{1} << 40)) {
        return engine::InvalidArgument(path + ".request_bytes: must be within [0, 2^40]");
      }
      RETURN_IF_ERROR(Read(o, "keep_fraction", c.keep_fraction, path));
      RETURN_IF_ERROR(Read(o, "gil_share", c.gil_share, path));
      RETURN_IF_ERROR(Read(o, "out_bytes", c.out_bytes, path));
      RETURN_IF_ERROR(Read(o, "records", c.records, path));
      RETURN_IF_ERROR(Read(o, "worker_startup_ns", c.worker_startup_ns, path));
      RETURN_IF_ERROR(ReadRecordsByFile(o, c.records_by_file, path));
      if (c.out_bytes < 0 || c.out_bytes > (int64_t{1} << 40) || c.records < -1) {
        return engine::InvalidArgument(path +
                                       ": out_bytes must be within [0, 2^40], records at least -1");
      }
      if (c.worker_startup_ns < -1 || c.worker_startup_ns > int64_t{3600} * 1'000'000'000) {
        return engine::InvalidArgument(path +
                                       ".worker_startup_ns: must be within [0, 1 hour] (or -1: as "
                                       "the spec says)");
      }
      if (!(c.keep_fraction >= 0 && c.keep_fraction <= 1)) {
        return engine::InvalidArgument(path + ".keep_fraction: must be within [0, 1]");
      }
      if (!(c.gil_share >= 0 && c.gil_share <= 1)) {
        return engine::InvalidArgument(path + ".gil_share: must be within [0, 1]");
      }
    }
  }
  return m;
}

engine::Result<CostModel> LoadCostModelFile(const std::string& path, CostModel base) {
  ASSIGN_OR_RETURN(const std::string text, engine::ReadWholeFile(path, "cost model"));
  const std::string base_origin = base.origin;
  ASSIGN_OR_RETURN(CostModel model, ParseCostModelJson(text, std::move(base), path));
  // A file that does not name its origin (one written by hand) is the origin itself.
  if (model.origin == base_origin) model.origin = std::filesystem::path(path).filename().string();
  // A simulation's trace header names the file, and advice on that trace loads the same
  // costs again (a lesson's model.json, `simulate --model`), from whatever folder the trace
  // is opened in later: the whole path.
  std::error_code ec;
  const std::filesystem::path whole = std::filesystem::absolute(path, ec);
  model.file = ec ? path : whole.lexically_normal().string();
  return model;
}

engine::Status SaveCostModelFile(const CostModel& model, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return engine::InvalidArgument("cannot write " + path);
  out << CostModelToJson(model);
  out.close();
  if (!out) return engine::InvalidArgument("writing " + path + " failed");
  return engine::Status::Ok();
}

}  // namespace pipescope::sim
