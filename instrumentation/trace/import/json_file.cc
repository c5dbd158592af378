#include "instrumentation/trace/import/json_file.h"

#include <libdeflate.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "instrumentation/record/populate_pages.h"

namespace pipescope::trace {
namespace {

constexpr size_t kChunk = 4 << 20;

engine::Status TooLarge(const std::string& path, uint64_t max_bytes) {
  return engine::Status(engine::StatusCode::kResourceExhausted,
                        path + ": larger than " + std::to_string(max_bytes >> 20) +
                            " MiB of JSON, more than this import takes; export a shorter "
                            "window of the run");
}

engine::Status Cancelled() {
  return engine::Status(engine::StatusCode::kCancelled, "import cancelled");
}

// Room for `size` bytes of text and the padding after them, keeping what is there.
void Reserve(JsonText& t, size_t size) {
  const size_t wanted = size + simdjson::SIMDJSON_PADDING;
  if (wanted <= t.capacity) return;
  std::shared_ptr<char> bigger(new char[wanted], std::default_delete<char[]>());
  if (t.size > 0) std::memcpy(bigger.get(), t.data, t.size);
  t.storage = std::move(bigger);
  t.data = t.storage.get();
  t.capacity = wanted;
}

void Pad(JsonText& t) {
  Reserve(t, t.size);
  std::memset(t.data + t.size, 0, simdjson::SIMDJSON_PADDING);
}

// The file mapped read-only, followed by a page of zeros for the padding: an anonymous
// mapping one page longer is reserved, and the file mapped over its start.
bool Map(int fd, size_t size, JsonText& t) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t file_pages = (size + page - 1) / page * page;
  const size_t total = file_pages + page;
  if (size == 0) return false;
  void* area = mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return false;
  if (mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0) == MAP_FAILED) {
    munmap(area, total);
    return false;
  }
  t.storage =
      std::shared_ptr<char>(static_cast<char*>(area), [total](char* q) { munmap(q, total); });
  t.data = t.storage.get();
  t.size = size;
  t.capacity = total;
  return true;
}

// The whole gzip file decompressed at once by libdeflate, member after member: 2x the rate
// of zlib's stream. The text gets room for `size_hint` bytes (the trailer's size of the
// last member), doubled when a member does not fit, up to `max_bytes`. False, with `t` as
// it may be, for damaged or cut-off data or a text larger than `max_bytes`: zlib's stream
// reads it then, and says what is wrong and where.
bool GunzipWhole(std::FILE* file, size_t file_size, size_t size_hint, uint64_t max_bytes,
                 JsonText& t) {
  std::unique_ptr<char[]> compressed(new char[file_size]);
  if (std::fseek(file, 0, SEEK_SET) != 0 ||
      std::fread(compressed.get(), 1, file_size, file) != file_size)
    return false;
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> decompressor(
      libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
  if (!decompressor) return false;
  // Deflate expands a byte to at most 1032: damaged data that asks for more room than that
  // (or than max_bytes) is not given it.
  const uint64_t limit = std::min<uint64_t>(max_bytes + 1, uint64_t{1032} * file_size);
  size_t room = static_cast<size_t>(std::clamp<uint64_t>(size_hint, 1, limit));
  auto make_room = [&] {
    Reserve(t, room);
    // Faulted in with one call: a fault per 4 KB page as the text is written cost a
    // quarter of the gunzip on a virtual machine. Only as far as JSON expands (a trace's
    // text is 10-40x its gzip): a cut-off file's "trailer" is any four bytes, and the
    // room it asks for is taken only as far as the text really fills it.
    const size_t expected = std::min<uint64_t>(room, uint64_t{64} * file_size);
    if (expected > t.size) record::PopulatePagesForWrite(t.data + t.size, expected - t.size);
  };
  t.size = 0;
  make_room();
  size_t at = 0;
  // After the first member, only another member's magic goes on: what follows otherwise
  // (a writer's zero padding) is ignored, as zlib does.
  while (at == 0 || (file_size - at >= 2 && static_cast<unsigned char>(compressed[at]) == 0x1f &&
                     static_cast<unsigned char>(compressed[at + 1]) == 0x8b)) {
    size_t read = 0, written = 0;
    const libdeflate_result result =
        libdeflate_gzip_decompress_ex(decompressor.get(), compressed.get() + at, file_size - at,
                                      t.data + t.size, room - t.size, &read, &written);
    if (result == LIBDEFLATE_INSUFFICIENT_SPACE && room < limit) {
      room = static_cast<size_t>(std::min<uint64_t>(2 * uint64_t{room}, limit));
      make_room();
      continue;  // the member again, with room for it
    }
    if (result != LIBDEFLATE_SUCCESS || t.size + written > max_bytes) return false;
    at += read;
    t.size += written;
    if (at >= file_size) break;
  }
  return true;
}

}  // namespace

