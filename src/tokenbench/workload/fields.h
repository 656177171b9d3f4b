#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tokenbench::workload {

/// Throws std::runtime_error "dataset PATH line N: WHAT", the one-line error of every reader.
[[noreturn]] void fail_at(const std::string& path, std::size_t line, const std::string& what);

/// A whole number >= min in a field ("52", or "52.0" as some traces write counts); else fail_at
/// naming the column and the value.
std::int64_t whole_field(const std::string& path, std::size_t line, const std::string& column,
                         const std::string& value, std::int64_t min);

/// A trace's "hash_ids" (Mooncake's, Weka's, a job file's block messages): an array of whole
/// numbers >= 0; nullopt when `value` is not one, for the caller's one-line error.
std::optional<std::vector<std::uint64_t>> hash_ids_field(const nlohmann::json& value);

/// A finite number in a field; else fail_at naming the column and the value.
double number_field(const std::string& path, std::size_t line, const std::string& column,
                    const std::string& value);

}  // namespace tokenbench::workload
