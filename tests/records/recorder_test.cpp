#include "tokenbench/records/recorder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tokenbench/core/request.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::records {
namespace {

std::vector<std::string> slurp_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

core::RequestRecord record(std::uint64_t id, bool ok) {
  core::RequestRecord r;
  r.id = id;
  r.sent = 10;
  r.done = 20;
  if (!ok) r.error = core::ErrorClass::kHttp5xx;
  return r;
}

TEST(Recorder, WritesEveryRecordFromSeveralThreadsAndCounts) {
  const std::string path = ::testing::TempDir() + "recorder-many.jsonl";
  std::vector<core::RequestRecord> seen;  // the observer runs on the writer thread alone
  Recorder recorder(path, {}, RecordsCompression::kNone, 0,
                    [&seen](const core::RequestRecord& r) { seen.push_back(r); });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 250; ++i)
        recorder.add(record(static_cast<std::uint64_t>(t * 1000 + i), i % 10 != 0));
    });
  }
  for (auto& th : threads) th.join();
  recorder.close();
  EXPECT_EQ(recorder.finished(), 1000);
  EXPECT_EQ(recorder.failed(), 100);
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(read_records_jsonl(path).size(), 1000u);
}

TEST(Recorder, FlushesWhileTheRunGoesOn) {
  const std::string path = ::testing::TempDir() + "recorder-flush.jsonl";
  Recorder recorder(path);
  recorder.add(record(1, true));
  // Flushed within a second of ending, without close(): what a killed run keeps.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(read_records_jsonl(path).size(), 1u);
  recorder.close();
}

TEST(Recorder, FinalizerRunsBeforeEachRecordIsWritten) {
  const std::string path = ::testing::TempDir() + "recorder-final.jsonl";
  std::vector<core::RequestRecord> seen;
  Recorder recorder(
      path,
      [](core::RequestRecord& r) {
        r.output_tokens = 42;
        r.output_source = core::TokenSource::kTokenizer;
      },
      RecordsCompression::kNone, 0, [&seen](const core::RequestRecord& r) { seen.push_back(r); });
  recorder.add(record(7, true));
  recorder.close();
  const auto back = read_records_jsonl(path);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].output_tokens, 42);
  EXPECT_EQ(back[0].output_source, core::TokenSource::kTokenizer);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].output_tokens, 42);
}

// The summary of a run and the one `report` rebuilds from its file see the same chunk stamps.
TEST(Recorder, ObserverSeesChunkStampsAsTheFileHoldsThem) {
  const std::string path = ::testing::TempDir() + "recorder-chunks.jsonl";
  std::vector<core::RequestRecord> seen;
  Recorder recorder(path, {}, RecordsCompression::kNone, 0,
                    [&seen](const core::RequestRecord& r) { seen.push_back(r); });
  core::RequestRecord r = record(3, true);
  r.sent = 1'000'400;
  r.chunks = {{2'345'678, 1}, {3'456'789, 2}};
  r.first_token = 2'345'678;
  r.last_token = 3'456'789;
  r.done = 4'000'000;
  recorder.add(std::move(r));
  recorder.close();
  const auto back = read_records_jsonl(path);
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(seen.size(), 1u);
  const auto& kept = seen[0].chunks;
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].t, 2'345'000);
  EXPECT_EQ(kept[1].t, 3'456'000);
  ASSERT_EQ(back[0].chunks.size(), 2u);
  EXPECT_EQ(back[0].chunks[0].t, kept[0].t);
  EXPECT_EQ(back[0].chunks[1].t, kept[1].t);
  EXPECT_EQ(back[0].chunks[1].tokens, 2);
  EXPECT_EQ(back[0].first_token, 2'345'678);  // the other stamps keep their nanoseconds
}

TEST(Recorder, UnwritablePathIsAnErrorNamingIt) {
  try {
    Recorder recorder("/nonexistent-dir/requests.jsonl");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/requests.jsonl"), std::string::npos);
  }
}

// --save-detailed: texts are written only with a budget, each cut at kMaxDetailTextBytes on a
// UTF-8 boundary, and none once the budget is spent.
TEST(Recorder, DetailedTextsAreBoundedPerRequestAndPerFile) {
  const auto texts = [](std::uint64_t id, std::string prompt, std::string output) {
    core::RequestRecord r = record(id, true);
    r.prompt_text = std::move(prompt);
    r.output_text = std::move(output);
    return r;
  };
  // Without a budget (the text was kept for a tokenizer): none written.
  const std::string plain = ::testing::TempDir() + "recorder-no-texts.jsonl";
  {
    Recorder recorder(plain);
    recorder.add(texts(1, "the prompt", "the output"));
    recorder.close();
  }
  EXPECT_EQ(slurp_lines(plain)[0].find("the output"), std::string::npos);

  const std::string path = ::testing::TempDir() + "recorder-texts.jsonl";
  // "é" is 2 bytes: 70 KiB of them cut at 64 KiB lands on a character boundary.
  std::string long_output;
  for (int i = 0; i < 35 * 1024; ++i) long_output += "\xc3\xa9";
  const std::int64_t budget = 100 * 1024;
  Recorder recorder(path, {}, RecordsCompression::kNone, budget);
  recorder.add(texts(1, "first prompt", "first output"));
  recorder.add(texts(2, "second prompt", long_output));
  recorder.add(texts(3, "third prompt", std::string(40 * 1024, 'x')));  // over the budget
  recorder.add(texts(4, "p", "o"));                                     // and none after it
  recorder.close();
  const auto lines = slurp_lines(path);
  ASSERT_EQ(lines.size(), 4u);
  std::vector<nlohmann::json> j;
  for (const auto& l : lines) j.push_back(nlohmann::json::parse(l));
  EXPECT_EQ(j[0]["prompt_text"], "first prompt");
  EXPECT_EQ(j[0]["output_text"], "first output");
  EXPECT_FALSE(j[0].contains("text_truncated"));
  const std::string cut = j[1]["output_text"].get<std::string>();
  EXPECT_EQ(cut.size(), core::kMaxDetailTextBytes);
  EXPECT_EQ(cut, long_output.substr(0, core::kMaxDetailTextBytes));
  EXPECT_EQ(j[1]["text_truncated"], true);
  for (int i : {2, 3}) {
    EXPECT_FALSE(j[i].contains("prompt_text")) << i;
    EXPECT_FALSE(j[i].contains("output_text")) << i;
    EXPECT_EQ(j[i]["text_dropped"], true) << i;
  }
  // Readers skip the texts: the records read back are the records written.
  EXPECT_EQ(read_records_jsonl(path).size(), 4u);
}

}  // namespace
}  // namespace tokenbench::records
