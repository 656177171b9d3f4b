#include "tokenbench/core/secret_fields.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>

#include "tokenbench/core/json_parse.h"

namespace tokenbench::core {
namespace {

using nlohmann::json;

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool is_credential_word(const std::string& word) {
  static constexpr std::array<std::string_view, 8> kTails = {
      "key", "token", "secret", "password", "passwd", "signature", "credential", "credentials"};
  if (word == "sig" || word == "auth" || word.rfind("authoriz", 0) == 0 ||
      word.rfind("authent", 0) == 0) {
    return true;
  }
  return std::any_of(kTails.begin(), kTails.end(),
                     [&word](std::string_view tail) { return ends_with(word, tail); });
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// Percent-decoding ("+" is a space in a query), leaving a malformed escape as it is.
std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

// Calls visit(name, value_begin, value_end) for each parameter of the URL's query, in order.
template <typename Visit>
void for_each_parameter(const std::string& url, Visit visit) {
  const std::size_t query = url.find('?');
  if (query == std::string::npos) return;
  const std::size_t end = std::min(url.find('#', query), url.size());
  for (std::size_t at = query + 1; at < end;) {
    const std::size_t amp = std::min(url.find('&', at), end);
    const std::size_t eq = url.find('=', at);
    if (eq != std::string::npos && eq < amp) {
      if (!visit(percent_decoded(std::string_view(url).substr(at, eq - at)), eq + 1, amp)) return;
    }
    at = amp + 1;
  }
}

// Walks a JSON value; calls visit(path, value) for every field, depth first.
template <typename Visit>
void walk_fields(json& j, const std::string& path, Visit& visit) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string here = path.empty() ? it.key() : path + "." + it.key();
      if (!visit(here, it.key(), it.value())) return;
      walk_fields(it.value(), here, visit);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      walk_fields(j[i], path + "." + std::to_string(i), visit);
    }
  }
}

}  // namespace

bool is_credential_name(std::string_view name) {
  std::string word;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : '\0';
    const bool camel_break = i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])) &&
                             std::isupper(static_cast<unsigned char>(c));
    if (!is_alnum(c) || camel_break) {
      if (!word.empty() && is_credential_word(word)) return true;
      word.clear();
    }
    if (is_alnum(c)) word += lower(c);
  }
  return false;
}

std::string redact_query(const std::string& url, std::vector<std::string>* values) {
  std::vector<std::pair<std::size_t, std::size_t>> cuts;  // value spans, in order
  for_each_parameter(url, [&](const std::string& name, std::size_t begin, std::size_t end) {
    if (end > begin && is_credential_name(name) &&
        std::string_view(url).substr(begin, end - begin) != kRedactedValue) {
      cuts.emplace_back(begin, end);
    }
    return true;
  });
  std::string out = url;
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
    const std::string value = url.substr(it->first, it->second - it->first);
    if (values != nullptr) {
      values->push_back(value);
      if (const std::string decoded = percent_decoded(value); decoded != value) {
        values->push_back(decoded);
      }
    }
    out.replace(it->first, it->second - it->first, kRedactedValue);
  }
  return out;
}

std::string redact_json_fields(const std::string& json_text, std::vector<std::string>* values) {
  json j = parse_json_or_discarded(json_text);
  if (j.is_discarded()) return json_text;
  bool cut = false;
  auto visit = [&](const std::string&, const std::string& name, json& value) {
    if (value.is_string() && is_credential_name(name) &&
        value.get<std::string>() != kRedactedValue && !value.get<std::string>().empty()) {
      if (values != nullptr) values->push_back(value.get<std::string>());
      value = std::string(kRedactedValue);
      cut = true;
    }
    return true;
  };
  walk_fields(j, "", visit);
  return cut ? j.dump() : json_text;
}

std::string redacted_query_parameter(const std::string& url) {
  std::string found;
  for_each_parameter(url, [&](const std::string& name, std::size_t begin, std::size_t end) {
    if (std::string_view(url).substr(begin, end - begin) != kRedactedValue) return true;
    found = name;
    return false;
  });
  return found;
}

std::string redacted_json_field(const std::string& json_text) {
  json j = parse_json_or_discarded(json_text);
  if (j.is_discarded()) return "";
  std::string found;
  auto visit = [&](const std::string& path, const std::string&, json& value) {
    if (!found.empty()) return false;
    if (!value.is_string() || value.get<std::string>() != kRedactedValue) return true;
    found = path;
    return false;
  };
  walk_fields(j, "", visit);
  return found;
}

RunConfig with_secrets_of(RunConfig level, const RunConfig& own) {
  const auto restore = [](std::string& value, const std::string& given, auto redact) {
    if (value != given && value == redact(given)) value = given;
  };
  const auto query = [](const std::string& url) { return redact_query(url); };
  restore(level.base_url, own.base_url, query);
  restore(level.endpoint, own.endpoint, query);
  if (level.server_metrics.size() == own.server_metrics.size()) {
    for (std::size_t i = 0; i < own.server_metrics.size(); ++i) {
      restore(level.server_metrics[i], own.server_metrics[i], redact_metrics_value);
    }
  }
  restore(level.extra_body, own.extra_body,
          [](const std::string& body) { return redact_json_fields(body); });
  return level;
}

std::string redact_command(const std::string& command) {
  std::string out;
  bool redact_next = false;
  for (std::size_t pos = 0; pos < command.size();) {
    const auto start = command.find_first_not_of(' ', pos);
    out.append(command, pos, (start == std::string::npos ? command.size() : start) - pos);
    if (start == std::string::npos) break;
    const auto end = std::min(command.find(' ', start), command.size());
    std::string word = command.substr(start, end - start);
    pos = end;
    if (redact_next) {
      redact_next = false;
      out += kRedactedValue;
      continue;
    }
    const auto eq = word.find('=');
    const std::string name = word.substr(0, eq);
    const std::string bare = name.substr(std::min(name.find_first_not_of('-'), name.size()));
    const bool flag = name.size() > 1 && name[0] == '-';
    const bool assignment = eq != std::string::npos && !flag && !name.empty() &&
                            std::all_of(name.begin(), name.end(), [](unsigned char c) {
                              return std::isalnum(c) || c == '_';
                            });
    if ((flag || assignment) && !bare.empty() && is_credential_name(bare)) {
      if (eq != std::string::npos) {
        word = word.substr(0, eq + 1) + std::string(kRedactedValue);
      } else if (flag) {
        redact_next = true;
      }
    }
    out += word;
  }
  return out;
}

}  // namespace tokenbench::core
