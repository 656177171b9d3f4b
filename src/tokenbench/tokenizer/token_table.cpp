#include "tokenbench/tokenizer/token_table.h"

#include <stdexcept>

namespace tokenbench::tokenizer {

void TokenTable::add(std::string_view bytes, std::int32_t id) {
  if (id < 0) throw std::invalid_argument("negative token id");
  if (static_cast<std::size_t>(id) >= by_id_.size()) by_id_.resize(id + 1, -1);
  if (by_id_[id] >= 0) return;
  by_id_[id] = static_cast<std::int32_t>(entries_.size());
  entries_.push_back(Entry{hash_bytes(bytes), static_cast<std::uint32_t>(arena_.size()),
                           static_cast<std::uint32_t>(bytes.size()), id});
  arena_.append(bytes);
}

void TokenTable::finish() {
  std::size_t capacity = 16;
  while (capacity < entries_.size() * 2) capacity <<= 1;
  slots_.assign(capacity, -1);
  mask_ = capacity - 1;
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    const Entry& entry = entries_[e];
    const std::string_view key(arena_.data() + entry.offset, entry.length);
    std::size_t i = entry.hash & mask_;
    bool duplicate = false;
    for (; slots_[i] >= 0; i = (i + 1) & mask_) {
      const Entry& other = entries_[slots_[i]];
      if (other.hash == entry.hash &&
          std::string_view(arena_.data() + other.offset, other.length) == key) {
        duplicate = true;  // two ids for one byte string: lookups give the first
        break;
      }
    }
    if (!duplicate) slots_[i] = static_cast<std::int32_t>(e);
  }
}

}  // namespace tokenbench::tokenizer
