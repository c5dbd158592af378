#include "instrumentation/trace/import/event_vocabulary.h"

#include <array>
#include <utility>

namespace pipescope::trace {
namespace {

// Kineto's activity type names (libkineto ActivityType), the capitalised ones that PyTorch
// 1.8-1.10 wrote, and the flows' categories. Exact, case-sensitive: "Kernel" is a category
// those versions wrote, "KERNEL" is not.
constexpr std::array<std::pair<std::string_view, EventClass>, 34> kCategories{{
    {"kernel", EventClass::kDeviceKernel},
    {"Kernel", EventClass::kDeviceKernel},
    {"gpu_memcpy", EventClass::kDeviceCopy},
    {"Memcpy", EventClass::kDeviceCopy},
    {"gpu_memset", EventClass::kDeviceSet},
    {"Memset", EventClass::kDeviceSet},
    {"mtia_ccp_events", EventClass::kDeviceKernel},  // Meta's MTIA accelerator's work
    {"gpu_user_annotation", EventClass::kDeviceAnnotation},
    {"cpu_op", EventClass::kHost},
    {"Operator", EventClass::kHost},
    {"user_annotation", EventClass::kHost},
    {"cuda_runtime", EventClass::kHost},  // ROCm traces too, with hip* names
    {"Runtime", EventClass::kHost},
    {"cuda_driver", EventClass::kHost},
    {"cuda_sync", EventClass::kHost},
    {"python_function", EventClass::kHost},
    {"Python", EventClass::kHost},
    {"xpu_runtime", EventClass::kHost},
    {"xpu_driver", EventClass::kHost},
    {"mtia_runtime", EventClass::kHost},
    {"hpu_op", EventClass::kHost},
    {"privateuse1_runtime", EventClass::kHost},
    {"privateuse1_driver", EventClass::kHost},
    {"glow_runtime", EventClass::kHost},
    {"overhead", EventClass::kHost},
    {"Trace", EventClass::kHost},
    {"external_correlation", EventClass::kHost},
    {"cpu_instant_event", EventClass::kHost},
    {"collective_comm", EventClass::kHost},
    {"ac2g", EventClass::kFlow},
    {"async_cpu_to_gpu", EventClass::kFlow},
    {"fwdbwd", EventClass::kFlow},
    {"forward_backward", EventClass::kFlow},
    {"async", EventClass::kFlow},
}};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

EventClass ClassOfCategory(std::string_view category) {
  for (const auto& [name, c] : kCategories) {
    if (name == category) return c;
  }
  return EventClass::kUnknown;
}

record::EventKind DeviceKind(EventClass c) {
  switch (c) {
    case EventClass::kDeviceCopy:
      return record::EventKind::kGpuMemcpy;
    case EventClass::kDeviceSet:
      return record::EventKind::kGpuMemset;
    default:
      return record::EventKind::kGpuKernel;
  }
}

bool IsDeviceProcess(std::string_view name, std::string_view label) {
  if (StartsWith(label, "GPU") || StartsWith(label, "MTIA") || StartsWith(label, "XPU") ||
      StartsWith(label, "HPU"))
    return true;
  const size_t device = name.find("/device:");
  return device != std::string_view::npos && name.find("/device:CPU") == std::string_view::npos;
}

bool IsPyTorchStep(std::string_view name, EventClass c) {
  return StartsWith(name, "ProfilerStep#") && c != EventClass::kDeviceAnnotation &&
         !IsDeviceWork(c);
}

bool IsDataLoaderNext(std::string_view name) {
  return name.find("DataLoader") != std::string_view::npos &&
         name.find("__next__") != std::string_view::npos;
}

}  // namespace pipescope::trace
