#include "tokenbench/records/records_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../metrics/test_records.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/records/chunk_codec.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::records {
namespace {

void expect_same_record(const core::RequestRecord& a, const core::RequestRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.phase, b.phase);
  EXPECT_EQ(a.endpoint, b.endpoint);
  EXPECT_EQ(a.mix, b.mix);
  EXPECT_EQ(a.chunk_usage, b.chunk_usage);
  EXPECT_EQ(a.read_late_share, b.read_late_share);
  EXPECT_EQ(a.streamed, b.streamed);
  EXPECT_EQ(a.scheduled, b.scheduled);
  EXPECT_EQ(a.sent, b.sent);
  EXPECT_EQ(a.headers, b.headers);
  EXPECT_EQ(a.first_token, b.first_token);
  EXPECT_EQ(a.last_token, b.last_token);
  EXPECT_EQ(a.done, b.done);
  ASSERT_EQ(a.chunks.size(), b.chunks.size());
  for (std::size_t i = 0; i < a.chunks.size(); ++i) {
    EXPECT_EQ(a.chunks[i].t, b.chunks[i].t);
    EXPECT_EQ(a.chunks[i].tokens, b.chunks[i].tokens);
  }
  EXPECT_EQ(a.prompt_tokens, b.prompt_tokens);
  EXPECT_EQ(a.prompt_source, b.prompt_source);
  EXPECT_EQ(a.output_tokens, b.output_tokens);
  EXPECT_EQ(a.output_source, b.output_source);
  EXPECT_EQ(a.output_chars, b.output_chars);
  EXPECT_EQ(a.http_status, b.http_status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.error_message, b.error_message);
  EXPECT_EQ(a.finish_reason, b.finish_reason);
}

// A file under the test temp dir, removed at the end of the test.
class RecordsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("tokenbench_records_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl"))
                .string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void write(const std::string& text) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << text;
  }
  // The message read_records_jsonl throws for a file of `text` ("" when it throws nothing).
  std::string read_error(const std::string& text) {
    write(text);
    try {
      read_records_jsonl(path_);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  std::string path_;
};

core::RequestRecord odd_record() {
  core::RequestRecord r = test_records::streamed_record(
      18446744073709551615ull, 1, 2, {{3, 1}, {4.5, 7}, {1e6, 2}}, 2e6, 123456789012);
  r.phase = core::Phase::kDropped;
  r.endpoint = 3;
  r.mix = 2;
  r.chunk_usage = true;
  r.read_late_share = 0.375;
  r.headers = core::kNever;
  r.output_source = core::TokenSource::kTokenizer;
  r.prompt_source = core::TokenSource::kApproximate;
  r.output_chars = 4242;
  r.error = core::ErrorClass::kStreamCut;
  r.error_message = "cut \"mid\" stream\n\tline two, caf\xc3\xa9";
  r.finish_reason = "";
  return r;
}

TEST(RecordsIoTest, LineIsOneCompactObjectWithPackedChunks) {
  const core::RequestRecord r = test_records::streamed_record(7, 0, 1, {{10, 1}, {12, 3}}, 20, 5);
  const std::string line = record_to_jsonl_line(r);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("\"chunks\":\"" + chunk_stamps_to_field(r.chunks, r.sent) + "\""),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("chunk_ns"), std::string::npos) << line;
  EXPECT_EQ(line.find("chunk_tokens"), std::string::npos) << line;
  EXPECT_NE(line.find("\"phase\":\"measure\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"output_source\":\"usage\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"sent_ns\":1000000"), std::string::npos) << line;
  // Issue 27: what a reader assumes is left out (streamed, no error), and so are the figures
  // derived from the stamps.
  for (const char* absent : {"\"streamed\"", "\"error\"", "\"error_message\"", "ttft_ms", "tpot_ms",
                             "e2el_ms", "decode_tps", "output_tps"}) {
    EXPECT_EQ(line.find(absent), std::string::npos) << absent << " in " << line;
  }
  core::RequestRecord failed = r;
  failed.streamed = false;
  failed.error = core::ErrorClass::kHttp5xx;
  failed.error_message = "HTTP 503: busy";
  const std::string bad = record_to_jsonl_line(failed);
  EXPECT_NE(bad.find("\"streamed\":false"), std::string::npos) << bad;
  EXPECT_NE(bad.find("\"error\":\"http_5xx\",\"error_message\":\"HTTP 503: busy\""),
            std::string::npos)
      << bad;
  EXPECT_EQ(record_to_json(failed), nlohmann::json::parse(bad));
  const core::RequestRecord back = record_from_jsonl_line(line);
  EXPECT_TRUE(back.streamed);
  EXPECT_EQ(back.error, core::ErrorClass::kNone);
  // A line of an earlier version, with every field and the derived figures, reads the same.
  const core::RequestRecord old = record_from_jsonl_line(
      R"({"id":7,"phase":"measure","streamed":true,"sent_ns":1000,"first_token_ns":2000,)"
      R"("last_token_ns":3000,"done_ns":3000,"chunks":"","error":"none","error_message":"",)"
      R"("ttft_ms":0.001,"tpot_ms":null,"e2el_ms":0.002,"decode_tps":null,"output_tps":5})");
  EXPECT_TRUE(old.streamed);
  EXPECT_EQ(old.error, core::ErrorClass::kNone);
  EXPECT_EQ(old.first_token, 2000);
}

