#include "tokenbench/distributed/record_transfer.h"

#include <fmt/core.h>

#include <charconv>
#include <memory>

#include "tokenbench/records/records_io.h"

namespace tokenbench::distributed {
namespace {

// Part p's next batch from `lines` (opened on first use); "E" once it has no more.
std::string next_batch(std::unique_ptr<records::RecordLines>& lines, const std::string& file) {
  if (file.empty()) return "E";
  if (!lines) lines = std::make_unique<records::RecordLines>(file);
  std::string batch = "L";
  for (std::string line; batch.size() < kBatchBytes && lines->next(line);) {
    batch += line;
    batch += '\n';
  }
  return batch.size() > 1 ? batch : "E";
}

}  // namespace

void serve_records(Comm& comm, const std::vector<std::string>& files) {
  std::vector<std::unique_ptr<records::RecordLines>> open(files.size());
  while (true) {
    const auto ask = receive(comm, 0, Tag::kAsk);
    if (!ask || *ask == "end") return;  // the leader has all it wants, or is gone
    std::size_t part = files.size();
    std::from_chars(ask->data(), ask->data() + ask->size(), part);
    std::string batch;
    try {
      batch = part < files.size() ? next_batch(open[part], files[part]) : "E";
    } catch (const std::exception& e) {
      batch = std::string("X") + e.what();
    }
    comm.send(0, Tag::kBatch, std::move(batch));
  }
}

bool RemoteLines::next(std::string& line) {
  while (pos_ >= batch_.size()) {
    if (ended_) return false;
    comm_.send(rank_, Tag::kAsk, std::to_string(part_));
    auto reply = receive(comm_, rank_, Tag::kBatch);
    if (!reply || reply->empty() || (*reply)[0] == 'X') {
      ended_ = true;
      failure_ = !reply           ? "stopped answering while it sent its records"
                 : reply->empty() ? "sent an empty batch of records"
                                  : fmt::format("could not send its records: {}", reply->substr(1));
      return false;
    }
    if ((*reply)[0] != 'L') {
      ended_ = true;
      return false;
    }
    batch_ = std::move(*reply);
    pos_ = 1;
  }
  std::size_t end = batch_.find('\n', pos_);
  if (end == std::string::npos) end = batch_.size();
  line.assign(batch_, pos_, end - pos_);
  pos_ = end + 1;
  return true;
}

void end_records(Comm& comm, const std::vector<int>& ranks) {
  for (const int k : ranks) comm.send(k, Tag::kAsk, "end");
}

}  // namespace tokenbench::distributed
