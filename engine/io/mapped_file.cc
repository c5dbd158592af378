#include "engine/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csetjmp>
#include <csignal>
#include <mutex>

namespace pipescope::engine {
namespace {

// Where the thread inside Touch jumps back to; null outside Touch.
thread_local sigjmp_buf* t_touch_return = nullptr;
struct sigaction g_previous_sigbus {};

void OnSigbus(int signal, siginfo_t* info, void* context) {
  if (sigjmp_buf* back = t_touch_return) siglongjmp(*back, 1);
  // Not a mapped file's page: whatever handled SIGBUS before handles it, or the default
  // action ends the process as it would have without this handler.
  if (g_previous_sigbus.sa_flags & SA_SIGINFO) {
    g_previous_sigbus.sa_sigaction(signal, info, context);
  } else if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN) {
    g_previous_sigbus.sa_handler(signal);
  } else {
    std::signal(SIGBUS, SIG_DFL);
    std::raise(SIGBUS);
  }
}

void InstallSigbusHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = OnSigbus;
    // SA_NODEFER: Touch leaves the handler by siglongjmp without restoring the signal mask
    // (saving it costs a system call per touch), so SIGBUS must not be blocked inside it.
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous_sigbus);
  });
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::TryMap(const std::string& path) {
  // Looked at before opening: opening a pipe would wait for its writer, and closing it
  // again would lose what the writer sends.
  struct stat before {};
  if (stat(path.c_str(), &before) != 0 || !S_ISREG(before.st_mode)) return nullptr;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void* data = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    data = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  close(fd);  // the mapping keeps the file
  if (data == MAP_FAILED) return nullptr;
  const auto size = static_cast<size_t>(st.st_size);
  // Records are read front to back: ask for aggressive read-ahead and early reclaim.
  madvise(data, size, MADV_SEQUENTIAL);
  InstallSigbusHandler();
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(data), size));
}

MappedFile::~MappedFile() { munmap(const_cast<char*>(data_), size_); }

bool MappedFile::TouchImpl(void (*call)(void*), void* fn) {
  sigjmp_buf back;
  sigjmp_buf* const outer = t_touch_return;
  if (sigsetjmp(back, /*savemask=*/0) != 0) {
    t_touch_return = outer;
    return false;
  }
  t_touch_return = &back;
  call(fn);
  t_touch_return = outer;
  return true;
}

}  // namespace pipescope::engine
