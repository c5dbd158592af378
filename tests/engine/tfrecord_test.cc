// TFRecord files: byte-compatible with TensorFlow's framing (checked against golden bytes
// made from the format facts by an independent implementation), the three compressions,
// and the corruption policy.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/io/tfrecord_format.h"
#include "engine/io/tfrecord_reader.h"
#include "engine/io/tfrecord_writer.h"

namespace pipescope::engine {
namespace {

// Generated from the format facts by an independent implementation (Python):
// records "hello", "", bytes 0..255 + "tfrecord".
const std::string kGoldenRaw(
    "\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04\x3e\x68\x65\x6c\x6c\x6f\xbb\x1f\x1c\x19\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x29\x03\x98"
    "\x07\xd8\xea\x82\xa2\x08\x01\x00\x00\x00\x00\x00\x00\xf9\x36\xb4\xd7\x00\x01\x02\x03\x04\x05"
    "\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e"
    "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21\x22\x23\x24\x25"
    "\x26\x27\x28\x29\x2a\x2b\x2c\x2d\x2e"
    "\x2f\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x3a\x3b\x3c\x3d\x3e\x3f\x40\x41\x42\x43\x44\x45"
    "\x46\x47\x48\x49\x4a\x4b\x4c\x4d\x4e"
    "\x4f\x50\x51\x52\x53\x54\x55\x56\x57\x58\x59\x5a\x5b\x5c\x5d\x5e\x5f\x60\x61\x62\x63\x64\x65"
    "\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e"
    "\x6f\x70\x71\x72\x73\x74\x75\x76\x77\x78\x79\x7a\x7b\x7c\x7d\x7e\x7f\x80\x81\x82\x83\x84\x85"
    "\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e"
    "\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5"
    "\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae"
    "\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5"
    "\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce"
    "\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5"
    "\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee"
    "\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff\x74\x66\x72\x65\x63\x6f"
    "\x72\x64\x36\x02\x4f\x9d",
    317);
const std::string kGoldenGzip(
    "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x63\x65\x80\x80\x57\x9b\x58\xec\x32\x52\x73\x72\xf2"
    "\x77\xcb\xcb\x48\x42\xc5\x18\x34\x99"
    "\x67\xb0\xdf\x78\xd5\xb4\x88\x83\x11\xc2\xff\x69\xb6\xe5\x3a\x03\x23\x13\x33\x0b\x2b\x1b\x3b"
    "\x07\x27\x17\x37\x0f\x2f\x1f\xbf\x80"
    "\xa0\x90\xb0\x88\xa8\x98\xb8\x84\xa4\x94\xb4\x8c\xac\x9c\xbc\x82\xa2\x92\xb2\x8a\xaa\x9a\xba"
    "\x86\xa6\x96\xb6\x8e\xae\x9e\xbe\x81"
    "\xa1\x91\xb1\x89\xa9\x99\xb9\x85\xa5\x95\xb5\x8d\xad\x9d\xbd\x83\xa3\x93\xb3\x8b\xab\x9b\xbb"
    "\x87\xa7\x97\xb7\x8f\xaf\x9f\x7f\x40"
    "\x60\x50\x70\x48\x68\x58\x78\x44\x64\x54\x74\x4c\x6c\x5c\x7c\x42\x62\x52\x72\x4a\x6a\x5a\x7a"
    "\x46\x66\x56\x76\x4e\x6e\x5e\x7e\x41"
    "\x61\x51\x71\x49\x69\x59\x79\x45\x65\x55\x75\x4d\x6d\x5d\x7d\x43\x63\x53\x73\x4b\x6b\x5b\x7b"
    "\x47\x67\x57\x77\x4f\x6f\x5f\xff\x84"
    "\x89\x93\x26\x4f\x99\x3a\x6d\xfa\x8c\x99\xb3\x66\xcf\x99\x3b\x6f\xfe\x82\x85\x8b\x16\x2f\x59"
    "\xba\x6c\xf9\x8a\x95\xab\x56\xaf\x59"
    "\xbb\x6e\xfd\x86\x8d\x9b\x36\x6f\xd9\xba\x6d\xfb\x8e\x9d\xbb\x76\xef\xd9\xbb\x6f\xff\x81\x83"
    "\x87\x0e\x1f\x39\x7a\xec\xf8\x89\x93"
    "\xa7\x4e\x9f\x39\x7b\xee\xfc\x85\x8b\x97\x2e\x5f\xb9\x7a\xed\xfa\x8d\x9b\xb7\x6e\xdf\xb9\x7b"
    "\xef\xfe\x83\x87\x8f\x1e\x3f\x79\xfa"
    "\xec\xf9\x8b\x97\xaf\x5e\xbf\x79\xfb\xee\xfd\x87\x8f\x9f\x3e\x7f\xf9\xfa\xed\xfb\x8f\x9f\xbf"
    "\x7e\xff\xf9\xfb\xef\x7f\x49\x5a\x51"
    "\x6a\x72\x7e\x51\x8a\x19\x93\xff\x5c\x00\x25\xb6\x12\xfe\x3d\x01\x00\x00",
    338);
const std::string kGoldenZlib(
    "\x78\x9c\x63\x65\x80\x80\x57\x9b\x58\xec\x32\x52\x73\x72\xf2\x77\xcb\xcb\x48\x42\xc5\x18\x34"
    "\x99\x67\xb0\xdf\x78\xd5\xb4\x88\x83"
    "\x11\xc2\xff\x69\xb6\xe5\x3a\x03\x23\x13\x33\x0b\x2b\x1b\x3b\x07\x27\x17\x37\x0f\x2f\x1f\xbf"
    "\x80\xa0\x90\xb0\x88\xa8\x98\xb8\x84"
    "\xa4\x94\xb4\x8c\xac\x9c\xbc\x82\xa2\x92\xb2\x8a\xaa\x9a\xba\x86\xa6\x96\xb6\x8e\xae\x9e\xbe"
    "\x81\xa1\x91\xb1\x89\xa9\x99\xb9\x85"
    "\xa5\x95\xb5\x8d\xad\x9d\xbd\x83\xa3\x93\xb3\x8b\xab\x9b\xbb\x87\xa7\x97\xb7\x8f\xaf\x9f\x7f"
    "\x40\x60\x50\x70\x48\x68\x58\x78\x44"
    "\x64\x54\x74\x4c\x6c\x5c\x7c\x42\x62\x52\x72\x4a\x6a\x5a\x7a\x46\x66\x56\x76\x4e\x6e\x5e\x7e"
    "\x41\x61\x51\x71\x49\x69\x59\x79\x45"
    "\x65\x55\x75\x4d\x6d\x5d\x7d\x43\x63\x53\x73\x4b\x6b\x5b\x7b\x47\x67\x57\x77\x4f\x6f\x5f\xff"
    "\x84\x89\x93\x26\x4f\x99\x3a\x6d\xfa"
    "\x8c\x99\xb3\x66\xcf\x99\x3b\x6f\xfe\x82\x85\x8b\x16\x2f\x59\xba\x6c\xf9\x8a\x95\xab\x56\xaf"
    "\x59\xbb\x6e\xfd\x86\x8d\x9b\x36\x6f"
    "\xd9\xba\x6d\xfb\x8e\x9d\xbb\x76\xef\xd9\xbb\x6f\xff\x81\x83\x87\x0e\x1f\x39\x7a\xec\xf8\x89"
    "\x93\xa7\x4e\x9f\x39\x7b\xee\xfc\x85"
    "\x8b\x97\x2e\x5f\xb9\x7a\xed\xfa\x8d\x9b\xb7\x6e\xdf\xb9\x7b\xef\xfe\x83\x87\x8f\x1e\x3f\x79"
    "\xfa\xec\xf9\x8b\x97\xaf\x5e\xbf\x79"
    "\xfb\xee\xfd\x87\x8f\x9f\x3e\x7f\xf9\xfa\xed\xfb\x8f\x9f\xbf\x7e\xff\xf9\xfb\xef\x7f\x49\x5a"
    "\x51\x6a\x72\x7e\x51\x8a\x19\x93\xff"
    "\x5c\x00\xc1\xf9\x8f\x78",
    326);

const std::vector<std::string> kRecords = [] {
  std::string third;
  for (int i = 0; i < 256; ++i) third.push_back(static_cast<char>(i));
  return std::vector<std::string>{"hello", "", third + "tfrecord"};
}();

std::string Temp(const std::string& name) { return ::testing::TempDir() + "/pipescope_" + name; }

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

Result<std::vector<std::string>> ReadAll(const std::string& path, TfRecordReader::Options options,
                                         TfRecordReader** keep = nullptr) {
  ASSIGN_OR_RETURN(auto reader, TfRecordReader::Open(path, options));
  std::vector<std::string> out;
  while (true) {
    std::string r;
    bool end = false;
    RETURN_IF_ERROR(reader->Read(r, end));
    if (end) break;
    out.push_back(std::move(r));
  }
  if (keep) *keep = reader.release();
  return out;
}

TEST(TfRecordTest, ReadsFilesInTensorFlowsFormatInEveryCompression) {
  const std::pair<const std::string*, Compression> files[] = {{&kGoldenRaw, Compression::kNone},
                                                              {&kGoldenGzip, Compression::kGzip},
                                                              {&kGoldenZlib, Compression::kZlib}};
  for (const auto& [bytes, compression] : files) {
    const std::string path = Temp("golden_" + CompressionName(compression));
    WriteFile(path, *bytes);
    auto records = ReadAll(path, {compression, false});
    ASSERT_TRUE(records.ok()) << records.status().message();
    EXPECT_EQ(*records, kRecords) << CompressionName(compression);
    EXPECT_EQ(SniffCompression(*bytes), compression);
  }
}

TEST(TfRecordTest, WritesExactlyTheBytesTensorFlowWrites) {
  const std::string path = Temp("written.tfrecord");
  auto w = TfRecordWriter::Create(path, Compression::kNone);
  ASSERT_TRUE(w.ok());
  for (const auto& r : kRecords) ASSERT_TRUE((*w)->Write(r).ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(ReadFile(path), kGoldenRaw);
}

TEST(TfRecordTest, CompressedFilesWeWriteAreStandardStreams) {
  for (Compression c : {Compression::kGzip, Compression::kZlib}) {
    const std::string path = Temp("written_" + CompressionName(c));
    auto w = TfRecordWriter::Create(path, c);
    ASSERT_TRUE(w.ok());
    for (const auto& r : kRecords) ASSERT_TRUE((*w)->Write(r).ok());
    ASSERT_TRUE((*w)->Close().ok());
    const std::string bytes = ReadFile(path);
    EXPECT_EQ(SniffCompression(bytes), c);
    auto records = ReadAll(path, {c, false});
    ASSERT_TRUE(records.ok()) << records.status().message();
    EXPECT_EQ(*records, kRecords);
  }
}

TEST(TfRecordTest, ABadChecksumIsAnErrorNamingFileRecordAndOffset) {
  std::string bytes = kGoldenRaw;
  bytes[12 + 5 + 4 + 12 + 0 + 4 + 12 + 3] ^= 1;  // inside the third record's data
  const std::string path = Temp("bad_crc.tfrecord");
  WriteFile(path, bytes);
  auto records = ReadAll(path, {});
  ASSERT_FALSE(records.ok());
  const std::string& m = records.status().message();
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("record 2 at byte 37"), std::string::npos) << m;
  EXPECT_NE(m.find("checksum"), std::string::npos) << m;
}

TEST(TfRecordTest, ATruncatedFileIsAnErrorNotAHang) {
  for (size_t cut : {size_t{3}, size_t{12}, size_t{20}, kGoldenRaw.size() - 1}) {
    const std::string path = Temp("truncated.tfrecord");
    WriteFile(path, kGoldenRaw.substr(0, cut));
    auto records = ReadAll(path, {});
    if (cut == 3) {
      ASSERT_FALSE(records.ok());
    } else {
      ASSERT_FALSE(records.ok()) << "cut at " << cut;
      EXPECT_NE(records.status().message().find("truncated"), std::string::npos);
    }
  }
  const std::string gz = Temp("truncated.gz");
  WriteFile(gz, kGoldenGzip.substr(0, kGoldenGzip.size() / 2));
  EXPECT_FALSE(ReadAll(gz, {Compression::kGzip, false}).ok());
}

TEST(TfRecordTest, AHugeLengthIsRefusedWithoutAllocatingIt) {
  std::string bytes;
  AppendLe64(bytes, uint64_t{1} << 40);
  AppendLe32(bytes, MaskedCrc(bytes.data(), 8));
  bytes += "tiny";
  const std::string path = Temp("huge.tfrecord");
  WriteFile(path, bytes);
  auto records = ReadAll(path, {});
  ASSERT_FALSE(records.ok());
  EXPECT_NE(records.status().message().find("exceeds the 1 GiB limit"), std::string::npos);
}

TEST(TfRecordTest, SkipCorruptResumesAtTheNextValidRecordAndCounts) {
  std::string bytes = kGoldenRaw;
  bytes[12 + 2] ^= 0x55;  // the first record's data
  const std::string path = Temp("skip.tfrecord");
  WriteFile(path, bytes);
  TfRecordReader* reader = nullptr;
  auto records = ReadAll(path, {Compression::kNone, true}, &reader);
  std::unique_ptr<TfRecordReader> owned(reader);
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ(*records, std::vector<std::string>(kRecords.begin() + 1, kRecords.end()));
  EXPECT_EQ(owned->corrupt_regions_skipped(), 1);
  EXPECT_EQ(owned->bytes_skipped(), 21u);  // exactly the damaged record
}

TEST(TfRecordTest, CheckVerifiesEachRecordWithoutHandingItOver) {
  const std::string path = Temp("check.tfrecord");
  WriteFile(path, kGoldenRaw);
  auto reader = TfRecordReader::Open(path, {});
  ASSERT_TRUE(reader.ok());
  std::vector<uint64_t> lengths;
  uint64_t length = 0;
  bool end = false;
  while ((*reader)->Check(length, end).ok() && !end) lengths.push_back(length);
  EXPECT_EQ(lengths, (std::vector<uint64_t>{5, 0, 264}));

  std::string bytes = kGoldenRaw;
  bytes[12 + 5 + 4 + 12 + 0 + 4 + 12 + 3] ^= 1;
  WriteFile(path, bytes);
  reader = TfRecordReader::Open(path, {});
  ASSERT_TRUE(reader.ok());
  Status s = Status::Ok();
  for (int i = 0; i < 3 && s.ok(); ++i) s = (*reader)->Check(length, end);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("record 2 at byte 37"), std::string::npos) << s.message();
}

// A pipe has no size and gives its bytes as its writer writes them: the same records.
TEST(TfRecordTest, ReadsAPipeAsItReadsAFile) {
  const std::string path = Temp("records.fifo");
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] { WriteFile(path, kGoldenRaw); });
  auto records = ReadAll(path, {});
  writer.join();
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ(*records, kRecords);
  std::remove(path.c_str());
}

