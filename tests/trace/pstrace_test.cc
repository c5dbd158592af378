// The .pstrace format: what is written reads back exactly; cut-off files open up to their
// last complete chunk; damaged and hostile files give errors that say where.
#include <gtest/gtest.h>
#include <zstd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "instrumentation/record/crc32c.h"
#include "instrumentation/trace/format/model_writer.h"
#include "instrumentation/trace/format/record_framing.h"
#include "instrumentation/trace/format/trace_reader.h"
#include "instrumentation/trace/format/trace_writer.h"

namespace pipescope::pstrace {
namespace {

using record::EventKind;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/pipescope_" + name + ".pstrace";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

TraceHeader Header() {
  TraceHeader h;
  h.mutable_spec()->set_name("roundtrip");
  h.set_device("simulated");
  h.mutable_machine()->set_cpu_cores(2);
  h.mutable_machine()->set_cpu_budget(2);
  h.mutable_clock()->set_source("tsc");
  return h;
}

// Three batches of events on several tracks, with every column kind in use.
std::vector<record::TraceBatch> Batches() {
  std::vector<record::TraceBatch> batches(3);
  batches[0].stages.push_back({1, "decode", "map", 0, 1, 0, true, 2, 0});
  batches[0].stages.push_back({0, "read", "synthetic", 0, 0, -1, false, 1, 0});
  batches[0].threads.push_back({1, "decode/0"});
  batches[1].knob_changes.push_back({5000, 1, "num_parallel_calls", 2, 4, "cli"});
  batches[2].markers.push_back({9000, "pipeline rebuilt"});
  std::mt19937_64 rng(4);
  int64_t t = 100;
  uint64_t element = 1;
  for (int b = 0; b < 3; ++b) {
    for (int i = 0; i < 3000; ++i) {
      const int64_t d = static_cast<int64_t>(rng() % 5000);
      batches[b].events.push_back(
          {t, t + d, element, static_cast<uint32_t>(rng() % 900), 1, 1, EventKind::kWork, 0});
      batches[b].events.push_back(
          {t, t, 0, static_cast<uint32_t>(i % 7), 0, 1, EventKind::kBufferLevel, 0});
      batches[b].events.push_back(
          {t + d, t + d + 10'000'000'000, element, 0, 2, 0, EventKind::kStep, 0});  // a 10 s span
      // Calls of the source, some of them runs (a simulated trace's cheap calls).
      batches[b].events.push_back({t, t + d, element, static_cast<uint32_t>(d / 2), 3, 0,
                                   EventKind::kCall, 0, static_cast<uint32_t>(1 + rng() % 4)});
      t += d + 1 + static_cast<int64_t>(rng() % 100);
      element += 1 + rng() % 3;
    }
    // A call of 38 s of its own (a batch of 64 items at 600 ms): past 32 bits of nanoseconds.
    batches[b].events.push_back(
        {t, t + 38'400'000'000, element, 38'400'000'000, 3, 0, EventKind::kCall, 0});
    t += 38'400'000'001;
    ++element;
    batches[b].time_ns = t;
    batches[b].dropped_total = 7 * static_cast<uint64_t>(b);
  }
  return batches;
}

// Writes the batches; chunk_events small enough that every batch is a chunk.
std::string WriteTrace(const std::string& name) {
  const std::string path = TempPath(name);
  TraceWriter::Options options;
  options.chunk_events = 1;
  auto writer = TraceWriter::Create(path, Header(), options);
  EXPECT_TRUE(writer.ok());
  const auto batches = Batches();
  for (size_t i = 0; i < batches.size(); ++i)
    (*writer)->Consume(batches[i], i + 1 == batches.size());
  EXPECT_TRUE((*writer)->status().ok());
  return path;
}

void ExpectSameEvents(const trace::Model& model, const std::vector<record::TraceBatch>& batches,
                      size_t batch_count) {
  trace::Model expected;
  for (size_t i = 0; i < batch_count; ++i) expected.Consume(batches[i], false);
  ASSERT_EQ(model.tracks().size(), expected.tracks().size());
  for (const auto& want : expected.tracks()) {
    const trace::Track* got = model.FindTrack(want->key());
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < want->size(); ++i) {
      ASSERT_EQ(got->start(i), want->start(i));
      ASSERT_EQ(got->duration(i), want->duration(i));
      ASSERT_EQ(got->element(i), want->element(i));
      ASSERT_EQ(got->value(i), want->value(i));
      ASSERT_EQ(got->calls(i), want->calls(i));
    }
    EXPECT_EQ(got->CallsIn(0, got->size()), want->CallsIn(0, want->size()));
  }
}

TEST(PstraceTest, WhatIsWrittenReadsBackExactly) {
  const std::string path = WriteTrace("roundtrip");
  auto loaded = ReadTraceFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->complete);
  EXPECT_TRUE(loaded->warnings.empty());
  EXPECT_EQ(loaded->header.spec().name(), "roundtrip");
  EXPECT_EQ(loaded->header.format_version(), kFormatVersion);
  const trace::Model& m = *loaded->model;
  EXPECT_EQ(m.run_info().device, "simulated");
  EXPECT_EQ(m.run_info().machine.cpu_budget, 2);
  ASSERT_NE(m.StageNamed("decode"), nullptr);
  EXPECT_EQ(m.StageNamed("decode")->parallelism, 2);
  EXPECT_EQ(m.StageNamed("decode")->input, 0);
  EXPECT_EQ(m.ThreadName(1), "decode/0");
  ASSERT_EQ(m.knob_changes().size(), 1u);
  EXPECT_EQ(m.knob_changes()[0].who, "cli");
  ASSERT_EQ(m.markers().size(), 1u);
  EXPECT_EQ(m.dropped_events(), 14u);
  ExpectSameEvents(m, Batches(), 3);
}

TEST(PstraceTest, ASavedCopyOfALoadedTraceKeepsEverythingAndItsNotes) {
  auto loaded = ReadTraceFile(WriteTrace("save_source"));
  ASSERT_TRUE(loaded.ok());
  trace::Model& m = *loaded->model;
  m.AddAnnotation({2000, 2000, "decode starts here", "ana"});
  m.AddAnnotation({3000, 9000, "the slow part:\nlook at the buffer", ""});
  const std::string copy = TempPath("saved_copy");
  int progress_calls = 0;
  ASSERT_TRUE(WriteModel(m, copy, [&](double) { return ++progress_calls > 0; }).ok());
  auto again = ReadTraceFile(copy);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->complete);
  EXPECT_EQ(again->header.spec().name(), "roundtrip");
  EXPECT_EQ(again->header.clock().source(), "tsc");
  const trace::Model& c = *again->model;
  EXPECT_EQ(c.run_info().machine.cpu_budget, 2);
  ASSERT_EQ(c.annotations().size(), 2u);
  EXPECT_EQ(c.annotations()[0].text, "decode starts here");
  EXPECT_EQ(c.annotations()[0].author, "ana");
  EXPECT_EQ(c.annotations()[1].start_ns, 3000);
  EXPECT_EQ(c.annotations()[1].end_ns, 9000);
  EXPECT_EQ(c.knob_changes().size(), 1u);
  EXPECT_EQ(c.markers().size(), 1u);
  EXPECT_EQ(c.dropped_events(), 14u);
  EXPECT_EQ(c.duration_ns(), m.duration_ns());
  ExpectSameEvents(c, Batches(), 3);
}

TEST(PstraceTest, SavingCanBeCancelledAndLeavesNoFile) {
  trace::Model m;
  record::TraceBatch batch;
  for (int64_t t = 0; t < 5'000'000'000; t += 1'000'000)
    batch.events.push_back({t, t + 10, 0, 0, 1, 1, EventKind::kWork, 0});
  batch.time_ns = 5'000'000'000;
  m.Consume(batch, true);
  const std::string path = TempPath("cancelled_save");
  const auto s = WriteModel(m, path, [](double share) { return share < 0.5; });
  EXPECT_EQ(s.code(), engine::StatusCode::kCancelled);
  EXPECT_FALSE(std::ifstream(path).good());
}

TEST(PstraceTest, SavingToAnUnwritablePlaceSaysWhere) {
  trace::Model m;
  const auto s = WriteModel(m, "/nonexistent/dir/copy.pstrace");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/dir/copy.pstrace"), std::string::npos) << s.message();
}

TEST(PstraceTest, AFileCutOffMidChunkOpensUpToItsLastCompleteChunk) {
  const std::string bytes = ReadAll(WriteTrace("cut"));
  // Find where each record starts, then cut inside the third chunk.
  std::vector<size_t> records;
  for (size_t pos = sizeof kMagic; pos + kRecordHeaderBytes <= bytes.size() - kTrailerBytes;) {
    records.push_back(pos);
    pos += kRecordHeaderBytes + LoadLe32(bytes.data() + pos + 4);
  }
  ASSERT_EQ(records.size(), 5u);  // header, three chunks, footer
  for (size_t cut : {records[3] + 1, records[3] + 20, records[4] - 1}) {
    auto loaded = ReadTraceBytes(std::string_view(bytes).substr(0, cut), "cut.pstrace");
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const size_t footer_end =
        records[4] + kRecordHeaderBytes + LoadLe32(bytes.data() + records[4] + 4);
    EXPECT_EQ(loaded->complete, cut >= footer_end) << "complete means the footer was read";
    ASSERT_EQ(loaded->warnings.size(), 1u);
    EXPECT_NE(loaded->warnings[0].find("cut off"), std::string::npos) << loaded->warnings[0];
    ExpectSameEvents(*loaded->model, Batches(), 2);
  }
}

// A file cut anywhere: before its header is whole it is an error that names the file and
// says it was cut off; after, it opens with exactly the chunks that are whole before the
// cut, says it was cut off, and loses nothing of them (cut inside the trailer, it is
// complete and still says so).
TEST(PstraceTest, EveryTruncationEitherLoadsOrSaysWhy) {
  const std::string bytes = ReadAll(WriteTrace("every_cut"));
  std::vector<size_t> records;  // header, three chunks, footer
  for (size_t pos = sizeof kMagic; pos + kRecordHeaderBytes <= bytes.size() - kTrailerBytes;) {
    records.push_back(pos);
    pos += kRecordHeaderBytes + LoadLe32(bytes.data() + pos + 4);
  }
  ASSERT_EQ(records.size(), 5u);
  std::vector<size_t> cuts;
  for (size_t cut = 0; cut < bytes.size(); cut += 97) cuts.push_back(cut);
  for (size_t r : records) {
    for (size_t cut : {r - 1, r, r + 1}) cuts.push_back(cut);
  }
  for (size_t cut : cuts) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut) + " of " + std::to_string(bytes.size()));
    auto loaded = ReadTraceBytes(std::string_view(bytes).substr(0, cut), "t.pstrace");
    if (cut < records[1]) {
      ASSERT_FALSE(loaded.ok()) << "a file without its whole header cannot open";
      const std::string why(loaded.status().message());
      EXPECT_NE(why.find("t.pstrace"), std::string::npos) << why;
      EXPECT_TRUE(why.find("ends before its header") != std::string::npos ||
                  why.find("cut off") != std::string::npos ||
                  why.find("not a Pipescope trace") != std::string::npos)
          << why;
      continue;
    }
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const size_t footer_end =
        records[4] + kRecordHeaderBytes + LoadLe32(bytes.data() + records[4] + 4);
    EXPECT_EQ(loaded->complete, cut >= footer_end) << "complete means the footer was read";
    ASSERT_EQ(loaded->warnings.size(), 1u);
    EXPECT_TRUE(loaded->warnings[0].find("cut off") != std::string::npos ||
                loaded->warnings[0].find("did not finish") != std::string::npos)
        << loaded->warnings[0];
    size_t whole_chunks = 0;
    for (size_t chunk = 1; chunk <= 3; ++chunk) whole_chunks += records[chunk + 1] <= cut;
    ExpectSameEvents(*loaded->model, Batches(), whole_chunks);
  }
}

