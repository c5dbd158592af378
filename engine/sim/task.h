#pragma once
// Task<T>: the coroutine type the simulator's threads and ops are written in. Lazily
// started; `co_await task` runs it and resumes the awaiting coroutine when it returns
// (symmetric transfer, so deep call chains do not grow the native stack). A Task owns its
// frame: destroying a suspended Task destroys the whole chain of frames below it.
//
// Rule for code written in Task: take a co_await's result into a variable before testing it
// (`const bool got = co_await x; if (!got) ...`). GCC 12 miscompiles a co_await inside an
// if/while condition or a && / || operand (the frame is resumed at a bad index: SIGILL).
//
// Single-threaded by design: every simulated thread is a coroutine resumed by one
// Scheduler on the calling thread, which is what makes a simulation deterministic.

#include <coroutine>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace pipescope::sim {

namespace internal {

// Coroutine frames come and go for every element and op (several per GetNext): a per-thread
// free list per 64-byte size class keeps them off the general allocator. Frames larger than
// the classes use it directly.
class FramePool {
 public:
  static constexpr size_t kClassBytes = 64;
  static constexpr size_t kClasses = 16;  // frames up to 1 KiB

  static void* Allocate(size_t bytes) {
    const size_t c = (bytes + kClassBytes - 1) / kClassBytes;
    if (c >= kClasses) return ::operator new(bytes);
    auto& head = Local().free[c];
    if (head) {
      void* p = head;
      head = head->next;
      return p;
    }
    return ::operator new(c* kClassBytes);
  }
  static void Release(void* p, size_t bytes) {
    const size_t c = (bytes + kClassBytes - 1) / kClassBytes;
    if (c >= kClasses) return ::operator delete(p);
    auto* node = static_cast<Node*>(p);
    auto& head = Local().free[c];
    node->next = head;
    head = node;
  }

 private:
  struct Node {
    Node* next;
  };
  struct Lists {
    Node* free[kClasses] = {};
    ~Lists() {
      for (Node* head : free) {
        while (head) {
          Node* next = head->next;
          ::operator delete(head);
          head = next;
        }
      }
    }
  };
  static Lists& Local() {
    thread_local Lists lists;
    return lists;
  }
};

struct TaskPromiseBase {
  static void* operator new(size_t bytes) { return FramePool::Allocate(bytes); }
  static void operator delete(void* p, size_t bytes) { FramePool::Release(p, bytes); }

  std::coroutine_handle<> continuation = std::noop_coroutine();

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  // The simulator's code does not throw; an exception here is a bug, not an input error.
  void unhandled_exception() noexcept { std::terminate(); }
};
}  // namespace internal

template <typename T = void>
class Task;

template <typename T>
struct TaskPromise : internal::TaskPromiseBase {
  std::optional<T> value;
  Task<T> get_return_object();
  template <typename U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
};
template <>
struct TaskPromise<void> : internal::TaskPromiseBase {
  Task<void> get_return_object();
  void return_void() {}
};

template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = TaskPromise<T>;

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  ~Task() {
    if (handle_) handle_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  T await_resume() {
    if constexpr (!std::is_void_v<T>) return std::move(*handle_.promise().value);
  }

  // For the scheduler: the frame to start a top-level task with.
  std::coroutine_handle<> handle() const { return handle_; }

 private:
  friend struct TaskPromise<T>;
  explicit Task(std::coroutine_handle<promise_type> h) : handle_(h) {}
  std::coroutine_handle<promise_type> handle_;
};

template <typename T>
Task<T> TaskPromise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}

}  // namespace pipescope::sim
