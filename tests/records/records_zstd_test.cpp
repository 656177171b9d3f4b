// requests.jsonl.zst (--records-compress zstd): written by RecordsSink and the Recorder, read by
// read_records_jsonl, found by find_requests_file; a file cut short by a kill keeps the records
// of every block flushed before the cut.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../metrics/test_records.h"
#include "tokenbench/records/recorder.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/records_sink.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/records/zstd_stream.h"

namespace tokenbench::records {
namespace {

namespace fs = std::filesystem;

class RecordsZstdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tokenbench_zstd_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  // `records` as requests.jsonl and as requests.jsonl.zst.
  void write_both(const std::vector<core::RequestRecord>& records) const {
    RecordsSink plain(path(kRequestsFile), RecordsCompression::kNone);
    RecordsSink zstd(path(kRequestsZstFile), RecordsCompression::kZstd);
    for (const auto& r : records) {
      ASSERT_TRUE(plain.append(record_to_jsonl_line(r)));
      ASSERT_TRUE(zstd.append(record_to_jsonl_line(r)));
    }
    ASSERT_TRUE(plain.close());
    ASSERT_TRUE(zstd.close());
  }
  static void put(const std::string& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }
  fs::path dir_;
};

// Many records, so that the stream spans several zstd blocks.
std::vector<core::RequestRecord> many_records(int n) {
  std::vector<core::RequestRecord> out;
  for (int i = 0; i < n; ++i) {
    std::vector<std::pair<double, int>> chunks;
    for (int k = 0; k < 32; ++k) chunks.emplace_back(100.0 + i + k * 1.013, 1 + (k % 5 == 0));
    out.push_back(test_records::streamed_record(static_cast<std::uint64_t>(i), i, i + 0.5, chunks,
                                                200 + i, 100 + i));
  }
  return out;
}

void expect_same_chunks(const core::RequestRecord& a, const core::RequestRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.sent, b.sent);
  EXPECT_EQ(a.done, b.done);
  ASSERT_EQ(a.chunks.size(), b.chunks.size());
  for (std::size_t i = 0; i < a.chunks.size(); ++i) {
    EXPECT_EQ(a.chunks[i].t / 1000 * 1000, b.chunks[i].t);
    EXPECT_EQ(a.chunks[i].tokens, b.chunks[i].tokens);
  }
}

TEST_F(RecordsZstdTest, RoundTripIsExactAndSmaller) {
  const std::vector<core::RequestRecord> records = many_records(200);
  write_both(records);
  const std::string compressed = slurp(path(kRequestsZstFile));
  EXPECT_TRUE(is_zstd(compressed));
  EXPECT_LT(compressed.size() * 3, fs::file_size(path(kRequestsFile)));
  RecordsReadReport report;
  const auto back = read_records_jsonl(path(kRequestsZstFile), &report);
  ASSERT_EQ(back.size(), records.size());
  for (std::size_t i = 0; i < back.size(); ++i) expect_same_chunks(records[i], back[i]);
  EXPECT_FALSE(report.cut_frame);
  EXPECT_TRUE(report.warning.empty()) << report.warning;
  // The same records as the plain file, whatever the name: the magic number tells.
  fs::rename(path(kRequestsZstFile), path("renamed.jsonl"));
  EXPECT_EQ(read_records_jsonl(path("renamed.jsonl")).size(), records.size());
}

