// Trace files recognised by their content, whatever their names (trace_formats.h): real
// profiler traces and a .pstrace under names that say nothing, gzip under a plain name and
// plain text under .gz, a Perfetto trace told apart, and files that are no trace refused
// with their name, their first bytes and the formats that would open.
#include "app/session/trace_formats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "app/session/trace_files.h"

namespace pipescope::session {
namespace {

namespace fs = std::filesystem;

std::string Data(const std::string& name) { return std::string(PIPESCOPE_TEST_DATA) + "/" + name; }

// A copy of `source` under `name` in this process's temporary folder.
std::string CopiedAs(const std::string& source, const std::string& name) {
  std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "_" + name;
  fs::copy_file(source, path, fs::copy_options::overwrite_existing);
  return path;
}

std::string Written(const std::string& name, const std::string& bytes) {
  std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TraceFormatsTest, RealProfilerTracesOpenUnderNamesThatSayNothing) {
  for (const char* name : {"real/hta_sampled_rank-0.json.gz", "real/hta_sampled_rank-1.json.gz"}) {
    auto by_name = OpenTraceFile(Data(name));
    ASSERT_TRUE(by_name.ok()) << by_name.status().message();
    auto renamed = OpenTraceFile(CopiedAs(Data(name), "trace.bin"));
    ASSERT_TRUE(renamed.ok()) << renamed.status().message();
    EXPECT_TRUE(renamed->imported);
    EXPECT_EQ(renamed->model->event_count(), by_name->model->event_count()) << name;
    EXPECT_GT(renamed->model->event_count(), 1000u) << name;
  }
}

TEST(TraceFormatsTest, GzipIsFoundByItsMagicAndPlainTextByItsBracket) {
  auto plain = OpenTraceFile(Data("pytorch_input_bound.json"));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  // The same trace gzipped, under a name without .gz; and plain text under .gz.
  auto gzipped = OpenTraceFile(CopiedAs(Data("pytorch_input_bound.json.gz"), "gzipped.json"));
  ASSERT_TRUE(gzipped.ok()) << gzipped.status().message();
  EXPECT_EQ(gzipped->model->event_count(), plain->model->event_count());
  auto named_gz = OpenTraceFile(CopiedAs(Data("pytorch_input_bound.json"), "plain.json.gz"));
  ASSERT_TRUE(named_gz.ok()) << named_gz.status().message();
  EXPECT_EQ(named_gz->model->event_count(), plain->model->event_count());
}

TEST(TraceFormatsTest, APstraceOpensUnderAnyName) {
  auto pstrace = OpenTraceFile(CopiedAs(Data("recorded_before_stage_traits.pstrace"), "run.dat"));
  ASSERT_TRUE(pstrace.ok()) << pstrace.status().message();
  EXPECT_FALSE(pstrace->imported);
  EXPECT_GT(pstrace->model->event_count(), 0u);
}

TEST(TraceFormatsTest, APerfettoTraceIsToldApartAndRefusedWithWhereToOpenIt) {
  auto source = OpenTraceFile(Data("pytorch_input_bound.json"));
  ASSERT_TRUE(source.ok());
  const std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + ".pftrace";
  ASSERT_TRUE(WriteTraceFile(*source->model, path).ok());
  auto format = RecognizeTraceFile(path);
  ASSERT_TRUE(format.ok()) << format.status().message();
  EXPECT_EQ((*format)->id, TraceFormatId::kPerfetto);
  auto opened = OpenTraceFile(path);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("ui.perfetto.dev"), std::string::npos)
      << opened.status().message();
}

TEST(TraceFormatsTest, AFileThatIsNoTraceIsRefusedWithItsFirstBytes) {
  const std::string text = Written("notes.json", "hello, not a trace\n");
  auto opened = OpenTraceFile(text);
  ASSERT_FALSE(opened.ok());
  const std::string& message = opened.status().message();
  EXPECT_NE(message.find(text), std::string::npos) << message;
  EXPECT_NE(message.find("68 65 6c 6c 6f"), std::string::npos) << message;
  EXPECT_NE(message.find("Chrome trace JSON (.json, .json.gz)"), std::string::npos) << message;
  auto empty = OpenTraceFile(Written("empty.pstrace", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos);
  // A gzip cut off before its first block ends decompresses to nothing: not an empty file.
  std::ifstream gz(Data("pytorch_input_bound.json.gz"), std::ios::binary);
  std::string head(20, '\0');
  gz.read(head.data(), static_cast<std::streamsize>(head.size()));
  auto cut = OpenTraceFile(Written("cut.json.gz", head));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("its 20 bytes are compressed data cut off"),
            std::string::npos)
      << cut.status().message();
  auto missing = OpenTraceFile(::testing::TempDir() + "/no such trace.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no such trace.json"), std::string::npos);
}