// A file is read a record at a time, never whole; cut anywhere, it loads (or fails) exactly
// as the same bytes held in memory do, and a folder says that it is one.
TEST(PstraceTest, AFileReadsAsItsBytesDoWhereverItIsCut) {
  const std::string bytes = ReadAll(WriteTrace("file_cuts"));
  const std::string path = TempPath("file_cut");
  for (size_t cut = 0; cut <= bytes.size(); cut += cut < 64 ? 1 : 211) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(cut));
    }
    auto from_file = ReadTraceFile(path);
    auto from_bytes = ReadTraceBytes(std::string_view(bytes).substr(0, cut), path);
    ASSERT_EQ(from_file.ok(), from_bytes.ok());
    if (!from_file.ok()) {
      EXPECT_EQ(from_file.status().message(), from_bytes.status().message());
      continue;
    }
    EXPECT_EQ(from_file->complete, from_bytes->complete);
    EXPECT_EQ(from_file->warnings, from_bytes->warnings);
    EXPECT_EQ(from_file->model->event_count(), from_bytes->model->event_count());
  }
  auto folder = ReadTraceFile(::testing::TempDir());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(std::string(folder.status().message()).find("it is a folder"), std::string::npos);
}

TEST(PstraceTest, ADamagedChunkIsAnErrorNamingItsOffset) {
  std::string bytes = ReadAll(WriteTrace("damaged"));
  const size_t first_chunk =
      sizeof kMagic + kRecordHeaderBytes + LoadLe32(bytes.data() + sizeof kMagic + 4);
  bytes[first_chunk + kRecordHeaderBytes + 10] ^= 0x40;
  auto loaded = ReadTraceBytes(bytes, "damaged.pstrace");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), engine::StatusCode::kDataLoss);
  EXPECT_NE(loaded.status().message().find("byte " + std::to_string(first_chunk)),
            std::string::npos)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("checksum"), std::string::npos);
}

