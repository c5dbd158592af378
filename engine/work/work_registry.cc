#include "engine/work/work_registry.h"

#include <algorithm>

#include "engine/core/content_hash.h"
#include "engine/core/duration.h"
#include "engine/runtime/filter_rules.h"
#include "engine/spec/op_values.h"
#include "engine/work/cpu_work.h"
#include "engine/work/decode_csv.h"
#include "engine/work/image_ops.h"
#include "engine/work/normalize.h"
#include "engine/work/parse_example.h"
#include "engine/work/python_work.h"
#include "engine/work/sized_output.h"
#include "engine/work/unpack_bits.h"

namespace pipescope::engine {
namespace {

// io_wait(duration): a blocking wait (remote storage, an RPC). The thread sleeps, so
// more parallelism than cores still helps, unlike cpu_work.
class IoWait : public WorkFunction {
 public:
  explicit IoWait(int64_t duration_ns) : duration_ns_(duration_ns) {}
  std::string name() const override { return "io_wait"; }
  Status Apply(Element&, CancellationToken& cancellation) const override {
    return cancellation.SleepFor(duration_ns_) ? Status::Ok() : Cancelled();
  }

 private:
  const int64_t duration_ns_;
};

class Identity : public WorkFunction {
 public:
  std::string name() const override { return "identity"; }
  Status Apply(Element&, CancellationToken&) const override { return Status::Ok(); }
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element&, int64_t, CancellationToken&) const override { return Status::Ok(); }
};

// lambda x: tf.fill([x], x) on an int64 scalar.
class Fill : public WorkFunction {
 public:
  std::string name() const override { return "fill"; }
  Status Apply(Element& e, CancellationToken&) const override {
    ASSIGN_OR_RETURN(const int64_t x, e.value.Int64ScalarFor("fill"));
    if (x < 0) {
      return InvalidArgument("fill: dims must be non-negative, got [" + std::to_string(x) + "]");
    }
    Tensor filled(DType::kInt64, Shape{x});
    std::fill_n(filled.data<int64_t>(), x, x);
    e.value = std::move(filled);
    return Status::Ok();
  }
};

class KeepFraction : public Predicate {
 public:
  KeepFraction(double fraction, uint64_t seed) : fraction_(fraction), seed_(seed) {}
  Result<bool> Keep(const Element& e) const override {
    const double u =
        static_cast<double>(HashTensor(e.value, seed_ * 0x9E3779B97F4A7C15ull) >> 11) * 0x1.0p-53;
    return u < fraction_;
  }

 private:
  const double fraction_;
  const uint64_t seed_;
};

class ModEquals : public Predicate {
 public:
  ModEquals(int64_t modulus, int64_t remainder) : modulus_(modulus), remainder_(remainder) {}
  Result<bool> Keep(const Element& e) const override {
    ASSIGN_OR_RETURN(const int64_t value, e.value.Int64ScalarFor("mod_equals"));
    return ModEqualsKeeps(value, modulus_, remainder_);
  }

 private:
  const int64_t modulus_;
  const int64_t remainder_;
};

// The function's own work, before what a call returns is sized (SizedOutput).
Result<std::unique_ptr<WorkFunction>> MakeWork(const spec::WorkFunction& fn,
                                               StorageDevicePtr storage) {
  switch (fn.kind_case()) {
    case spec::WorkFunction::kCpuWork: {
      ASSIGN_OR_RETURN(int64_t ns, ParseDurationNs(fn.cpu_work().duration()));
      ASSIGN_OR_RETURN(int64_t wait, OptionalDurationNs(fn.cpu_work().wait()));
      return std::unique_ptr<WorkFunction>(std::make_unique<CpuWork>(
          ns, wait, CallFileRead{fn.cpu_work().read_bytes(), FilesReadByACall(fn.cpu_work())},
          std::move(storage)));
    }
    case spec::WorkFunction::kIoWait: {
      ASSIGN_OR_RETURN(int64_t ns, ParseDurationNs(fn.io_wait().duration()));
      return std::unique_ptr<WorkFunction>(std::make_unique<IoWait>(ns));
    }
    case spec::WorkFunction::kUnpackBits:
      return std::unique_ptr<WorkFunction>(std::make_unique<UnpackBits>());
    case spec::WorkFunction::kNormalize: {
      const float stddev = fn.normalize().stddev() == 0 ? 1.0f : fn.normalize().stddev();
      return std::unique_ptr<WorkFunction>(
          std::make_unique<Normalize>(fn.normalize().mean(), stddev));
    }
    case spec::WorkFunction::kIdentity:
      return std::unique_ptr<WorkFunction>(std::make_unique<Identity>());
    case spec::WorkFunction::kParseExample:
      return ParseExample::Create(fn.parse_example());
    case spec::WorkFunction::kDecodeJpeg:
      return std::unique_ptr<WorkFunction>(
          std::make_unique<DecodeJpegFn>(fn.decode_jpeg().feature()));
    case spec::WorkFunction::kResize:
      if (fn.resize().height() <= 0 || fn.resize().width() <= 0) {
        return InvalidArgument("resize needs a positive height and width");
      }
      return std::unique_ptr<WorkFunction>(
          std::make_unique<ResizeFn>(fn.resize().height(), fn.resize().width()));
    case spec::WorkFunction::kRandomCrop:
      if (fn.random_crop().height() <= 0 || fn.random_crop().width() <= 0) {
        return InvalidArgument("random_crop needs a positive height and width");
      }
      return std::unique_ptr<WorkFunction>(
          std::make_unique<RandomCropFn>(fn.random_crop().height(), fn.random_crop().width(),
                                         static_cast<uint64_t>(fn.random_crop().seed())));
    case spec::WorkFunction::kRandomFlip:
      return std::unique_ptr<WorkFunction>(
          std::make_unique<RandomFlipFn>(static_cast<uint64_t>(fn.random_flip().seed())));
    case spec::WorkFunction::kFill:
      return std::unique_ptr<WorkFunction>(std::make_unique<Fill>());
    case spec::WorkFunction::kPython: {
      ASSIGN_OR_RETURN(int64_t ns, ParseDurationNs(fn.python().duration()));
      ASSIGN_OR_RETURN(int64_t wait, OptionalDurationNs(fn.python().wait()));
      // The files' stand-in wait gives way to the disk the spec names.
      if (FileLoadsReadTheDisk(fn.python(), storage != nullptr)) wait = 0;
      const CallFileRead read{fn.python().read_bytes(), FilesReadByACall(fn.python())};
      return std::unique_ptr<WorkFunction>(std::make_unique<PythonWork>(
          ns, PythonGilShare(fn.python()), wait, read, std::move(storage)));
    }
    case spec::WorkFunction::kDecodeCsv:
      return DecodeCsv::Create(fn.decode_csv());
    case spec::WorkFunction::KIND_NOT_SET:
      break;
  }
  return InvalidArgument("map needs a function");
}

}  // namespace

