#pragma once
// The framing of .pstrace records (FORMAT.md): an 8-byte magic, then records of
//   type u8 | 3 zero bytes | payload length u32 LE | CRC-32C of the payload u32 LE | payload
// and, after the footer record, a 16-byte trailer: footer offset u64 LE | end magic.

#include <cstddef>
#include <cstdint>

#include "instrumentation/record/little_endian.h"

namespace pipescope::pstrace {

using record::AppendLe32;
using record::AppendLe64;
using record::LoadLe32;
using record::LoadLe64;

// Version 2 added span names, nesting depths, arguments and flows (imported traces); a
// version 1 file reads as before.
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kOldestFormatVersion = 1;
inline constexpr char kMagic[8] = {'P', 'S', 'T', 'R', 'A', 'C', 'E', '\x01'};
inline constexpr char kEndMagic[8] = {'P', 'S', 'T', 'E', 'N', 'D', '\x00', '\x01'};
inline constexpr size_t kRecordHeaderBytes = 12;
inline constexpr size_t kTrailerBytes = 16;

enum class RecordType : uint8_t { kHeader = 1, kChunk = 2, kFooter = 3 };

// Limits a reader enforces, so that a hostile file cannot make it allocate without bound.
inline constexpr uint32_t kMaxRecordBytes = 64u << 20;
inline constexpr uint32_t kMaxChunkRawBytes = 64u << 20;
inline constexpr uint64_t kMaxCompressionRatio = 1024;

}  // namespace pipescope::pstrace
