#include <zlib.h>

#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {
namespace {

// `text` as one gzip member.
std::string GzipMember(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

// A small trace in two gzip members, the first larger than the second (whose size is the
// one the trailer gives), then a writer's zero padding.
std::string FuzzSeed() {
  const std::string events =
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":600,"dur":300},)"
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":2,"ts":100,"dur":1000},)";
  const std::string rest = R"({"ph":"i","name":"mark","pid":1,"tid":2,"ts":50}]})";
  return GzipMember(events + events + events) + GzipMember(rest) + std::string(8, '\0');
}

}  // namespace pipescope::fuzz