Result<std::unique_ptr<WorkFunction>> MakeWorkFunction(const spec::WorkFunction& fn,
                                                       StorageDevicePtr storage) {
  ASSIGN_OR_RETURN(std::unique_ptr<WorkFunction> work, MakeWork(fn, std::move(storage)));
  if (fn.output_bytes() <= 0) return work;
  return std::unique_ptr<WorkFunction>(
      std::make_unique<SizedOutput>(std::move(work), fn.output_bytes()));
}

bool WorkFunctionHasBatchedForm(const spec::WorkFunction& fn) {
  // io_wait models a per-element request (one RPC per record); the record and image
  // functions work on one record or image of its own size at a time.
  switch (fn.kind_case()) {
    case spec::WorkFunction::kCpuWork:
      return fn.cpu_work().one_element_call().empty();
    case spec::WorkFunction::kPython:
    case spec::WorkFunction::kUnpackBits:
    case spec::WorkFunction::kNormalize:
    case spec::WorkFunction::kIdentity:
    case spec::WorkFunction::kDecodeCsv:  // tf.io.decode_csv takes a batch of lines
      return true;
    case spec::WorkFunction::kParseExample:
      // tf.io.parse_example over the batch; a var_len feature would be a SparseTensor.
      return std::none_of(fn.parse_example().features().begin(),
                          fn.parse_example().features().end(),
                          [](const spec::FeatureSpec& f) { return f.var_len(); });
    default:
      return false;
  }
}

bool WorkFunctionKeepsValue(const spec::WorkFunction& fn) {
  return WorkFunctionOnlyCosts(fn) && fn.output_bytes() <= 0;  // else a new array
}

bool WorkFunctionOnlyCosts(const spec::WorkFunction& fn) {
  return fn.has_identity() || fn.has_cpu_work() || fn.has_io_wait() || fn.has_python();
}

double WorkFunctionCpuFraction(const spec::WorkFunction& fn) {
  if (fn.has_io_wait()) return 0;
  const auto split = [](const std::string& duration, const std::string& wait) {
    auto cpu = OptionalDurationNs(duration);
    auto waits = OptionalDurationNs(wait);
    if (!cpu.ok() || !waits.ok() || *waits <= 0) return 1.0;
    return static_cast<double>(*cpu) / static_cast<double>(*cpu + *waits);
  };
  if (fn.has_python()) return split(fn.python().duration(), fn.python().wait());
  if (fn.has_cpu_work()) return split(fn.cpu_work().duration(), fn.cpu_work().wait());
  return 1;
}

bool WorkFunctionIsRandom(const spec::WorkFunction& fn) {
  return fn.has_random_crop() || fn.has_random_flip();
}

std::string WorkFunctionName(const spec::WorkFunction& fn) {
  const auto* oneof = fn.GetDescriptor()->FindOneofByName("kind");
  const auto* field = fn.GetReflection()->GetOneofFieldDescriptor(fn, oneof);
  return field ? field->name() : "none";
}

Result<std::unique_ptr<Predicate>> MakePredicate(const spec::Predicate& p) {
  switch (p.kind_case()) {
    case spec::Predicate::kKeepFraction:
      return std::unique_ptr<Predicate>(std::make_unique<KeepFraction>(
          p.keep_fraction().fraction(), static_cast<uint64_t>(p.keep_fraction().seed())));
    case spec::Predicate::kModEquals:
      return std::unique_ptr<Predicate>(
          std::make_unique<ModEquals>(p.mod_equals().modulus(), p.mod_equals().remainder()));
    case spec::Predicate::KIND_NOT_SET:
      break;
  }
  return InvalidArgument("filter needs a predicate");
}

}  // namespace pipescope::engine
