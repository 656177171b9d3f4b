#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tokenbench/core/request.h"
#include "tokenbench/records/records_sink.h"

namespace tokenbench::records {

/// Receives finished requests from the engine's workers and appends them to requests.jsonl (or
/// requests.jsonl.zst) on its own thread, flushing at least once a second, so that a killed run
/// keeps what it measured. It keeps no record once written: each is handed, as the file holds it
/// (chunk stamps rounded to the microsecond, records/chunk_codec.h), to an Observer on the same
/// thread (the run's figures: report::RunFigures), so that `report` rebuilds the same figures
/// and memory does not grow with the run.
///
/// add() is thread-safe and cheap (a lock and a move); everything else is for the owning thread.
class Recorder {
 public:
  /// Runs on the recorder thread for each record before it is written: work that must not slow
  /// the engine's threads (e.g. counting output tokens with a local tokenizer).
  using Finalizer = std::function<void(core::RequestRecord&)>;
  /// Runs on the recorder thread for each record just after it is written, as written.
  using Observer = std::function<void(const core::RequestRecord&)>;

  /// Opens (truncates) `path`, compressed as `compression` says. With a `text_budget` above 0
  /// (--save-detailed: kMaxDetailTotalBytes), each record's prompt_text and output_text are
  /// written too, each cut to core::kMaxDetailTextBytes (text_truncated), until `text_budget`
  /// bytes of text were written; the records after are written without (text_dropped), said once
  /// on stderr. With 0, no text is written. `observe` sees each record once written. Throws
  /// std::runtime_error naming the path when it cannot open it.
  explicit Recorder(const std::string& path, Finalizer finalize = {},
                    RecordsCompression compression = RecordsCompression::kNone,
                    std::int64_t text_budget = 0, Observer observe = {});
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Queues a finished request. Any thread.
  void add(core::RequestRecord&& record);

  /// Writes what is queued, flushes, closes the file and stops the thread. Idempotent.
  void close();

  /// Writes every record handed over so far to the file now, and waits (at most `timeout`) until
  /// it is written. Thread-safe. For a second Ctrl-C: the process exits at once, after this.
  void flush_now(std::chrono::milliseconds timeout);

  /// Requests that ended so far, and how many of those failed. Any thread.
  std::int64_t finished() const { return finished_.load(std::memory_order_relaxed); }
  std::int64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  /// Output tokens of the successful requests so far (as the engine counted them). Any thread.
  std::int64_t output_tokens() const { return output_tokens_.load(std::memory_order_relaxed); }
  /// TTFT p50 and p95 (ms) of the last kRecentTtfts successful streamed requests; NaN when none.
  /// Any thread (the live view).
  std::pair<double, double> recent_ttft() const;
  /// The requests file it writes.
  const std::string& path() const { return path_; }

  static constexpr std::size_t kRecentTtfts = 256;
  /// --save-detailed: the most bytes of prompt and generated text one requests.jsonl keeps.
  static constexpr std::int64_t kMaxDetailTotalBytes = std::int64_t{256} << 20;

 private:
  void loop();
  void write_pending(std::vector<core::RequestRecord>& batch);
  void warn_write_failed();
  /// Cuts or drops `record`'s texts as the constructor says (writer thread).
  void bound_texts(core::RequestRecord& record);

  std::string path_;
  Finalizer finalize_;
  Observer observe_;
  std::unique_ptr<RecordsSink> sink_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<core::RequestRecord> queue_;  // guarded by mutex_
  bool closing_ = false;                    // guarded by mutex_
  std::uint64_t flush_asked_ = 0;           // guarded by mutex_
  std::uint64_t flushed_ = 0;               // guarded by mutex_
  std::condition_variable flushed_cv_;
  bool write_failed_ = false;  // writer thread only
  std::int64_t text_budget_ = 0;
  std::int64_t text_bytes_ = 0;  // writer thread only: texts written so far
  bool texts_spent_ = false;     // writer thread only: text_budget_ reached
  std::atomic<std::int64_t> finished_{0};
  std::atomic<std::int64_t> failed_{0};
  std::atomic<std::int64_t> output_tokens_{0};
  std::vector<double> recent_ttft_;  // guarded by mutex_; a ring of kRecentTtfts
  std::size_t recent_next_ = 0;      // guarded by mutex_
  std::thread thread_;
};

}  // namespace tokenbench::records