TEST(PstraceTest, NotATraceIsSaidPlainly) {
  auto loaded = ReadTraceBytes("{\"traceEvents\": []}", "chrome.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("not a Pipescope trace"), std::string::npos);
  EXPECT_FALSE(ReadTraceFile("/nonexistent/trace.pstrace").ok());
}

// Builds a file by hand: the magic, then records with correct checksums.
std::string Record(RecordType type, const std::string& payload) {
  std::string r;
  r.push_back(static_cast<char>(type));
  r.append(3, '\0');
  AppendLe32(r, static_cast<uint32_t>(payload.size()));
  AppendLe32(r, record::Crc32c(payload.data(), payload.size()));
  return r + payload;
}

std::string WithChunk(const std::string& chunk_payload) {
  TraceHeader h = Header();
  h.set_format_version(kFormatVersion);
  return std::string(kMagic, sizeof kMagic) + Record(RecordType::kHeader, h.SerializeAsString()) +
         Record(RecordType::kChunk, chunk_payload);
}

TEST(PstraceTest, HostileSizesAreRefusedBeforeAnythingIsAllocated) {
  // A record that claims 4 GB.
  std::string huge = std::string(kMagic, sizeof kMagic);
  huge.push_back(static_cast<char>(RecordType::kHeader));
  huge.append(3, '\0');
  AppendLe32(huge, 0xFFFFFFF0u);
  AppendLe32(huge, 0);
  auto a = ReadTraceBytes(huge, "huge.pstrace");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("exceeds the limit"), std::string::npos);

  // A chunk that claims to decompress to 60 MB from 10 bytes.
  std::string bomb;
  AppendLe32(bomb, 60u << 20);
  bomb.append(10, 'x');
  auto b = ReadTraceBytes(WithChunk(bomb), "bomb.pstrace");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("chunk 0"), std::string::npos) << b.status().message();
}