// Issue 32: a request's share of chunks read late is written only where it was measured, and
// read back in [0, 1] only.
TEST(RecordsIoTest, ReadLateShareIsAShareOrAbsent) {
  core::RequestRecord r = test_records::streamed_record(7, 0, 1, {{10, 1}, {12, 3}}, 20, 5);
  EXPECT_EQ(record_to_jsonl_line(r).find("read_late_share"), std::string::npos);
  r.read_late_share = 0.25;
  const std::string line = record_to_jsonl_line(r);
  EXPECT_NE(line.find("\"read_late_share\":0.25"), std::string::npos) << line;
  EXPECT_EQ(record_to_json(r), nlohmann::json::parse(line));
  EXPECT_EQ(record_from_jsonl_line(line).read_late_share, 0.25);
  EXPECT_EQ(record_from_jsonl_line(R"({"id":1,"read_late_share":null})").read_late_share, -1);
  for (const char* bad : {R"({"id":1,"read_late_share":1.5})", R"({"id":1,"read_late_share":-0.1})",
                          R"({"id":1,"read_late_share":"x"})"}) {
    try {
      record_from_jsonl_line(bad);
      ADD_FAILURE() << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("read_late_share"), std::string::npos) << e.what();
    }
  }
}

// Files written before the packed field hold chunk_ns and chunk_tokens: read exactly, to the ns.
TEST(RecordsIoTest, OldChunkArraysStillRead) {
  const core::RequestRecord r = record_from_jsonl_line(
      R"({"id":1,"sent_ns":1000,"first_token_ns":41999,"last_token_ns":43001,"done_ns":50000,)"
      R"("chunk_ns":[41999,42000,43001],"chunk_tokens":[1,0,4]})");
  ASSERT_EQ(r.chunks.size(), 3u);
  EXPECT_EQ(r.chunks[0].t, 41999);
  EXPECT_EQ(r.chunks[1].t, 42000);
  EXPECT_EQ(r.chunks[2].t, 43001);
  EXPECT_EQ(r.chunks[1].tokens, 0);
  EXPECT_EQ(r.chunks[2].tokens, 4);
  // Written again, they are packed at microsecond resolution, non-decreasing.
  const core::RequestRecord again = record_from_jsonl_line(record_to_jsonl_line(r));
  ASSERT_EQ(again.chunks.size(), 3u);
  EXPECT_EQ(again.chunks[0].t, 41000);
  EXPECT_EQ(again.chunks[1].t, 42000);
  EXPECT_EQ(again.chunks[2].t, 43000);
  EXPECT_EQ(again.chunks[2].tokens, 4);
  EXPECT_EQ(again.first_token, 41999);  // the other stamps keep their nanoseconds
}

