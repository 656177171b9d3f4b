#include "tokenbench/sim/http_fields.h"

#include <algorithm>
#include <boost/beast/core/string.hpp>

namespace tokenbench::sim {

namespace beast = boost::beast;
namespace http = beast::http;

std::string unsupported_coding(const http::request_header<>& req, http::field field,
                               std::initializer_list<std::string_view> allowed) {
  const auto [first, last] = req.equal_range(field);
  for (auto f = first; f != last; ++f) {
    const std::string_view value(f->value().data(), f->value().size());
    std::size_t pos = 0;
    while (pos <= value.size()) {
      std::size_t end = value.find(',', pos);
      if (end == std::string_view::npos) end = value.size();
      std::string_view coding = value.substr(pos, end - pos);
      coding = coding.substr(0, coding.find(';'));  // drop parameters
      while (!coding.empty() && (coding.front() == ' ' || coding.front() == '\t')) {
        coding.remove_prefix(1);
      }
      while (!coding.empty() && (coding.back() == ' ' || coding.back() == '\t')) {
        coding.remove_suffix(1);
      }
      const bool ok = coding.empty() || std::any_of(allowed.begin(), allowed.end(), [&](auto a) {
                        return beast::iequals(beast::string_view(coding.data(), coding.size()),
                                              beast::string_view(a.data(), a.size()));
                      });
      if (!ok) return std::string(coding);
      pos = end + 1;
    }
  }
  return {};
}

bool usable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == ':' || c == '_' || c == '-';
  });
}

}  // namespace tokenbench::sim
