#include "engine/io/byte_source.h"

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

Result<std::unique_ptr<ByteSource>> ByteSource::Open(const std::string& path,
                                                     Compression compression) {
  if (compression == Compression::kNone) {
    if (auto mapped = MappedFile::TryMap(path)) {
      std::unique_ptr<ByteSource> s(new ByteSource(nullptr, path, compression));
      s->mapped_ = std::move(mapped);
      s->at_end_ = true;  // everything there is, is already there
      return s;
    }
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status(StatusCode::kNotFound, "cannot open \"" + path + "\": " + std::strerror(errno));
  std::unique_ptr<ByteSource> s(new ByteSource(f, path, compression));
  if (compression != Compression::kNone) {
    s->inflater_ = std::make_unique<Inflater>();
    const int window = compression == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
    if (inflateInit2(&s->inflater_->z, window) != Z_OK) {
      return Status(StatusCode::kInternal, "cannot start decompressing \"" + path + "\"");
    }
  }
  return s;
}

ByteSource::ByteSource(std::FILE* file, std::string path, Compression compression)
    : file_(file), path_(std::move(path)), compression_(compression) {}

ByteSource::~ByteSource() {
  if (inflater_) inflateEnd(&inflater_->z);
  if (file_) std::fclose(file_);
}

Result<size_t> ByteSource::ReadRaw(char* out, size_t n) {
  const size_t got = std::fread(out, 1, n, file_);
  if (got < n && std::ferror(file_)) {
    return Status(StatusCode::kDataLoss, "reading \"" + path_ + "\": " + std::strerror(errno));
  }
  file_bytes_ += got;
  return got;
}

Status ByteSource::Fill(size_t want) {
  // Compact: keep only unconsumed bytes at the front.
  if (begin_ > 0) {
    buffer_.erase(0, begin_);
    begin_ = 0;
  }
  constexpr size_t kStep = 256 * 1024;
  while (want > 0 && !at_end_) {
    const size_t before = buffer_.size();
    // Grow by what exists, not by what was asked: `want` may come from a corrupted length.
    const size_t chunk = std::clamp(want, kStep, 16 * kStep);
    if (!inflater_) {
      buffer_.resize(before + chunk);
      ASSIGN_OR_RETURN(size_t got, ReadRaw(buffer_.data() + before, chunk));
      buffer_.resize(before + got);
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
    buffer_.resize(before + chunk);
    inf.z.next_in = reinterpret_cast<Bytef*>(inf.in.data());
    inf.z.avail_in = static_cast<uInt>(inf.in.size());
    inf.z.next_out = reinterpret_cast<Bytef*>(buffer_.data() + before);
    inf.z.avail_out = static_cast<uInt>(chunk);
    const int rc = inflate(&inf.z, Z_NO_FLUSH);
    const size_t produced = chunk - inf.z.avail_out;
    inf.in.erase(0, inf.in.size() - inf.z.avail_in);
    buffer_.resize(before + produced);
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
  if (mapped_) return std::min<uint64_t>(n, mapped_->size() - offset_);
  const size_t have = buffer_.size() - begin_;
  if (have < n && !at_end_) RETURN_IF_ERROR(Fill(n - have));
  return std::min(n, buffer_.size() - begin_);
}

void ByteSource::Consume(size_t n) {
  if (mapped_) {
    offset_ += std::min<uint64_t>(n, mapped_->size() - offset_);
    return;
  }
  n = std::min(n, buffer_.size() - begin_);
  begin_ += n;
  offset_ += n;
}

}  // namespace pipescope::engine