TEST(RecordsIoTest, PackedAndOldChunksTogetherOrAPackedNonStringAreRefused) {
  EXPECT_THROW(record_from_jsonl_line(R"({"chunks":"","chunk_ns":[],"chunk_tokens":[]})"),
               std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"chunks":[1]})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"chunks":"%%"})"), std::runtime_error);
  EXPECT_TRUE(record_from_jsonl_line(R"({"chunks":""})").chunks.empty());
}

TEST(RecordsIoTest, StampSourceAndConnectedAreWrittenOnlyWhenSet) {
  core::RequestRecord r = test_records::streamed_record(7, 0, 1, {{10, 1}, {12, 3}}, 20, 5);
  const std::string plain = record_to_jsonl_line(r);
  EXPECT_EQ(plain.find("\"stamps\""), std::string::npos) << plain;
  EXPECT_EQ(plain.find("connected_ns"), std::string::npos) << plain;
  const core::RequestRecord plain_back = record_from_jsonl_line(plain);
  EXPECT_EQ(plain_back.stamps, core::StampSource::kUser);
  EXPECT_EQ(plain_back.connected, core::kNever);

  r.stamps = core::StampSource::kKernel;
  r.connected = 1'234'567;
  const std::string line = record_to_jsonl_line(r);
  EXPECT_NE(line.find("\"stamps\":\"kernel\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"connected_ns\":1234567"), std::string::npos) << line;
  EXPECT_EQ(nlohmann::json::parse(line), record_to_json(r));
  const core::RequestRecord back = record_from_jsonl_line(line);
  EXPECT_EQ(back.stamps, core::StampSource::kKernel);
  EXPECT_EQ(back.connected, 1'234'567);
  EXPECT_THROW(record_from_jsonl_line(R"({"stamps":"ebpf"})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"connected_ns":-7})"), std::runtime_error);
}

// in_flight (the engine's count at the send) is written when counted; earlier files lack it.
TEST(RecordsIoTest, InFlightIsWrittenWhenCountedAndReadBack) {
  core::RequestRecord r = test_records::streamed_record(7, 0, 1, {{10, 1}, {12, 3}}, 20, 5);
  const std::string plain = record_to_jsonl_line(r);
  EXPECT_EQ(plain.find("in_flight"), std::string::npos) << plain;
  EXPECT_EQ(record_from_jsonl_line(plain).in_flight, -1);
  r.in_flight = 64;
  const std::string line = record_to_jsonl_line(r);
  EXPECT_NE(line.find("\"in_flight\":64"), std::string::npos) << line;
  EXPECT_EQ(record_from_jsonl_line(line).in_flight, 64);
  EXPECT_THROW(record_from_jsonl_line(R"({"in_flight":-3})"), std::runtime_error);
}

TEST(RecordsIoTest, RoundTripIsExact) {
  for (const core::RequestRecord& r : test_records::hand_built_run()) {
    expect_same_record(r, record_from_jsonl_line(record_to_jsonl_line(r)));
  }
  const core::RequestRecord odd = odd_record();
  const core::RequestRecord back = record_from_jsonl_line(record_to_jsonl_line(odd));
  expect_same_record(odd, back);
  EXPECT_NE(record_to_jsonl_line(odd).find("\"headers_ns\":null"), std::string::npos);
  EXPECT_NE(record_to_jsonl_line(odd).find("\"phase\":\"dropped\""), std::string::npos);
  EXPECT_NE(record_to_jsonl_line(odd).find("\"endpoint\":3"), std::string::npos);
  // Endpoint 0, the only one of most runs, is left out of the line.
  EXPECT_EQ(record_to_jsonl_line(core::RequestRecord{}).find("endpoint"), std::string::npos);
}

