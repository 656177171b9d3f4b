#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::records {

// requests.jsonl: one compact JSON object per line, one line per request, in the order requests
// ended. Fields: id, phase, streamed (written only when false), scheduled_ns, sent_ns, headers_ns,
// first_token_ns, last_token_ns, done_ns (integer ns since the run's origin; null for a moment that
// never happened), chunks (the content chunks' stamps, at microsecond resolution, and token counts,
// packed as records/chunk_codec.h says; files written before it hold chunk_ns and chunk_tokens
// instead, parallel integer arrays of ns and counts, still read), connected_ns (written only when
// set), stamps ("kernel", written only then; absent: "user"), prompt_tokens, prompt_source,
// output_tokens, output_source, output_chars, http_status, error and error_message (written only
// when the request failed; absent: "none" and ""), finish_reason,
// endpoint (which target or replica served it; written only when not 0), request_id and response_id
// (strings of at most 128 bytes, written only when not empty), server_timings (llama.cpp's timings:
// cache_n, prompt_n, prompt_ms, predicted_n, predicted_ms; only when the reply carried them),
// nonstream_sample (true for --nonstream-sample's requests; written only then), --save-detailed's
// prompt_text and output_text (strings, invalid UTF-8 replaced; written only when kept) with
// text_truncated and text_dropped (true when a text was cut or the run's budget was spent;
// written only then), which no reader needs and record_from_json skips. Files written before
// issue 27 also hold the derived figures ttft_ms, tpot_ms, e2el_ms, decode_tps and output_tps
// (ignored when read back: they are derived from the stamps; `report --export csv` writes them),
// and streamed, error and error_message on every line. Enums are written by name
// (core::to_string).

/// The JSON object of one record.
nlohmann::json record_to_json(const core::RequestRecord& record);

/// One requests.jsonl line: the compact JSON object of `record` followed by '\n'.
std::string record_to_jsonl_line(const core::RequestRecord& record);

/// Rebuilds a record from its JSON object; the exact inverse of record_to_json but for the texts
/// of --save-detailed, which it skips (so that reading a file costs no memory for them). Fields
/// that are absent keep their defaults. Throws std::runtime_error with a one-line message naming
/// the field on a value of the wrong type, an unknown enum name, chunk arrays of different lengths,
/// a count that is not an integer from 0 to 10^12 (prompt_tokens, output_tokens, output_chars), an
/// http_status outside 0..999, a stamp that is not null or an integer from -1 to 2^62, or stamps
/// out of order: first_token >= sent, last_token >= first_token, done >= sent and last_token,
/// chunk stamps non-decreasing (sent before scheduled is allowed: a client may send late); and
/// on a chunks field that chunk_stamps_from_field rejects, or one beside chunk_ns/chunk_tokens.
core::RequestRecord record_from_json(const nlohmann::json& object);

/// What record_from_jsonl_line throws for a line that is not JSON at all (as a final line cut
/// short by a killed run is).
class RecordNotJson : public std::runtime_error {
 public:
  RecordNotJson() : std::runtime_error("not valid JSON") {}
};

/// Parses one requests.jsonl line (with or without its '\n'). Throws RecordNotJson when it is
/// not JSON, and std::runtime_error with a one-line message when it is not a JSON object or
/// record_from_json rejects it.
core::RequestRecord record_from_jsonl_line(std::string_view line);

/// What read_records_jsonl passed over.
struct RecordsReadReport {
  std::int64_t lines_read = 0;     ///< non-blank lines turned into records
  std::int64_t skipped_lines = 0;  ///< a final line cut short (a run killed mid-write): 0 or 1
  std::string skipped_reason;      ///< why the final line was skipped, naming file and line
  /// A compressed file ended inside its zstd frame (a run killed before closing it): the
  /// records of the blocks written before the cut were read.
  bool cut_frame = false;
  /// One line for the user saying what was passed over, naming the file; "" when nothing was.
  std::string warning;
};

