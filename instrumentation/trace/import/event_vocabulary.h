#pragma once
// What a profiler's category and process names say an event is, for every generation of
// the PyTorch profiler (Kineto 2020-2025: "kernel" and "Kernel", "gpu_memcpy" and
// "Memcpy", ...), ROCm and other accelerators that write Kineto's categories, and
// TensorFlow's trace viewer. The table itself, with the definitions of steps, input wait
// and device busy built on it, is documented in IMPORT.md beside this file.

#include <string_view>

#include "instrumentation/record/event.h"

namespace pipescope::trace {

enum class EventClass {
  kHost,          // CPU work: operators, runtime and driver calls, annotations, Python
  kDeviceKernel,  // work on the device: counts as device busy
  kDeviceCopy,
  kDeviceSet,
  kDeviceAnnotation,  // a host annotation's copy on the device's timeline: not work
  kFlow,              // an arrow between spans (ac2g, fwdbwd)
  kUnknown,           // a category this table does not know: shown as a host lane
};

// By category alone (exact spellings; Kineto's and its older capitalised ones).
EventClass ClassOfCategory(std::string_view category);

// Device work by its class, as a trace event kind (kGpuKernel for kDeviceKernel, ...).
record::EventKind DeviceKind(EventClass c);
inline bool IsDeviceWork(EventClass c) {
  return c == EventClass::kDeviceKernel || c == EventClass::kDeviceCopy ||
         c == EventClass::kDeviceSet;
}

// Whether a process is a device by its name or label: Kineto labels device processes
// "GPU 0" (also for ROCm), TensorFlow names them "/device:GPU:0" (or TPU, ...).
bool IsDeviceProcess(std::string_view name, std::string_view label);

// PyTorch's profiler step span ("ProfilerStep#12"), not its device-side copy.
bool IsPyTorchStep(std::string_view name, EventClass c);
// PyTorch's DataLoader fetch ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__").
bool IsDataLoaderNext(std::string_view name);

}  // namespace pipescope::trace
