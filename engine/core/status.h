#pragma once
// Errors are values. A Status is cheap when OK (one null pointer), so it can be returned
// from every GetNext on the hot path; an error carries a code and a message that already
// names its context (file, offset, line, op) so the user reads something actionable.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace pipescope::engine {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kOutOfRange,
  kDataLoss,
  kCancelled,
  kUnimplemented,
  kInternal,
  kResourceExhausted,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;
  // "CODE: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context` ("op 'decode': ...").
  Status WithContext(std::string_view context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<State> state_;
};

Status InvalidArgument(std::string message);
Status NotFound(std::string message);
Status OutOfRange(std::string message);
Status DataLoss(std::string message);
Status Cancelled(std::string message = "cancelled");
Status Unimplemented(std::string message);
Status Internal(std::string message);

// A value or an error. Access to value() on an error is a programming mistake (asserted).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace pipescope::engine

#define PIPESCOPE_CONCAT_INNER(a, b) a##b
#define PIPESCOPE_CONCAT(a, b) PIPESCOPE_CONCAT_INNER(a, b)

// Returns early from the enclosing function when `expr` yields an error Status.
#define RETURN_IF_ERROR(expr)                               \
  do {                                                      \
    ::pipescope::engine::Status pipescope_status_ = (expr); \
    if (!pipescope_status_.ok()) return pipescope_status_;  \
  } while (false)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

// `ASSIGN_OR_RETURN(auto x, MakeX());` binds x or returns the error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(PIPESCOPE_CONCAT(pipescope_result_, __LINE__), lhs, expr)