// Cursors read on demand: two files, one plain and one compressed, taken a record at a time in
// turn (as a distributed run's merge takes its ranks' files) give every record of each, in order,
// and a cursor over lines in memory passes over a final line cut short, as a file's reader does.
TEST_F(RecordsZstdTest, CursorsTakeARecordAtATimeFromEachFile) {
  const std::vector<core::RequestRecord> records = many_records(300);  // several zstd blocks
  write_both(records);
  RecordsCursor a(path(kRequestsFile));
  RecordsCursor b(path(kRequestsZstFile));
  for (const auto& r : records) {
    const auto from_a = a.next();
    const auto from_b = b.next();
    ASSERT_TRUE(from_a && from_b);
    expect_same_chunks(r, *from_a);
    expect_same_chunks(r, *from_b);
  }
  EXPECT_FALSE(a.next());
  EXPECT_FALSE(b.next());
  EXPECT_FALSE(b.next());
  EXPECT_EQ(b.report().lines_read, 300);
  EXPECT_FALSE(b.report().cut_frame);

  std::vector<std::string> lines = {record_to_jsonl_line(records[0]), "",
                                    record_to_jsonl_line(records[1]), "{\"id\": 2, \"ph"};
  for (auto& line : lines) {
    if (!line.empty() && line.back() == '\n') line.pop_back();
  }
  std::size_t at = 0;
  RecordsCursor c("rank 1's records", [&](std::string& line) {
    if (at == lines.size()) return false;
    line = lines[at++];
    return true;
  });
  EXPECT_EQ(c.next()->id, 0u);
  EXPECT_EQ(c.next()->id, 1u);
  EXPECT_FALSE(c.next());
  EXPECT_EQ(c.report().skipped_lines, 1);
  EXPECT_NE(c.report().warning.find("rank 1's records line 4: not valid JSON"), std::string::npos)
      << c.report().warning;
  // The same cut line before the end is damage, named with its line.
  lines.push_back(record_to_jsonl_line(records[2]));
  at = 0;
  RecordsCursor d("rank 1's records", [&](std::string& line) {
    if (at == lines.size()) return false;
    line = lines[at++];
    return true;
  });
  d.next();
  d.next();
  try {
    d.next();
    ADD_FAILURE() << "a cut line before the end read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 4: not valid JSON"), std::string::npos) << e.what();
  }
}

// A run killed after some flushes: its file ends inside the frame, maybe inside a block. Every
// prefix reads, keeps at least the records flushed before it, and says so in one line.
TEST_F(RecordsZstdTest, TruncatedFileKeepsTheRecordsFlushedBeforeTheCut) {
  const std::vector<core::RequestRecord> records = many_records(60);
  std::vector<std::size_t> flushed_size;  // file size after each batch of 10 records
  std::string killed;                     // the file as a kill after the last flush leaves it
  {
    RecordsSink sink(path(kRequestsZstFile), RecordsCompression::kZstd);
    for (std::size_t i = 0; i < records.size(); ++i) {
      ASSERT_TRUE(sink.append(record_to_jsonl_line(records[i])));
      if (i % 10 == 9) {
        ASSERT_TRUE(sink.flush());
        flushed_size.push_back(fs::file_size(path(kRequestsZstFile)));
      }
    }
    killed = slurp(path(kRequestsZstFile));
  }
  ASSERT_EQ(killed.size(), flushed_size.back());
  const std::string cut_path = path("cut.jsonl.zst");
  for (std::size_t size = 1; size <= killed.size(); size += (size < 64 ? 1 : 37)) {
    SCOPED_TRACE(size);
    put(cut_path, killed.substr(0, size));
    RecordsReadReport report;
    std::vector<core::RequestRecord> back;
    ASSERT_NO_THROW(back = read_records_jsonl(cut_path, &report));
    std::size_t complete = 0;
    for (std::size_t s : flushed_size) complete += s <= size ? 10 : 0;
    EXPECT_GE(back.size(), complete);
    for (std::size_t i = 0; i < back.size(); ++i) expect_same_chunks(records[i], back[i]);
    EXPECT_TRUE(report.cut_frame);
    EXPECT_NE(report.warning.find(cut_path + ": the zstd stream ends inside its frame"),
              std::string::npos)
        << report.warning;
    EXPECT_NE(report.warning.find("kept the " + std::to_string(back.size()) + " records"),
              std::string::npos)
        << report.warning;
    EXPECT_EQ(report.warning.find('\n'), std::string::npos);
  }
  put(cut_path, killed);
  EXPECT_EQ(read_records_jsonl(cut_path).size(), records.size());
}

