#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::records {

// The "chunks" field of requests.jsonl: a request's content-chunk stamps and token counts, packed.
//
// Stamps are kept at microsecond resolution: each chunk's stamp is rounded down to a whole
// microsecond of the run's clock, then raised to its predecessor's if it would fall before it, so
// the stamps read back are non-decreasing and each is at most 999 ns before the one measured
// (rounding the absolute stamp, never a difference, lets no error accumulate along a stream).
//
// Per chunk, d: for the first chunk, the zigzag encoding of the signed difference in
// microseconds between its stamp and the record's sent stamp (both rounded down; 0 stands for
// `sent` when it never happened); for each next chunk, the microseconds since the previous one.
// The field is '~' and then, per chunk, '!' and its token count when that is not 1, then d. Each
// number is written in base 46, least significant digit first, with 92 digits: the printable
// ASCII characters but '"', '\' and '!', in order; the first 46 end a number, the other 46 stand
// for the same digit with more to follow. "" when no content arrived. A stream of one-token
// chunks at most 2.1 ms apart costs 2 characters per token; 97 ms apart, 3.
//
// Files written before it hold the older form, read still: one unsigned LEB128 varint per
// chunk, v = d << 1 | (tokens != 1), followed by a varint of the token count when that bit is
// set, the bytes written as base64 (RFC 4648's alphabet, without padding): 2.67 characters per
// token 1 ms apart.

/// `chunks` as chunk_stamps_from_field will read them back: rounded down to the microsecond and
/// made non-decreasing. A token count below 0 becomes 0.
std::vector<core::ChunkStamp> quantize_chunk_stamps(std::span<const core::ChunkStamp> chunks);
/// The same, in place (no allocation): what the recorder keeps for the summary.
void quantize_chunk_stamps_in_place(std::vector<core::ChunkStamp>& chunks);

/// The "chunks" field's text (without quotes) for chunks measured relative to `sent`.
std::string chunk_stamps_to_field(std::span<const core::ChunkStamp> chunks, core::Nanos sent);

/// Decodes what chunk_stamps_to_field wrote for a record sent at `sent`, or the older base64
/// form. Throws std::runtime_error with a one-line message (naming "chunks" and the chunk) on a
/// character outside the form's digits, a number cut short or longer than 64 bits, a stamp
/// outside 0..2^62, or a token count above 2^31 - 1.
std::vector<core::ChunkStamp> chunk_stamps_from_field(std::string_view field, core::Nanos sent);

}  // namespace tokenbench::records
