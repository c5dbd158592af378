// Synthetic records as read from storage with a latency and a bandwidth: the stand-in
// for TFRecord shards when a lesson or benchmark needs storage it can control. Bytes are
// real (copied from a pseudo-random pool) and every wait goes through the cancellation
// token, so stopping is immediate.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/ops/ops.h"
#include "engine/runtime/storage_requests.h"

namespace pipescope::engine {
namespace {

const std::vector<char>& RandomPool() {
  static const std::vector<char> pool = [] {
    std::vector<char> p(1 << 20);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < p.size(); i += 8) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      std::memcpy(&p[i], &x, 8);
    }
    return p;
  }();
  return pool;
}

// Fills `bytes` bytes for record `index` of stream `stream` from the pool.
std::string RecordBytes(uint64_t stream, int64_t index, int64_t bytes) {
  const auto& pool = RandomPool();
  std::string out(static_cast<size_t>(bytes), '\0');
  uint64_t h =
      (stream + 1) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index) * 0xbf58476d1ce4e5b9ull;
  size_t pos = 0;
  while (pos < out.size()) {
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    const size_t offset = h % (pool.size() - 4096);
    const size_t n = std::min<size_t>(4096, out.size() - pos);
    std::memcpy(out.data() + pos, pool.data() + offset, n);
    pos += n;
  }
  return out;
}

uint64_t HashString(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

class SyntheticIterator : public SourceIterator {
 public:
  SyntheticIterator(PipelineContext& ctx, StageStats* stats, const SyntheticRecords& config,
                    uint64_t stream)
      : SourceIterator(ctx, stats), config_(config), stream_(stream) {}
  void Cancel() override {}

 protected:
  Status GetNextInternal(Element& out, bool& end) override {
    if (!opened_) {
      if (!ctx_.cancellation.SleepFor(config_.open_latency_ns)) return Cancelled();
      opened_ = true;
    }
    if (config_.records >= 0 && next_ >= config_.records) {
      end = true;
      return Status::Ok();
    }
    int64_t wait_ns = 0;
    const int64_t requests =
        RequestsStarted(next_, 1, config_.record_bytes, config_.read_request_bytes);
    for (int64_t r = 0; r < requests; ++r) wait_ns += RequestLatencyNs();
    if (config_.bandwidth_bytes_per_s > 0) {
      wait_ns += static_cast<int64_t>(static_cast<double>(config_.record_bytes) * 1e9 /
                                      config_.bandwidth_bytes_per_s);
    }
    if (!ctx_.cancellation.SleepFor(wait_ns)) return Cancelled();
    // From the spec's disk, a reader's buffer at a time: the file's first read opens it,
    // the rest go on where the disk is, unless another file's read came between (a seek on
    // a hard disk).
    if (config_.storage) {
      const RecordsRead read = DiskReadOfRecords(next_, 1, config_.record_bytes);
      if (read.bytes > 0 &&
          !config_.storage->Read(read.bytes, read.files, stream_, ctx_.cancellation)) {
        return Cancelled();
      }
    }
    out.id = ctx_.NewElementId();
    out.value = Tensor::String(RecordBytes(stream_, next_++, config_.record_bytes));
    out.features.clear();
    return Status::Ok();
  }

 private:
  // One request's wait: read_latency, or a log-normal draw with that mean and
  // read_latency_cv (sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2).
  int64_t RequestLatencyNs() {
    const auto mean = static_cast<double>(config_.read_latency_ns);
    if (config_.read_latency_cv <= 0 || mean <= 0) return config_.read_latency_ns;
    const double sigma2 = std::log1p(config_.read_latency_cv * config_.read_latency_cv);
    std::lognormal_distribution<double> latency(std::log(mean) - sigma2 / 2, std::sqrt(sigma2));
    return static_cast<int64_t>(latency(rng_));
  }

  const SyntheticRecords config_;
  const uint64_t stream_;
  std::mt19937_64 rng_{stream_ ^ 0x5851F42D4C957F2Dull};  // each file's latencies its own
  int64_t next_ = 0;
  bool opened_ = false;
};

class SyntheticDataset : public Dataset {
 public:
  SyntheticDataset(StatsPtr stats, SyntheticRecords config, bool per_file)
      : Dataset(std::move(stats)), config_(std::move(config)), per_file_(per_file) {
    // The pool is made when the pipeline is built, not at the first read: its 256 pages
    // fault in at ~12 us each on a VM, 3-5 ms that no real file's first read pays.
    RandomPool();
  }

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    uint64_t stream = config_.seed;
    if (per_file_) {
      // Each file's records differ: the stream is derived from the file's name/value.
      if (args.parent == nullptr) return Internal("synthetic_file outside an interleave");
      const Tensor& v = args.parent->value;
      stream ^= v.dtype() == DType::kString && !v.strings().empty()
                    ? HashString(v.strings()[0])
                    : static_cast<uint64_t>(v.scalar_int64()) * 0x9E3779B97F4A7C15ull;
    }
    return std::unique_ptr<Iterator>(
        std::make_unique<SyntheticIterator>(*args.ctx, stats(), config_, stream));
  }

 private:
  const SyntheticRecords config_;
  const bool per_file_;
};

}  // namespace

DatasetPtr MakeSyntheticDataset(StatsPtr stats, SyntheticRecords config) {
  return std::make_shared<SyntheticDataset>(std::move(stats), std::move(config), false);
}

DatasetPtr MakeSyntheticFileDataset(StatsPtr stats, SyntheticRecords config) {
  return std::make_shared<SyntheticDataset>(std::move(stats), std::move(config), true);
}

}  // namespace pipescope::engine