TEST_F(RecordsZstdTest, DamagedOrForeignDataIsRefusedInOneLine) {
  {
    RecordsSink sink(path(kRequestsZstFile), RecordsCompression::kZstd);
    for (const auto& r : many_records(20)) sink.append(record_to_jsonl_line(r));
  }
  std::string bytes = slurp(path(kRequestsZstFile));
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  bytes[bytes.size() / 2 + 1] = static_cast<char>(bytes[bytes.size() / 2 + 1] ^ 0xa5);
  const std::vector<std::string> damaged{bytes, "not zstd at all\n"};
  for (const std::string& b : damaged) {
    put(path(kRequestsZstFile), b);
    try {
      read_records_jsonl(path(kRequestsZstFile));
      ADD_FAILURE() << "damaged data was accepted";
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path(kRequestsZstFile) + ": zstd: "), std::string::npos) << message;
      EXPECT_NE(message.find("the file is damaged"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  put(path(kRequestsZstFile), "");  // killed before its first write: no records
  EXPECT_TRUE(read_records_jsonl(path(kRequestsZstFile)).empty());
}

TEST_F(RecordsZstdTest, FindRequestsFilePrefersThePlainFile) {
  EXPECT_EQ(find_requests_file(dir_.string()), "");
  EXPECT_FALSE(holds_results(dir_.string()));
  put(path(kRequestsZstFile), "");
  EXPECT_EQ(find_requests_file(dir_.string()), path(kRequestsZstFile));
  EXPECT_TRUE(holds_results(dir_.string()));
  put(path(kRequestsFile), "");
  EXPECT_EQ(find_requests_file(dir_.string()), path(kRequestsFile));
}

TEST(RecordsCompression, NamesAndFiles) {
  EXPECT_EQ(records_compression_from_string("zstd"), RecordsCompression::kZstd);
  EXPECT_EQ(records_compression_from_string("none"), RecordsCompression::kNone);
  EXPECT_FALSE(records_compression_from_string("gzip"));
  EXPECT_EQ(to_string(RecordsCompression::kZstd), "zstd");
  EXPECT_EQ(requests_file_name(RecordsCompression::kZstd), "requests.jsonl.zst");
  EXPECT_EQ(requests_file_name(RecordsCompression::kNone), "requests.jsonl");
}

TEST_F(RecordsZstdTest, RecorderFlushesACompressedFileWhileTheRunGoesOn) {
  const std::string file = path(kRequestsZstFile);
  Recorder recorder(file, {}, RecordsCompression::kZstd);
  recorder.add(std::move(many_records(1)[0]));
  // Within a second of ending, without close(): what a killed run keeps.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  RecordsReadReport report;
  EXPECT_EQ(read_records_jsonl(file, &report).size(), 1u);
  EXPECT_TRUE(report.cut_frame);
  recorder.add(std::move(many_records(2)[1]));
  recorder.close();
  EXPECT_EQ(read_records_jsonl(file, &report).size(), 2u);
  EXPECT_FALSE(report.cut_frame);
  EXPECT_TRUE(report.warning.empty()) << report.warning;
}

// A record at a time: zstd's output blocks (128 KiB) cut lines anywhere; every record comes back
// whole, in order, as from the plain file.
TEST_F(RecordsZstdTest, ForEachRecordStreamsAcrossBlocks) {
  const std::vector<core::RequestRecord> records = many_records(3000);
  for (const auto compression : {RecordsCompression::kNone, RecordsCompression::kZstd}) {
    const std::string file = path(requests_file_name(compression));
    {
      RecordsSink sink(file, compression);
      for (const auto& r : records) sink.append(record_to_jsonl_line(r));
      sink.close();
    }
    if (compression == RecordsCompression::kZstd) {
      ASSERT_GT(fs::file_size(file), 0u);
    }
    std::vector<std::uint64_t> ids;
    std::size_t chunks = 0;
    RecordsReadReport report;
    for_each_record(
        file,
        [&](core::RequestRecord&& r) {
          ids.push_back(r.id);
          chunks += r.chunks.size();
        },
        &report);
    ASSERT_EQ(ids.size(), records.size()) << file;
    for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i) << file;
    EXPECT_EQ(chunks, 32u * records.size());
    EXPECT_EQ(report.lines_read, 3000);
    EXPECT_FALSE(report.cut_frame);
  }
  // Decoded, the file is far larger than one zstd block: lines were cut between blocks.
  EXPECT_GT(slurp(path(kRequestsFile)).size(), 4u * 131072);
}

}  // namespace
}  // namespace tokenbench::records
