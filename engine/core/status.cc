#include "engine/core/status.h"

namespace pipescope::engine {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case StatusCode::kDataLoss:
      return "DATA_LOSS";
    case StatusCode::kCancelled:
      return "CANCELLED";
    case StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case StatusCode::kInternal:
      return "INTERNAL";
    case StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) state_ = std::make_unique<State>(State{code, std::move(message)});
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(state_->code)) + ": " + state_->message;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return Status();
  return Status(state_->code, std::string(context) + ": " + state_->message);
}

Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

}  // namespace pipescope::engine
