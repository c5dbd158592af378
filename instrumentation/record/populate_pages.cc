#include "instrumentation/record/populate_pages.h"

#include <cstdint>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace pipescope::record {

void PopulatePagesForWrite(void* p, size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older headers lack the name
#endif
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // The whole pages inside, found by offsets from `p` (no integer becomes a pointer).
  const auto address = reinterpret_cast<uintptr_t>(p);
  const uintptr_t skip = (page - address % page) % page;
  const uintptr_t cut = (address + bytes) % page;
  if (skip + cut >= bytes) return;
  // Fails harmlessly (EINVAL) on a kernel without it.
  madvise(static_cast<char*>(p) + skip, bytes - skip - cut, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

MappedPages MapPages(size_t bytes) {
#if defined(__linux__)
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#else
  void* p = ::operator new(bytes);
#endif
  return MappedPages(p, UnmapPages{bytes});
}

void UnmapPages::operator()(void* p) const {
#if defined(__linux__)
  munmap(p, bytes);
#else
  ::operator delete(p);
#endif
}

}  // namespace pipescope::record
