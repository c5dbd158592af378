#pragma once
// A live run's model is read under the run's mutex; a loaded trace has none.

#include <mutex>

namespace pipescope::ui {

inline std::unique_lock<std::mutex> LockModel(std::mutex* mu) {
  return mu ? std::unique_lock<std::mutex>(*mu) : std::unique_lock<std::mutex>();
}

}  // namespace pipescope::ui
