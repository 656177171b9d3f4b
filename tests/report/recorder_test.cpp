#include "tokenbench/report/recorder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tokenbench/report/records_io.h"

namespace tokenbench::report {
namespace {

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
  Recorder recorder(path);
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
  EXPECT_EQ(recorder.records().size(), 1000u);
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
  Recorder recorder(path, [](core::RequestRecord& r) {
    r.output_tokens = 42;
    r.output_source = core::TokenSource::kTokenizer;
  });
  recorder.add(record(7, true));
  recorder.close();
  const auto back = read_records_jsonl(path);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].output_tokens, 42);
  EXPECT_EQ(back[0].output_source, core::TokenSource::kTokenizer);
  EXPECT_EQ(recorder.records()[0].output_tokens, 42);
}

// The summary of a run and the one `report` rebuilds from its file see the same chunk stamps.
TEST(Recorder, KeepsChunkStampsAsTheFileHoldsThem) {
  const std::string path = ::testing::TempDir() + "recorder-chunks.jsonl";
  Recorder recorder(path);
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
  const auto& kept = recorder.records()[0].chunks;
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

}  // namespace
}  // namespace tokenbench::report