TEST(TraceFormatsTest, FirstBytesAreReadAsPerfettosGuessReadsThem) {
  using namespace std::string_view_literals;
  EXPECT_EQ(RecognizeTraceBytes("\xEF\xBB\xBF \n\t[{\"ph\":\"X\"}]"sv)->id,
            TraceFormatId::kChromeJson);
  EXPECT_EQ(RecognizeTraceBytes("{\"traceEvents\": []}"sv)->id, TraceFormatId::kChromeJson);
  EXPECT_EQ(RecognizeTraceBytes("PSTRACE\x01rest"sv)->id, TraceFormatId::kPstrace);
  // Trace { packet (1, length 4) { timestamp (8, varint) ... } }
  EXPECT_EQ(RecognizeTraceBytes("\x0a\x04\x40\x96\x01\x00"sv)->id, TraceFormatId::kPerfetto);
  EXPECT_EQ(RecognizeTraceBytes("\x0a\x00\x00"sv), nullptr) << "an empty packet is no trace";
  EXPECT_EQ(RecognizeTraceBytes("\x0a\x04\x07\x00"sv), nullptr) << "wire type 7 does not exist";
  EXPECT_EQ(RecognizeTraceBytes("PSTRACE"sv), nullptr) << "a magic cut short";
  EXPECT_EQ(RecognizeTraceBytes("   "sv), nullptr);
  // Any bytes at all, cut anywhere (a varint running off the end, ten 0xff bytes): an
  // answer, never a read past the end (AddressSanitizer builds check the reads).
  std::mt19937 random(7);
  for (int i = 0; i < 100000; ++i) {
    std::string bytes(random() % 16, '\0');
    for (char& c : bytes) c = static_cast<char>(random() % 4 == 0 ? 0x0a : random());
    (void)RecognizeTraceBytes(bytes);
  }
}

TEST(TraceFormatsTest, AWrittenFileIsNamedForItsFormat) {
  EXPECT_EQ(WrittenFormatNamedBy("a.json.gz")->id, TraceFormatId::kChromeJson);
  EXPECT_EQ(WrittenFormatNamedBy("a.pt.trace.json")->id, TraceFormatId::kChromeJson);
  EXPECT_EQ(WrittenFormatNamedBy("a.pftrace")->id, TraceFormatId::kPerfetto);
  EXPECT_EQ(WrittenFormatNamedBy("a.pstrace")->id, TraceFormatId::kPstrace);
  EXPECT_EQ(WrittenFormatNamedBy("a.txt"), nullptr);
  auto source = OpenTraceFile(Data("generic_array.json"));
  ASSERT_TRUE(source.ok());
  const engine::Status refused = WriteTraceFile(*source->model, "out.txt");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("Perfetto trace (.perfetto-trace"), std::string::npos)
      << refused.message();
  EXPECT_EQ(ListOfFormats(false).find("Perfetto"), std::string::npos)
      << "Pipescope does not open what it cannot read";
  EXPECT_EQ(DialogPatterns(TraceFormatOf(TraceFormatId::kChromeJson)), "*.json *.json.gz");
}

}  // namespace
}  // namespace pipescope::session