TEST(PstraceTest, ATrackClaimingMoreEventsThanItsBytesIsRefused) {
  EventChunk chunk;
  TrackColumns* t = chunk.add_tracks();
  t->set_kind(static_cast<uint32_t>(EventKind::kWork));
  t->set_count(1'000'000'000);
  t->set_starts(std::string(3, '\0'));
  const std::string raw = chunk.SerializeAsString();
  std::string payload;
  AppendLe32(payload, static_cast<uint32_t>(raw.size()));
  payload.resize(4 + ZSTD_compressBound(raw.size()));
  payload.resize(4 +
                 ZSTD_compress(payload.data() + 4, payload.size() - 4, raw.data(), raw.size(), 1));
  auto loaded = ReadTraceBytes(WithChunk(payload), "claims.pstrace");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("claims 1000000000 events"), std::string::npos)
      << loaded.status().message();
}

TEST(PstraceTest, TraceFilesAreSmall) {
  // Back-to-back work spans as a worker records them: under 4 bytes per event on disk.
  const std::string path = TempPath("small");
  auto writer = TraceWriter::Create(path, Header());
  ASSERT_TRUE(writer.ok());
  record::TraceBatch batch;
  std::mt19937_64 rng(5);
  int64_t t = 0;
  for (uint64_t i = 1; i <= 200'000; ++i) {
    const int64_t d = 900 + static_cast<int64_t>(rng() % 200);
    batch.events.push_back({t, t + d, i, 0, 1, 1, EventKind::kWork, 0});
    t += d + 40;
  }
  (*writer)->Consume(batch, true);
  EXPECT_LT(static_cast<double>((*writer)->bytes_written()) / 200'000, 4.0);
}

}  // namespace
}  // namespace pipescope::pstrace
