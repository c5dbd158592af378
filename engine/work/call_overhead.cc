#include "engine/work/call_overhead.h"

#include <atomic>

#include "engine/core/duration.h"
#include "engine/work/cpu_work.h"

namespace pipescope::engine {
namespace {

class CallOverhead : public WorkFunction {
 public:
  CallOverhead(std::unique_ptr<WorkFunction> fn, int64_t ns) : fn_(std::move(fn)), ns_(ns) {}
  std::string name() const override { return fn_->name(); }
  Status Apply(Element& element, CancellationToken& cancellation) const override {
    BurnCpuNs(ns_, element.id);
    return fn_->Apply(element, cancellation);
  }
  bool has_batched_form() const override { return fn_->has_batched_form(); }
  Status ApplyBatched(Element& batch, int64_t rows,
                      CancellationToken& cancellation) const override {
    BurnCpuNs(ns_, batch.id);  // once per call, whatever the call is given
    return fn_->ApplyBatched(batch, rows, cancellation);
  }

 private:
  const std::unique_ptr<WorkFunction> fn_;
  const int64_t ns_;
};

class PredicateCallOverhead : public Predicate {
 public:
  PredicateCallOverhead(std::unique_ptr<Predicate> predicate, int64_t ns)
      : predicate_(std::move(predicate)), ns_(ns) {}
  Result<bool> Keep(const Element& element) const override {
    BurnCpuNs(ns_, element.id);
    return predicate_->Keep(element);
  }

 private:
  const std::unique_ptr<Predicate> predicate_;
  const int64_t ns_;
};

}  // namespace

namespace {
Result<int64_t> OverheadNs(const std::string& call_overhead, int64_t otherwise) {
  if (call_overhead.empty()) return otherwise;
  auto ns = ParseDurationNs(call_overhead);
  if (!ns.ok()) return ns.status().WithContext("call_overhead");
  return ns.value();
}
}  // namespace

Result<int64_t> MapCallOverheadNs(const spec::MapOp& map) {
  return OverheadNs(map.call_overhead(), map.fn().has_python() ? kDefaultPythonCallNs : 0);
}

Result<int64_t> GeneratorCallOverheadNs(const spec::FromGeneratorSource& generator) {
  return OverheadNs(generator.call_overhead(), 0);
}

Result<int64_t> FilterCallOverheadNs(const spec::FilterOp& filter) {
  return OverheadNs(filter.call_overhead(), 0);
}

std::unique_ptr<WorkFunction> WithCallOverhead(std::unique_ptr<WorkFunction> fn, int64_t ns) {
  if (ns <= 0) return fn;
  return std::make_unique<CallOverhead>(std::move(fn), ns);
}

std::unique_ptr<Predicate> WithCallOverhead(std::unique_ptr<Predicate> predicate, int64_t ns) {
  if (ns <= 0) return predicate;
  return std::make_unique<PredicateCallOverhead>(std::move(predicate), ns);
}

}  // namespace pipescope::engine
