#pragma once
// A read-only mapping of a whole regular file, so that the TFRecord reader checks and
// hands on records where the page cache holds them instead of copying every byte into a
// buffer first (the copy `read` makes is most of what reading a file costs).
//
// A mapping has one hazard that `read` does not: when another process truncates the file,
// touching a page past the new end raises SIGBUS. Every touch of mapped bytes therefore
// goes through Touch, which turns that signal into `false` on the thread that touched the
// page, so a file that shrinks while it is read is an error, not a crash.

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "engine/core/status.h"

namespace pipescope::engine {

class MappedFile {
 public:
  // The mapping of `path`, or nullptr where the file cannot be mapped (not a regular
  // file, empty, or mmap refused): the caller then reads it with `read`.
  static std::unique_ptr<MappedFile> TryMap(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }

  // Runs `fn`, which reads mapped bytes, and returns false if a page it touched was cut
  // from the file meanwhile. `fn` is left at the faulting load, so it must not allocate,
  // lock or own anything that needs cleaning up on the way out: checksums and copies into
  // memory the caller owns.
  template <class Fn>
  static bool Touch(Fn&& fn) {
    return TouchImpl([](void* f) { (*static_cast<std::remove_reference_t<Fn>*>(f))(); }, &fn);
  }

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}
  static bool TouchImpl(void (*call)(void*), void* fn);

  const char* const data_;
  const size_t size_;
};

}  // namespace pipescope::engine