// A file that another program cuts short while it is read is an error that says so, at the
// first record the reader had not read before the cut, not a crash (a mapped file's pages
// past its new end raise SIGBUS) and not a truncated file's "ends inside a record".
TEST(TfRecordTest, AFileCutShortWhileBeingReadIsAnErrorNotACrash) {
  const std::string path = Temp("shrinking.tfrecord");
  const std::string record(64 * 1024, 'x');
  constexpr int kRecordsWritten = 64;  // 4 MiB: more than the reader holds at once
  auto w = TfRecordWriter::Create(path, Compression::kNone);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < kRecordsWritten; ++i) ASSERT_TRUE((*w)->Write(record).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto reader = TfRecordReader::Open(path, {});
  ASSERT_TRUE(reader.ok());
  std::string got;
  bool end = false;
  ASSERT_TRUE((*reader)->Read(got, end).ok());
  EXPECT_EQ(got, record);
  ASSERT_EQ(truncate(path.c_str(), 70000), 0);  // inside the second record
  // Records read into the buffer before the cut are still whole; the first one past it
  // fails.
  int read = 1;
  Status s = Status::Ok();
  while ((s = (*reader)->Read(got, end)).ok() && !end) {
    EXPECT_EQ(got, record);
    ++read;
  }
  ASSERT_FALSE(s.ok()) << "read " << read << " records of a file cut to 70000 bytes";
  EXPECT_LT(read, kRecordsWritten);
  EXPECT_NE(s.message().find("cut short by another program"), std::string::npos) << s.message();
  const std::string where =
      "record " + std::to_string(read) + " at byte " + std::to_string(read * (64 * 1024 + 16));
  EXPECT_NE(s.message().find(where), std::string::npos) << s.message();
  uint64_t length = 0;
  EXPECT_FALSE((*reader)->Check(length, end).ok());  // and again, not a crash the second time
}

TEST(TfRecordTest, UnknownCompressionNamesAreErrors) {
  EXPECT_FALSE(ParseCompression("zip").ok());
  EXPECT_EQ(*ParseCompression(""), Compression::kNone);
  EXPECT_EQ(*ParseCompression("GZIP"), Compression::kGzip);
}

}  // namespace
}  // namespace pipescope::engine
