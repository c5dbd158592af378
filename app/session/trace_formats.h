#pragma once
// The trace formats Pipescope opens and writes, declared once. A file to open is recognised
// by its content, as Perfetto's trace-type guess does (a .pstrace magic, JSON's first
// bracket, a protobuf TracePacket; gzip undone first), never by its name: profilers name
// their files .json, .pt.trace.json, .trace or nothing at all. A file to write is named by
// the person, so there the extension picks the format. The open and export dialogs, the
// CLI's help and its errors all list the formats from here.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

enum class TraceFormatId { kPstrace, kChromeJson, kPerfetto };

struct TraceFormat {
  TraceFormatId id;
  const char* name;     // "Chrome trace JSON"
  const char* made_by;  // who writes such files, for people choosing one
  // How people name such files, the one Pipescope gives a file it writes first. Dialogs
  // offer these; a file to open may have any name.
  std::vector<std::string> extensions;
  bool opens;   // Pipescope reads it (OpenTraceFile)
  bool writes;  // Pipescope writes it (WriteTraceFile)
};

std::span<const TraceFormat> TraceFormats();
const TraceFormat& TraceFormatOf(TraceFormatId id);

// The format of a file's first bytes (gzip already undone); nullptr when none matches.
const TraceFormat* RecognizeTraceBytes(std::string_view head);

// The format of the file at `path`, by its content. Errors name the file: it cannot be
// read, it is empty, or its first bytes are no format listed here (they are shown).
engine::Result<const TraceFormat*> RecognizeTraceFile(const std::string& path);

// The format that an output file's name asks for; nullptr when no written format uses its
// extension.
const TraceFormat* WrittenFormatNamedBy(const std::string& path);

// "*.json *.json.gz": a format's extensions as file-dialog patterns.
std::string DialogPatterns(const TraceFormat& format);

// "Pipescope trace (.pstrace), Chrome trace JSON (.json, .json.gz), ...": the formats that
// Pipescope opens (or writes), for help texts and errors.
std::string ListOfFormats(bool written);

// Writes `model` in the format its name asks for (WrittenFormatNamedBy). `progress` gets the
// share done and returns false to cancel (kCancelled).
engine::Status WriteTraceFile(const trace::Model& model, const std::string& path,
                              const std::function<bool(double)>& progress = {});

}  // namespace pipescope::session
