#include "app/session/trace_formats.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "instrumentation/trace/export/trace_export.h"
#include "instrumentation/trace/format/model_writer.h"
#include "instrumentation/trace/format/record_framing.h"

namespace pipescope::session {
namespace {

const TraceFormat kFormats[] = {
    {TraceFormatId::kPstrace,
     "Pipescope trace",
     "pipescope-cli run --trace, simulate --trace, File > Save",
     {".pstrace"},
     true,
     true},
    {TraceFormatId::kChromeJson,
     "Chrome trace JSON",
     "PyTorch's profiler and Kineto, TensorFlow's profiler (trace.json.gz), Pipescope's export",
     // *.json covers the profilers' longer names (run.pt.trace.json, host.trace.json.gz).
     {".json", ".json.gz"},
     true,
     true},
    {TraceFormatId::kPerfetto,
     "Perfetto trace",
     "Pipescope's export, for ui.perfetto.dev",
     {".perfetto-trace", ".pftrace", ".perfetto"},
     false,
     true},
};

// Bytes read to recognise a file: enough for the .pstrace magic, a UTF-8 byte order mark,
// and the whitespace some writers put before JSON's first bracket.
constexpr int kHeadBytes = 4096;

// A protobuf Trace starts with its field 1 (repeated TracePacket), length-delimited: tag
// 0x0A, a varint length, then a packet whose first tag has a known wire type.
bool LooksLikeTracePacket(std::string_view head) {
  if (head.size() < 3 || static_cast<unsigned char>(head[0]) != 0x0A) return false;
  size_t i = 1;
  uint64_t length = 0;
  for (int shift = 0; i < head.size() && shift < 64; shift += 7) {
    const auto byte = static_cast<unsigned char>(head[i++]);
    length |= static_cast<uint64_t>(byte & 0x7Fu) << shift;
    if ((byte & 0x80u) == 0) break;
  }
  if (length == 0 || i >= head.size()) return false;
  const auto tag = static_cast<unsigned char>(head[i]);
  const unsigned wire_type = tag & 0x7u;
  return (tag >> 3) != 0 && (wire_type == 0 || wire_type == 1 || wire_type == 2 || wire_type == 5);
}

bool LooksLikeJson(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);  // UTF-8 byte order mark
  const size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (head[first] == '{' || head[first] == '[');
}

// "7f 45 4c 46 ... (\x7fELF...)": what a file starts with, for the error that says it is
// not a trace.
std::string Shown(std::string_view head) {
  std::string hex, text;
  for (size_t i = 0; i < head.size() && i < 8; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%02x ", static_cast<unsigned char>(head[i]));
    hex += byte;
  }
  for (size_t i = 0; i < head.size() && i < 24; ++i) {
    const char c = head[i];
    text += c >= 32 && c < 127 ? c : '.';
  }
  return hex + "(\"" + text + "\")";
}

}  // namespace

std::span<const TraceFormat> TraceFormats() { return kFormats; }

const TraceFormat& TraceFormatOf(TraceFormatId id) {
  for (const TraceFormat& f : kFormats) {
    if (f.id == id) return f;
  }
  return kFormats[0];  // every id is declared above
}

const TraceFormat* RecognizeTraceBytes(std::string_view head) {
  if (head.starts_with(std::string_view(pstrace::kMagic, sizeof pstrace::kMagic))) {
    return &TraceFormatOf(TraceFormatId::kPstrace);
  }
  if (LooksLikeJson(head)) return &TraceFormatOf(TraceFormatId::kChromeJson);
  if (LooksLikeTracePacket(head)) return &TraceFormatOf(TraceFormatId::kPerfetto);
  return nullptr;
}

engine::Result<const TraceFormat*> RecognizeTraceFile(const std::string& path) {
  // gzread reads a gzip file's text and any other file as it is.
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), &gzclose);
  if (!file) return engine::NotFound("cannot open " + path + ": " + std::strerror(errno));
  char head[kHeadBytes];
  const int n = gzread(file.get(), head, sizeof head);
  if (n < 0) {
    int code = 0;
    return engine::Status(engine::StatusCode::kDataLoss, path + ": cannot read its first bytes (" +
                                                             gzerror(file.get(), &code) + ")");
  }
  if (n == 0) {
    // gzread gives nothing of a gzip file cut off before its first block ends.
    std::error_code error;
    const auto on_disk = std::filesystem::file_size(path, error);
    if (error || on_disk == 0) return engine::InvalidArgument(path + ": the file is empty");
    return engine::Status(engine::StatusCode::kDataLoss,
                          path + ": its " + std::to_string(on_disk) +
                              " bytes are compressed data cut off before their first block "
                              "ends (a trace cut off while written?): nothing to read");
  }
  const std::string_view bytes(head, static_cast<size_t>(n));
  if (const TraceFormat* format = RecognizeTraceBytes(bytes)) return format;
  return engine::InvalidArgument(path + ": not a trace Pipescope reads; it starts with " +
                                 Shown(bytes) + ". Pipescope opens " + ListOfFormats(false));
}

const TraceFormat* WrittenFormatNamedBy(const std::string& path) {
  for (const TraceFormat& f : kFormats) {
    if (!f.writes) continue;
    for (const std::string& extension : f.extensions) {
      if (path.ends_with(extension)) return &f;
    }
  }
  return nullptr;
}

std::string DialogPatterns(const TraceFormat& format) {
  std::string patterns;
  for (const std::string& extension : format.extensions) {
    patterns += (patterns.empty() ? "*" : " *") + extension;
  }
  return patterns;
}

std::string ListOfFormats(bool written) {
  std::string list;
  for (const TraceFormat& f : kFormats) {
    if (!(written ? f.writes : f.opens)) continue;
    std::string extensions;
    for (const std::string& e : f.extensions) extensions += (extensions.empty() ? "" : ", ") + e;
    list += (list.empty() ? "" : "; ") + std::string(f.name) + " (" + extensions + ")";
  }
  return list;
}

engine::Status WriteTraceFile(const trace::Model& model, const std::string& path,
                              const std::function<bool(double)>& progress) {
  const TraceFormat* format = WrittenFormatNamedBy(path);
  if (format == nullptr) {
    return engine::InvalidArgument("cannot tell which format to write '" + path +
                                   "' in: name it for one of " + ListOfFormats(true));
  }
  switch (format->id) {
    case TraceFormatId::kPstrace:
      return pstrace::WriteModel(model, path, progress);
    case TraceFormatId::kChromeJson:
      return trace::ExportChromeJson(model, path, progress);
    case TraceFormatId::kPerfetto:
      return trace::ExportPerfetto(model, path, progress);
  }
  return engine::InvalidArgument(path + ": no writer");
}

}  // namespace pipescope::session