JsonText PaddedJson(std::string_view text) {
  JsonText t;
  Reserve(t, text.size());
  if (!text.empty()) std::memcpy(t.data, text.data(), text.size());
  t.size = text.size();
  Pad(t);
  return t;
}

engine::Result<JsonText> ReadJsonFile(const std::string& path, uint64_t max_bytes,
                                      const std::function<bool(double)>& progress) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return engine::NotFound("cannot open " + path + ": " + std::strerror(errno));
  std::fseek(file.get(), 0, SEEK_END);
  const long file_size = std::ftell(file.get());
  std::fseek(file.get(), 0, SEEK_SET);
  if (file_size < 0) return engine::InvalidArgument("cannot read " + path);
  // gzip by its magic, not the name: profilers' gzipped traces are not always named .gz.
  unsigned char magic[2] = {0, 0};
  const bool gzip =
      std::fread(magic, 1, 2, file.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  std::fseek(file.get(), 0, SEEK_SET);
  JsonText t;
  if (!gzip) {
    if (static_cast<uint64_t>(file_size) > max_bytes) return TooLarge(path, max_bytes);
    if (Map(fileno(file.get()), static_cast<size_t>(file_size), t)) {
      if (progress && !progress(1.0)) return Cancelled();
      return t;
    }
    Reserve(t, static_cast<size_t>(file_size));
    while (t.size < static_cast<size_t>(file_size)) {
      const size_t n =
          std::fread(t.data + t.size, 1, std::min(kChunk, static_cast<size_t>(file_size) - t.size),
                     file.get());
      if (n == 0)
        return engine::InvalidArgument("cannot read " + path + " at byte " +
                                       std::to_string(t.size));
      t.size += n;
      if (progress && !progress(static_cast<double>(t.size) / static_cast<double>(file_size)))
        return Cancelled();
    }
    Pad(t);
    return t;
  }
  // gzip's trailer holds the text's size (mod 4 GiB, of the last member): room for it at
  // once, where doubling would have held the old and the new buffer at the same time.
  if (file_size >= 18 && std::fseek(file.get(), -4, SEEK_END) == 0) {
    unsigned char isize[4];
    if (std::fread(isize, 1, 4, file.get()) == 4) {
      const uint64_t hint = uint64_t{isize[0]} | uint64_t{isize[1]} << 8 |
                            uint64_t{isize[2]} << 16 | uint64_t{isize[3]} << 24;
      if (hint <= max_bytes) {
        if (GunzipWhole(file.get(), static_cast<size_t>(file_size), static_cast<size_t>(hint),
                        max_bytes, t)) {
          Pad(t);
          if (progress && !progress(1.0)) return Cancelled();
          return t;
        }
        t.size = 0;
        Reserve(t, static_cast<size_t>(hint) + kChunk);
      }
    }
  }
  file.reset();
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return engine::NotFound("cannot open " + path);
  std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(gz, &gzclose);
  gzbuffer(gz, 1 << 20);
  while (true) {
    if (t.capacity < t.size + kChunk + simdjson::SIMDJSON_PADDING) Reserve(t, 2 * t.size + kChunk);
    const int n = gzread(gz, t.data + t.size, static_cast<unsigned>(kChunk));
    if (n < 0) {
      int code = 0;
      return engine::Status(engine::StatusCode::kDataLoss, path + ": damaged gzip data after " +
                                                               std::to_string(t.size) + " bytes (" +
                                                               gzerror(gz, &code) + ")");
    }
    if (n == 0) break;
    t.size += static_cast<size_t>(n);
    if (t.size > max_bytes) return TooLarge(path, max_bytes);
    if (progress && file_size > 0 &&
        !progress(
            std::min(1.0, static_cast<double>(gzoffset(gz)) / static_cast<double>(file_size))))
      return Cancelled();
  }
  Pad(t);
  return t;
}

}  // namespace pipescope::trace
