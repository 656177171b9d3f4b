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

}  // namespace

// Turns requests.jsonl lines into records as read_records_jsonl says. Whether a line is the final
// non-blank one is known only when the next arrives: each waits for it (a final line that is not
// JSON is a run killed mid-write, passed over).
class RecordsCursor::Collector {
 public:
  explicit Collector(std::string name) : name_(std::move(name)) {}

  // The record of the line before `line`, if there was one.
  std::optional<core::RequestRecord> add(std::string_view line, std::int64_t number) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return std::nullopt;
    if (line.size() > static_cast<std::size_t>(core::max_line_bytes())) {
      throw std::runtime_error(core::line_too_long_message(name_, static_cast<std::size_t>(number),
                                                           core::max_line_bytes()));
    }
    std::optional<core::RequestRecord> before;
    if (pending_number_ > 0) before = take(false);
    pending_.assign(line);
    pending_number_ = number;
    return before;
  }

  // The last line's record, if it is one; completes the report.
  std::optional<core::RequestRecord> finish() {
    std::optional<core::RequestRecord> last;
    if (pending_number_ > 0) last = take(true);
    pending_number_ = 0;
    read_.warning = read_.skipped_reason;
    return last;
  }

  RecordsReadReport& read() { return read_; }
  const std::string& name() const { return name_; }

 private:
  std::optional<core::RequestRecord> take(bool last) {
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
      return std::nullopt;
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
    return record;
  }

  std::string name_;
  std::string pending_;              // the last non-blank line, not yet taken
  std::int64_t pending_number_ = 0;  // its number; 0: none
  RecordsReadReport read_;
  SeenIds seen_;
};

// A file's bytes: plain, line by line, or zstd's output, a block at a time.
struct RecordLines::Source {
  explicit Source(const std::string& path) : in(path, std::ios::binary) {}
  std::ifstream in;
  std::optional<core::LineReader> plain;
  std::optional<ZstdReader> zstd;
  std::string_view block;  // zstd's output not yet cut into lines
  std::string partial;     // a line cut by a block's end
  std::size_t lines = 0;   // lines handed out
  bool cut = false;
};

RecordLines::RecordLines(const std::string& path)
    : path_(path), source_(std::make_unique<Source>(path)) {
  std::ifstream& in = source_->in;
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open for reading", path));
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  const bool compressed =
      path.ends_with(".zst") ||
      is_zstd(std::string_view(magic.data(), static_cast<std::size_t>(in.gcount())));
  in.clear();
  in.seekg(0);
  // Plain: line by line, so that no line is held past --max-line-bytes.
  if (compressed) {
    source_->zstd.emplace(in);
  } else {
    source_->plain.emplace(in, path);
  }
}

RecordLines::~RecordLines() = default;

bool RecordLines::cut() const { return source_->cut; }

bool RecordLines::next(std::string& line) {
  Source& s = *source_;
  if (s.plain) return s.plain->next(line);
  while (true) {
    if (const std::size_t end = s.block.find('\n'); end != std::string_view::npos) {
      line = std::move(s.partial);
      line.append(s.block.substr(0, end));
      s.partial.clear();
      s.block.remove_prefix(end + 1);
      ++s.lines;
      return true;
    }
    s.partial.append(s.block);
    s.block = {};
    if (s.partial.size() > static_cast<std::size_t>(core::max_line_bytes())) {
      throw std::runtime_error(
          core::line_too_long_message(path_, s.lines + 1, core::max_line_bytes()));
    }
    bool more = false;
    try {
      more = s.zstd->next(s.block);
    } catch (const ZstdError& e) {
      throw std::runtime_error(
          fmt::format("{}: {}; the file is damaged \u2014 rerun", path_, e.what()));
    }
    if (!more) {
      s.cut = s.zstd->cut();
      if (s.partial.empty()) return false;
      line = std::move(s.partial);
      s.partial.clear();
      ++s.lines;
      return true;
    }
  }
}

RecordsCursor::RecordsCursor(const std::string& path)
    : file_(std::make_unique<RecordLines>(path)), collector_(std::make_unique<Collector>(path)) {}

RecordsCursor::RecordsCursor(std::string name, std::function<bool(std::string&)> next_line)
    : next_line_(std::move(next_line)), collector_(std::make_unique<Collector>(std::move(name))) {}

RecordsCursor::~RecordsCursor() = default;

const RecordsReadReport& RecordsCursor::report() const { return collector_->read(); }

std::optional<core::RequestRecord> RecordsCursor::next() {
  std::string line;
  while (!ended_) {
    if (file_ ? file_->next(line) : next_line_(line)) {
      if (auto record = collector_->add(line, ++number_)) return record;
      continue;
    }
    ended_ = true;
    auto last = collector_->finish();
    RecordsReadReport& read = collector_->read();
    if (file_ && file_->cut()) {
      read.cut_frame = true;
      read.warning = fmt::format(
          "{}: the zstd stream ends inside its frame (a run killed before closing it); kept the {} "
          "records written before the cut{}",
          collector_->name(), read.lines_read,
          read.skipped_lines > 0 ? " and skipped its partial last line" : "");
    }
    return last;
  }
  return std::nullopt;
}

void for_each_record(const std::string& path,
                     const std::function<void(core::RequestRecord&&)>& each,
                     RecordsReadReport* report) {
  RecordsCursor cursor(path);
  while (auto record = cursor.next()) each(std::move(*record));
  if (report != nullptr) *report = cursor.report();
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
  std::size_t pos = 0;
  RecordsCursor cursor(std::string(name), [&text, &pos](std::string& line) {
    if (pos >= text.size()) return false;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    line.assign(text.substr(pos, end - pos));
    pos = end + 1;
    return true;
  });
  std::vector<core::RequestRecord> records;
  while (auto record = cursor.next()) records.push_back(std::move(*record));
  if (report != nullptr) *report = cursor.report();
  return records;
}

}  // namespace tokenbench::records
