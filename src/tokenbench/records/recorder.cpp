#include "tokenbench/records/recorder.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "tokenbench/core/text.h"
#include "tokenbench/records/chunk_codec.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::records {

Recorder::Recorder(const std::string& path, Finalizer finalize, RecordsCompression compression,
                   std::int64_t text_budget, Observer observe)
    : path_(path),
      finalize_(std::move(finalize)),
      observe_(std::move(observe)),
      sink_(std::make_unique<RecordsSink>(path, compression)),
      text_budget_(text_budget) {
  thread_ = std::thread([this] { loop(); });
}

Recorder::~Recorder() { close(); }

void Recorder::add(core::RequestRecord&& record) {
  if (!record.retried) {  // a request counts once, by its last attempt
    finished_.fetch_add(1, std::memory_order_relaxed);
    if (!record.ok()) failed_.fetch_add(1, std::memory_order_relaxed);
    if (record.ok()) output_tokens_.fetch_add(record.output_tokens, std::memory_order_relaxed);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (record.ok() && record.streamed && record.first_token != core::kNever &&
      record.sent != core::kNever) {
    const double ttft = core::to_ms(record.first_token - record.sent);
    if (recent_ttft_.size() < kRecentTtfts) {
      recent_ttft_.push_back(ttft);
    } else {
      recent_ttft_[recent_next_ % kRecentTtfts] = ttft;
    }
    ++recent_next_;
  }
  queue_.push_back(std::move(record));
}

std::pair<double, double> Recorder::recent_ttft() const {
  std::vector<double> v;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    v = recent_ttft_;
  }
  if (v.empty()) return {std::nan(""), std::nan("")};
  std::sort(v.begin(), v.end());
  const auto at = [&v](double p) {
    return v[static_cast<std::size_t>(std::lround(p * static_cast<double>(v.size() - 1)))];
  };
  return {at(0.5), at(0.95)};
}

void Recorder::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return;
    closing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (sink_ && !sink_->close()) warn_write_failed();
  sink_.reset();
}

void Recorder::flush_now(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closing_) return;
  const std::uint64_t ticket = ++flush_asked_;
  wake_.notify_one();
  flushed_cv_.wait_for(lock, timeout, [this, ticket] { return flushed_ >= ticket || closing_; });
}

void Recorder::loop() {
  std::vector<core::RequestRecord> batch;
  while (true) {
    bool last = false;
    std::uint64_t asked = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Records are written within a fraction of a second of ending; the file is flushed with
      // every batch, so a killed run loses at most the last interval.
      wake_.wait_for(lock, std::chrono::milliseconds(250),
                     [this] { return closing_ || flush_asked_ != flushed_; });
      batch.swap(queue_);
      last = closing_;
      asked = flush_asked_;
    }
    write_pending(batch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      flushed_ = asked;
    }
    flushed_cv_.notify_all();
    if (last) return;
  }
}

void Recorder::write_pending(std::vector<core::RequestRecord>& batch) {
  if (batch.empty()) return;
  bool ok = true;
  for (auto& record : batch) {
    if (finalize_) finalize_(record);
    bound_texts(record);
    // The figures see the stamps as the file keeps them, so that `report` rebuilds the same.
    quantize_chunk_stamps_in_place(record.chunks);
    ok &= sink_->append(record_to_jsonl_line(record));
    if (observe_) observe_(record);
  }
  batch.clear();
  ok &= sink_->flush();
  if (!ok) warn_write_failed();
}

void Recorder::bound_texts(core::RequestRecord& r) {
  if (text_budget_ <= 0) {  // the text was kept for a local tokenizer only
    r.output_text = std::string();
    r.prompt_text = std::string();
    return;
  }
  if (r.output_text.size() > core::kMaxDetailTextBytes) {
    r.output_text.resize(core::utf8_prefix(r.output_text, core::kMaxDetailTextBytes).size());
    r.text_truncated = true;
  }
  const auto bytes = static_cast<std::int64_t>(r.prompt_text.size() + r.output_text.size());
  if (!texts_spent_ && text_bytes_ + bytes > text_budget_) {
    texts_spent_ = true;
    const std::string budget = text_budget_ >= (1 << 20)
                                   ? std::to_string(text_budget_ >> 20) + " MiB"
                                   : std::to_string(text_budget_) + " bytes";
    std::fprintf(stderr,
                 "tokenbench: warning: --save-detailed: the texts in %s reached %s; later "
                 "requests are recorded without them (text_dropped)\n",
                 path_.c_str(), budget.c_str());
  }
  if (texts_spent_) {
    r.output_text = std::string();
    r.prompt_text = std::string();
    r.text_truncated = false;
    r.text_dropped = true;
    return;
  }
  text_bytes_ += bytes;
}

void Recorder::warn_write_failed() {
  if (write_failed_) return;
  write_failed_ = true;  // said once; the records stay in memory for the summary
  std::fprintf(stderr,
               "tokenbench: warning: cannot write %s: %s; the summary still counts every "
               "request\n",
               path_.c_str(), std::strerror(errno));
}

}  // namespace tokenbench::records