TEST(RecordsIoTest, LineHoldsExactlyTheObjectOfRecordToJson) {
  for (const core::RequestRecord& r : test_records::hand_built_run()) {
    EXPECT_EQ(nlohmann::json::parse(record_to_jsonl_line(r)), record_to_json(r));
  }
  EXPECT_EQ(nlohmann::json::parse(record_to_jsonl_line(odd_record())),
            record_to_json(odd_record()));
  core::RequestRecord bad_utf8;
  bad_utf8.error_message = "broken \xff byte";
  const auto parsed = nlohmann::json::parse(record_to_jsonl_line(bad_utf8));
  EXPECT_EQ(parsed["error_message"], "broken \xef\xbf\xbd byte");  // U+FFFD replaces it
}

TEST(RecordsIoTest, RejectsBadFields) {
  EXPECT_THROW(record_from_jsonl_line("[1,2]"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line("{\"phase\":\"later\"}"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line("{\"sent_ns\":\"soon\"}"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line("{\"chunk_ns\":[1,2],\"chunk_tokens\":[1]}"),
               std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line("{\"id\":1"), std::runtime_error);
}

// Found by fuzz/records_jsonl.cpp (fuzz/corpus/records_jsonl/number-overflow*): a number too large
// for a double escaped as nlohmann's out_of_range instead of the documented runtime_error, so a
// truncated final line holding one was not skipped. Stamps no clock can produce are refused too.
TEST(RecordsIoTest, RejectsNumbersOutOfRange) {
  EXPECT_THROW(record_from_jsonl_line(R"({"chunk_ns":[1500e5000],"chunk_tokens":[1]})"),
               std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"sent_ns":-5})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"sent_ns":18446744073709551615})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"done_ns":4611686018427387905})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"chunk_ns":[-2],"chunk_tokens":[1]})"),
               std::runtime_error);
  EXPECT_EQ(record_from_jsonl_line(R"({"done_ns":4611686018427387904})").done,
            core::Nanos{1} << 62);
  // Found by the same target (float-for-integer): a float where an integer belongs was cast,
  // undefined behaviour past the integer's range; an integer too large for its field wrapped.
  EXPECT_THROW(record_from_jsonl_line(R"({"prompt_tokens":3.25e29})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"chunk_ns":[1.5],"chunk_tokens":[1]})"),
               std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"http_status":4294967296})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"endpoint":-1})"), std::runtime_error);
  EXPECT_THROW(record_from_jsonl_line(R"({"chunk_ns":[1],"chunk_tokens":[2147483648]})"),
               std::runtime_error);
}

TEST_F(RecordsFileTest, ReadsBackAWholeRunAndRecomputesTheSameSummary) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  std::string text;
  for (const auto& r : records) text += record_to_jsonl_line(r);
  text += record_to_jsonl_line(odd_record());
  write(text + "\n");  // a blank line is ignored

  RecordsReadReport report;
  const std::vector<core::RequestRecord> back = read_records_jsonl(path_, &report);
  ASSERT_EQ(back.size(), records.size() + 1);
  for (std::size_t i = 0; i < records.size(); ++i) expect_same_record(records[i], back[i]);
  EXPECT_EQ(report.lines_read, 5);
  EXPECT_EQ(report.skipped_lines, 0);

  std::vector<core::RequestRecord> with_odd = records;
  with_odd.push_back(odd_record());
  metrics::SummaryOptions options;
  options.slo = metrics::parse_slo({"ttft:150"});
  const core::RunConfig config;
  EXPECT_EQ(report::summary_to_json(metrics::summarize(with_odd, options), config),
            report::summary_to_json(metrics::summarize(back, options), config));
}

