#include "engine/io/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pipescope::engine {

Result<Compression> ParseCompression(const std::string& name) {
  if (name.empty() || name == "NONE") return Compression::kNone;
  if (name == "GZIP") return Compression::kGzip;
  if (name == "ZLIB") return Compression::kZlib;
  return Status(StatusCode::kInvalidArgument,
                "unknown compression \"" + name + "\" (use \"\", \"GZIP\" or \"ZLIB\")");
}

std::string CompressionName(Compression c) {
  switch (c) {
    case Compression::kGzip:
      return "GZIP";
    case Compression::kZlib:
      return "ZLIB";
    case Compression::kNone:
      break;
  }
  return "NONE";
}

struct ByteSource::Inflater {
  z_stream z{};
  std::string in;  // compressed bytes not yet inflated
};

namespace {

// One read(2): as cat reads, a size whose copy out of the page cache stays in the core's
// cache for the checksum that follows it.
constexpr size_t kStep = 256 * 1024;
constexpr size_t kInitialCapacity = 4 * kStep;

}  // namespace

Result<std::unique_ptr<ByteSource>> ByteSource::Open(const std::string& path,
                                                     Compression compression) {
  // Looked at before opening: opening a pipe waits for its writer, so a pipe's size is
  // taken as unknown rather than from the descriptor.
  struct stat st {};
  const bool regular = stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status(StatusCode::kNotFound, "cannot open \"" + path + "\": " + std::strerror(errno));
  // Records are read front to back: ask for aggressive read-ahead.
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<ByteSource> s(
      new ByteSource(fd, path, compression, regular ? static_cast<int64_t>(st.st_size) : -1));
  if (compression != Compression::kNone) {
    s->inflater_ = std::make_unique<Inflater>();
    const int window = compression == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
    if (inflateInit2(&s->inflater_->z, window) != Z_OK) {
      return Status(StatusCode::kInternal, "cannot start decompressing \"" + path + "\"");
    }
  }
  return s;
}

ByteSource::ByteSource(int fd, std::string path, Compression compression, int64_t size_at_open)
    : fd_(fd), path_(std::move(path)), compression_(compression), size_at_open_(size_at_open) {}

ByteSource::~ByteSource() {
  if (inflater_) inflateEnd(&inflater_->z);
  close(fd_);
}

Result<size_t> ByteSource::ReadRaw(char* out, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd_, out + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kDataLoss, "reading \"" + path_ + "\" at byte " +
                                               std::to_string(file_bytes_ + got) + ": " +
                                               std::strerror(errno));
    }
    if (r == 0) {
      if (size_at_open_ >= 0 && file_bytes_ + got < static_cast<uint64_t>(size_at_open_))
        shrank_ = true;
      break;
    }
    got += static_cast<size_t>(r);
    // A regular file gives what it has in one call; a pipe gives what its writer wrote so
    // far, and waiting for the rest of `n` here would hold back bytes already there.
    if (size_at_open_ < 0) break;
  }
  file_bytes_ += got;
  return got;
}

void ByteSource::MakeRoom(size_t n) {
  if (capacity_ - end_ >= n) return;
  const size_t live = end_ - begin_;
  if (live + n <= capacity_) {
    // The unconsumed bytes (a record cut by the last block's end) move to the front: cheap
    // beside read(2)'s copy, and rare, as the buffer holds several blocks.
    std::memmove(buffer_.get(), buffer_.get() + begin_, live);
  } else {
    size_t capacity = std::max(capacity_, kInitialCapacity);
    while (capacity < live + n) capacity *= 2;
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (live > 0) std::memcpy(grown.get(), buffer_.get() + begin_, live);
    buffer_ = std::move(grown);
    capacity_ = capacity;
  }
  begin_ = 0;
  end_ = live;
}

Status ByteSource::Fill(size_t want) {
  while (want > 0 && !at_end_) {
    // Grow by what exists, not by what was asked: `want` may come from a corrupted length.
    const size_t chunk = std::clamp(want, kStep, 16 * kStep);
    MakeRoom(chunk);
    char* const out = buffer_.get() + end_;
    if (!inflater_) {
      ASSIGN_OR_RETURN(size_t got, ReadRaw(out, chunk));
      end_ += got;
      if (got == 0) at_end_ = true;
      want -= std::min(want, got);
      continue;
    }
    Inflater& inf = *inflater_;
    if (inf.in.empty()) {
      inf.in.resize(kStep);
      ASSIGN_OR_RETURN(size_t got, ReadRaw(inf.in.data(), kStep));
      inf.in.resize(got);
      if (got == 0) {
        return Status(StatusCode::kDataLoss, "\"" + path_ + "\": the " +
                                                 CompressionName(compression_) +
                                                 " stream ends early (the file is truncated)");
      }
    }
    inf.z.next_in = reinterpret_cast<Bytef*>(inf.in.data());
    inf.z.avail_in = static_cast<uInt>(inf.in.size());
    inf.z.next_out = reinterpret_cast<Bytef*>(out);
    inf.z.avail_out = static_cast<uInt>(chunk);
    const int rc = inflate(&inf.z, Z_NO_FLUSH);
    const size_t produced = chunk - inf.z.avail_out;
    inf.in.erase(0, inf.in.size() - inf.z.avail_in);
    end_ += produced;
    want -= std::min(want, produced);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are one stream to TensorFlow; continue with the next.
      if (inf.in.empty()) {
        char probe;
        ASSIGN_OR_RETURN(size_t got, ReadRaw(&probe, 1));
        if (got == 0) {
          at_end_ = true;
          break;
        }
        inf.in.assign(1, probe);
      }
      inflateReset(&inf.z);
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status(StatusCode::kDataLoss, "\"" + path_ + "\": " + CompressionName(compression_) +
                                               " data is corrupt near compressed byte " +
                                               std::to_string(file_bytes_) + " (" +
                                               (inf.z.msg ? inf.z.msg : "inflate failed") + ")");
    }
  }
  return Status::Ok();
}

Result<size_t> ByteSource::Peek(size_t n) {
  const size_t have = end_ - begin_;
  if (have < n && !at_end_) RETURN_IF_ERROR(Fill(n - have));
  return std::min(n, end_ - begin_);
}

void ByteSource::Consume(size_t n) {
  n = std::min(n, end_ - begin_);
  begin_ += n;
  offset_ += n;
}

}  // namespace pipescope::engine