/// Reads every record of a requests.jsonl file, in file order; a zstd-compressed one
/// (requests.jsonl.zst: its name ends in .zst, or it starts with zstd's magic number) is
/// decompressed first. Blank lines are ignored. A final line that is not valid JSON (a run killed
/// while writing it), and a zstd frame cut short, are passed over and reported in `report` when
/// given. Throws std::runtime_error when the file cannot be opened, "PATH: zstd: REASON; the file
/// is damaged — rerun" on compressed data that does not decode, and otherwise with one line,
/// "PATH line N: PROBLEM; the file is damaged or was edited — rerun, or fix the line", for any
/// other line that is not valid JSON, that record_from_json rejects, or whose id repeats one of
/// the same phase (warmup, or measure with its dropped requests).
std::vector<core::RequestRecord> read_records_jsonl(const std::string& path,
                                                    RecordsReadReport* report = nullptr);

/// read_records_jsonl a record at a time: `each` gets every record, in file order, with the same
/// checks, errors and report, while the reader holds one line (and of a compressed file, one
/// block of zstd's output): memory does not grow with the file, save a bit per request id for
/// the check that ids do not repeat.
void for_each_record(const std::string& path,
                     const std::function<void(core::RequestRecord&&)>& each,
                     RecordsReadReport* report = nullptr);

/// The lines of a requests.jsonl file, plain or zstd-compressed (told apart as
/// read_records_jsonl does), read one at a time on demand: memory holds one line and, of a
/// compressed file, one block of zstd's output. Not copyable or movable (it reads from a stream it
/// owns).
class RecordLines {
 public:
  /// Throws std::runtime_error "PATH: cannot open for reading".
  explicit RecordLines(const std::string& path);
  ~RecordLines();
  RecordLines(const RecordLines&) = delete;
  RecordLines& operator=(const RecordLines&) = delete;

  /// The next line, without its '\n', into `line`; false at the end of the file. Throws
  /// std::runtime_error "PATH: zstd: REASON; the file is damaged — rerun" on compressed data
  /// that does not decode, and on a line over --max-line-bytes.
  bool next(std::string& line);
  /// At the end of a compressed file: its zstd frame was cut short (a run killed before closing
  /// it).
  bool cut() const;
  const std::string& path() const { return path_; }

 private:
  struct Source;
  std::string path_;
  std::unique_ptr<Source> source_;
};

/// The records of requests.jsonl lines, taken one at a time on demand, with read_records_jsonl's
/// checks and errors; memory holds one line and a bit per request id (for the check that ids do
/// not repeat). Not copyable or movable.
class RecordsCursor {
 public:
  /// Over the file at `path` (plain or zstd). Throws as RecordLines does.
  explicit RecordsCursor(const std::string& path);
  /// Over the lines `next_line` gives (false: no more), named `name` in messages (e.g. "rank 2's
  /// records" for a distributed run's).
  RecordsCursor(std::string name, std::function<bool(std::string&)> next_line);
  ~RecordsCursor();
  RecordsCursor(const RecordsCursor&) = delete;
  RecordsCursor& operator=(const RecordsCursor&) = delete;

  /// The next record; nullopt at the end. Throws std::runtime_error as read_records_jsonl does.
  std::optional<core::RequestRecord> next();
  /// What was passed over; complete once next() has returned nullopt.
  const RecordsReadReport& report() const;

 private:
  class Collector;
  std::unique_ptr<RecordLines> file_;
  std::function<bool(std::string&)> next_line_;
  std::unique_ptr<Collector> collector_;
  std::int64_t number_ = 0;
  bool ended_ = false;
};

/// The records of requests.jsonl text already in memory (plain, not compressed), checked as
/// read_records_jsonl checks a file's; `name` stands for the path in its messages (e.g. "rank 2's
/// records" for a distributed run's result).
std::vector<core::RequestRecord> parse_records_jsonl(std::string_view text, std::string_view name,
                                                     RecordsReadReport* report = nullptr);

}  // namespace tokenbench::records