TEST_F(RecordsFileTest, TruncatedFinalLineIsSkippedAndReported) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  const std::string last = record_to_jsonl_line(records[2]);
  write(record_to_jsonl_line(records[0]) + record_to_jsonl_line(records[1]) +
        last.substr(0, last.size() / 2));
  RecordsReadReport report;
  const std::vector<core::RequestRecord> back = read_records_jsonl(path_, &report);
  ASSERT_EQ(back.size(), 2u);
  expect_same_record(records[1], back[1]);
  EXPECT_EQ(report.skipped_lines, 1);
  EXPECT_NE(report.skipped_reason.find(path_ + " line 3"), std::string::npos)
      << report.skipped_reason;
  // Without a report the truncated line is still tolerated.
  EXPECT_EQ(read_records_jsonl(path_).size(), 2u);
}

TEST_F(RecordsFileTest, MalformedMiddleLineNamesFileAndLine) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  write(record_to_jsonl_line(records[0]) + "{\"id\": 2, oops\n" + record_to_jsonl_line(records[1]));
  try {
    read_records_jsonl(path_);
    FAIL() << "a malformed middle line was accepted";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path_ + " line 2"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// One record's line with `field` replaced by `value` (raw JSON text). An edit of chunk_ns or
// chunk_tokens makes it a line of the older format, with those two arrays in place of chunks.
std::string edited_line(const core::RequestRecord& r, const std::string& field,
                        const std::string& value) {
  nlohmann::json o = record_to_json(r);
  if (field == "chunk_ns" || field == "chunk_tokens") {
    o.erase("chunks");
    o["chunk_ns"] = nlohmann::json::array();
    o["chunk_tokens"] = nlohmann::json::array();
    for (const core::ChunkStamp& c : r.chunks) {
      o["chunk_ns"].push_back(c.t);
      o["chunk_tokens"].push_back(c.tokens);
    }
  }
  o[field] = nlohmann::json::parse(value);
  return o.dump() + "\n";
}

// The issue's doctored files: each edit of the middle line is refused with one line naming the
// file, the line and the problem.
TEST_F(RecordsFileTest, DoctoredLineIsRefusedNamingTheLine) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  const core::RequestRecord& ok = records[1];  // sent 0 ms, chunks 100..120 ms, done 125 ms
  struct Edit {
    const char* field;
    const char* value;
    const char* problem;
  };
  const Edit edits[] = {
      {"output_tokens", "1e30", "output_tokens is 1e+30, not an integer from 0 to 1000000000000"},
      {"output_tokens", "-3", "output_tokens is -3, not an integer"},
      {"output_tokens", "2.5", "output_tokens is 2.5, not an integer"},
      {"output_tokens", "1000000000001", "output_tokens is 1000000000001"},
      {"prompt_tokens", "18446744073709551615", "prompt_tokens is 18446744073709551615"},
      {"output_chars", "\"many\"", "output_chars is \"many\""},
      {"http_status", "2000", "http_status is 2000"},
      {"first_token_ns", "-5000000", "first_token_ns is -5000000"},
      {"sent_ns", "101000000", "first_token_ns (100000000) is before sent_ns (101000000)"},
      {"last_token_ns", "90000000", "last_token_ns (90000000) is before first_token_ns"},
      {"done_ns", "110000000", "done_ns (110000000) is before last_token_ns (120000000)"},
      {"chunk_ns", "[100000000,99000000,120000000]",
       "chunk_ns[1] (99000000) is before chunk_ns[0]"},
      {"chunk_tokens", "[1,1.5,1]", "chunk_tokens[1] is 1.5"},
      {"chunks", "\"AAA*\"", "chunks has '*' at offset 3, not a base64 character"},
      {"stamps", "\"ebpf\"", "field 'stamps' has unknown value 'ebpf'"},
      {"phase", "\"later\"", "field 'phase' has unknown value 'later'"},
      {"error", "\"oops\"", "field 'error' has unknown value 'oops'"},
      {"id", "-1", "id is -1, not a non-negative integer"},
  };
  for (const Edit& e : edits) {
    SCOPED_TRACE(std::string(e.field) + "=" + e.value);
    const std::string message =
        read_error(record_to_jsonl_line(records[0]) + edited_line(ok, e.field, e.value) +
                   record_to_jsonl_line(records[2]));
    EXPECT_NE(message.find(path_ + " line 2: "), std::string::npos) << message;
    EXPECT_NE(message.find(e.problem), std::string::npos) << message;
    EXPECT_NE(message.find("; the file is damaged or was edited \u2014 rerun, or fix the line"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(RecordsFileTest, LateSendAndNeverHappenedMomentsAreAccepted) {
  core::RequestRecord late = test_records::streamed_record(1, 80, 50, {{100, 1}}, 130, 4);
  core::RequestRecord cut =
      test_records::failed_record(2, 10, 20, core::ErrorClass::kConnect, 0, "refused");
  cut.first_token = core::kNever;
  core::RequestRecord canceled =
      test_records::failed_record(3, 10, 20, core::ErrorClass::kCanceled, 0, "canceled");
  canceled.sent = core::kNever;
  write(record_to_jsonl_line(late) + record_to_jsonl_line(cut) + record_to_jsonl_line(canceled));
  EXPECT_EQ(read_records_jsonl(path_).size(), 3u);
}

// An id far beyond the count (a hostile or edited file) costs no room for the ids below it, and
// its repeat is still refused.
TEST_F(RecordsFileTest, AHugeIdIsCheckedWithoutRoomForTheIdsBelowIt) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  core::RequestRecord huge = records[1];
  huge.id = std::uint64_t{1} << 62;
  write(record_to_jsonl_line(huge) + record_to_jsonl_line(records[2]));
  EXPECT_EQ(read_records_jsonl(path_).size(), 2u);
  const std::string twice = read_error(
      record_to_jsonl_line(huge) + record_to_jsonl_line(records[2]) + record_to_jsonl_line(huge));
  EXPECT_NE(twice.find(" line 3: id 4611686018427387904 appears twice"), std::string::npos)
      << twice;
}

TEST_F(RecordsFileTest, DuplicateIdsInOnePhaseAreRefused) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  // Warmup and measure each number their requests from 0: the same id in both is fine.
  core::RequestRecord measured0 = records[1];
  measured0.id = 0;
  write(record_to_jsonl_line(records[0]) + record_to_jsonl_line(measured0));
  EXPECT_EQ(read_records_jsonl(path_).size(), 2u);

  const std::string twice =
      read_error(record_to_jsonl_line(records[1]) + record_to_jsonl_line(records[2]) +
                 record_to_jsonl_line(records[1]));
  EXPECT_NE(twice.find(path_ + " line 3: id 1 appears twice in the measure phase"),
            std::string::npos)
      << twice;
  // Dropped requests are numbered among the measured ones.
  core::RequestRecord dropped = records[2];
  dropped.id = 1;
  dropped.phase = core::Phase::kDropped;
  const std::string shared =
      read_error(record_to_jsonl_line(dropped) + record_to_jsonl_line(records[1]));
  EXPECT_NE(shared.find(path_ + " line 2: id 1 appears twice"), std::string::npos) << shared;
}

// Only a final line that is not JSON (cut short by a kill) is skipped; a whole final line with a
// bad value was edited, and is refused like any other.
TEST_F(RecordsFileTest, BadFinalLineThatIsWholeJsonIsRefused) {
  const std::vector<core::RequestRecord> records = test_records::hand_built_run();
  const std::string message = read_error(record_to_jsonl_line(records[1]) +
                                         edited_line(records[2], "output_tokens", "1e30"));
  EXPECT_NE(message.find(path_ + " line 2: output_tokens is 1e+30"), std::string::npos) << message;
}

TEST_F(RecordsFileTest, MissingFileIsAnError) {
  EXPECT_THROW(read_records_jsonl(path_ + ".absent"), std::runtime_error);
}

TEST_F(RecordsFileTest, EmptyFileHasNoRecords) {
  write("");
  EXPECT_TRUE(read_records_jsonl(path_).empty());
}

}  // namespace
}  // namespace tokenbench::records
