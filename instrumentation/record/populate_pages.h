#pragma once
// Faults in freshly allocated memory in one system call instead of one page fault per 4 KiB
// page as it is first written. A trace is built in new memory (a simulation of a few
// seconds writes 10-20 MiB of events), and where page faults are expensive (virtual
// machines: about 15 us a page on the machine of docs/BENCHMARKS.md) faulting the pages in
// one at a time costs more than the work itself; populated together they cost a quarter
// of that. Best effort: where the kernel cannot (before Linux 5.14, or not Linux), nothing
// happens and the pages fault in as they are written.

#include <cstddef>
#include <memory>

namespace pipescope::record {

// Makes the whole pages inside [p, p + bytes) present and writable. Cheap on pages that
// already are.
void PopulatePagesForWrite(void* p, size_t bytes);

// Memory straight from the system (an anonymous mapping, where there is one): no page is
// resident until it is written or populated, and all of them go back when it is freed.
// Unlike the heap's, it is never memory that somebody else already faulted in.
struct UnmapPages {
  size_t bytes = 0;
  void operator()(void* p) const;
};
using MappedPages = std::unique_ptr<void, UnmapPages>;
// Throws std::bad_alloc when the system has no room.
MappedPages MapPages(size_t bytes);

}  // namespace pipescope::record
