#pragma once

#include <cstddef>

namespace tokenbench::tokenizer {

/// The most capacity, in bytes, that a per-thread scratch buffer keeps between encode calls. A
/// larger input grows the buffer for its own call; it is freed afterwards, so that one huge
/// input does not pin its memory for the thread's lifetime.
inline constexpr std::size_t kScratchKeepBytes = std::size_t{1} << 20;

/// Empties `buffer` and frees its storage when its capacity exceeds `keep_bytes`; otherwise
/// leaves it as it is (its capacity is reused by the next call). `Buffer` is a std::vector or a
/// std::basic_string. Called by the thread that owns the buffer, after it is done with it.
template <typename Buffer>
void release_if_large(Buffer& buffer, std::size_t keep_bytes = kScratchKeepBytes) {
  if (buffer.capacity() * sizeof(typename Buffer::value_type) > keep_bytes) Buffer().swap(buffer);
}

}  // namespace tokenbench::tokenizer
