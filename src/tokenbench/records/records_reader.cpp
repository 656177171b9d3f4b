// Reading requests.jsonl back: plain or zstd, whole or a record at a time, with its checks.

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <set>
#include <tuple>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/zstd_stream.h"

namespace tokenbench::records {
namespace {

// The (phase, id, attempt) triples seen, to refuse a repeat: a bit per id of a first attempt
// (ids count from 0 in each phase, so the bits stay near the count read), a set for the rest
// (retries, and ids far beyond the count, as a hostile file's would be).
class SeenIds {
 public:
  // True when the triple was not seen before (and is now).
  bool insert(bool warmup, std::uint64_t id, std::uint32_t attempt) {
    ++count_;
    std::vector<bool>& bits = bits_[warmup ? 1 : 0];
    if (attempt == 0 && id < std::max<std::uint64_t>(kFreeBitIds, 4 * count_)) {
      if (id >= bits.size()) bits.resize(std::max<std::size_t>(id + 1, 2 * bits.size()));
      // An id beyond the bound when first seen went to the set.
      if (bits[id] || (!others_.empty() && others_.contains({warmup, id, attempt}))) return false;
      bits[id] = true;
      return true;
    }
    return others_.emplace(warmup, id, attempt).second;
  }

 private:
  static constexpr std::uint64_t kFreeBitIds = std::uint64_t{1} << 20;  // 128 KiB of bits
  std::uint64_t count_ = 0;
  std::vector<bool> bits_[2];
  std::set<std::tuple<bool, std::uint64_t, std::uint32_t>> others_;
};

// Turns requests.jsonl lines into records as read_records_jsonl says, handing each to `each`.
// Whether a line is the final non-blank one is known only when the next arrives: each waits for
// it (a final line that is not JSON is a run killed mid-write, passed over).
class RecordsCollector {
 public:
  RecordsCollector(std::string_view name, const std::function<void(core::RequestRecord&&)>& each)
      : name_(name), each_(each) {}

  void add(std::string_view line, std::int64_t number) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    if (line.size() > static_cast<std::size_t>(core::max_line_bytes())) {
      throw std::runtime_error(core::line_too_long_message(name_, static_cast<std::size_t>(number),
                                                           core::max_line_bytes()));
    }
    if (pending_number_ > 0) take(false);
    pending_.assign(line);
    pending_number_ = number;
  }

  void finish(RecordsReadReport* report) {
    if (pending_number_ > 0) take(true);
    read_.warning = read_.skipped_reason;
    if (report != nullptr) *report = std::move(read_);
  }

 private:
  void take(bool last) {
    const std::int64_t number = pending_number_;
    const auto damaged = [&](std::string_view problem) {
      return std::runtime_error(fmt::format(
          "{} line {}: {}; the file is damaged or was edited \u2014 rerun, or fix the line", name_,
          number, problem));
    };
    core::RequestRecord record;
    try {
      record = record_from_jsonl_line(pending_);
    } catch (const RecordNotJson&) {
      // A run killed while writing its last line leaves it cut short: only then is it skipped.
      if (!last) throw damaged("not valid JSON");
      read_.skipped_lines = 1;
      read_.skipped_reason = fmt::format(
          "{} line {}: not valid JSON; skipped as a final line cut short (a run killed while "
          "writing it)",
          name_, number);
      return;
    } catch (const std::runtime_error& e) {
      throw damaged(e.what());
    }
    const bool warmup = record.phase == core::Phase::kWarmup;
    // Attempts of one request (--retries) share its id and differ by their attempt number.
    if (!seen_.insert(warmup, record.id, record.attempt)) {
      throw damaged(fmt::format("id {}{} appears twice in the {} phase", record.id,
                                record.attempt ? fmt::format(" attempt {}", record.attempt) : "",
                                warmup ? "warmup" : "measure"));
    }
    ++read_.lines_read;
    each_(std::move(record));
  }

  std::string name_;
  const std::function<void(core::RequestRecord&&)>& each_;
  std::string pending_;              // the last non-blank line, not yet taken
  std::int64_t pending_number_ = 0;  // its number; 0: none
  RecordsReadReport read_;
  SeenIds seen_;
};

// Feeds `collector` the lines of `text`, a block of the file, numbering them from `number`;
// `partial` carries a line cut by the block's end into the next block.
void feed_lines(std::string_view text, std::string& partial, std::int64_t& number,
                RecordsCollector& collector, std::string_view name) {
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      partial.append(text.substr(pos));
      if (partial.size() > static_cast<std::size_t>(core::max_line_bytes())) {
        throw std::runtime_error(core::line_too_long_message(
            name, static_cast<std::size_t>(number + 1), core::max_line_bytes()));
      }
      return;
    }
    if (partial.empty()) {
      collector.add(text.substr(pos, end - pos), ++number);
    } else {
      partial.append(text.substr(pos, end - pos));
      collector.add(partial, ++number);
      partial.clear();
    }
    pos = end + 1;
  }
}

}  // namespace

void for_each_record(const std::string& path,
                     const std::function<void(core::RequestRecord&&)>& each,
                     RecordsReadReport* report) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open for reading", path));
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  const bool compressed =
      path.ends_with(".zst") ||
      is_zstd(std::string_view(magic.data(), static_cast<std::size_t>(in.gcount())));
  in.clear();
  in.seekg(0);
  RecordsCollector collector(path, each);
  if (!compressed) {
    // Line by line, so that no line is held past --max-line-bytes.
    core::LineReader lines(in, path);
    for (std::string line; lines.next(line);) {
      collector.add(line, static_cast<std::int64_t>(lines.number()));
    }
    collector.finish(report);
    return;
  }
  std::string partial;
  std::int64_t number = 0;
  bool cut = false;
  try {
    cut = zstd_decompress_stream(
        in, [&](std::string_view block) { feed_lines(block, partial, number, collector, path); });
  } catch (const ZstdError& e) {
    throw std::runtime_error(
        fmt::format("{}: {}; the file is damaged \u2014 rerun", path, e.what()));
  }
  if (!partial.empty()) collector.add(partial, ++number);
  RecordsReadReport local;
  collector.finish(&local);
  local.cut_frame = cut;
  if (cut) {
    local.warning = fmt::format(
        "{}: the zstd stream ends inside its frame (a run killed before closing it); kept the {} "
        "records written before the cut{}",
        path, local.lines_read,
        local.skipped_lines > 0 ? " and skipped its partial last line" : "");
  }
  if (report != nullptr) *report = std::move(local);
}

std::vector<core::RequestRecord> read_records_jsonl(const std::string& path,
                                                    RecordsReadReport* report) {
  std::vector<core::RequestRecord> records;
  for_each_record(
      path, [&records](core::RequestRecord&& r) { records.push_back(std::move(r)); }, report);
  return records;
}

std::vector<core::RequestRecord> parse_records_jsonl(std::string_view text, std::string_view name,
                                                     RecordsReadReport* report) {
  std::vector<core::RequestRecord> records;
  const std::function<void(core::RequestRecord &&)> each = [&records](core::RequestRecord&& r) {
    records.push_back(std::move(r));
  };
  RecordsCollector collector(name, each);
  std::int64_t number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    collector.add(text.substr(pos, end - pos), ++number);
    pos = end + 1;
  }
  collector.finish(report);
  return records;
}

}  // namespace tokenbench::records
