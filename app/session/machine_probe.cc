#include "app/session/machine_probe.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace pipescope::session {

pstrace::Machine ProbeMachine(int cpu_budget) {
  pstrace::Machine m;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.set_hostname(host);
  m.set_cpu_cores(std::max(1u, std::thread::hardware_concurrency()));
  m.set_cpu_budget(
      static_cast<uint32_t>(cpu_budget > 0 ? cpu_budget : static_cast<int>(m.cpu_cores())));
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    m.set_memory_bytes(static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size));
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) m.set_cpu_model(line.substr(colon + 2));
      break;
    }
  }
  return m;
}

}  // namespace pipescope::session
