#include "tokenbench/experiment/serve_configs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "tokenbench/core/text.h"

namespace tokenbench::experiment {
namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> split(const std::string& text, char at) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto end = text.find(at, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// A directory name part: characters a shell and a link take as they are; others become '_'.
std::string dir_part(const std::string& text) {
  std::string out;
  for (const char c : text) {
    out += std::isalnum(static_cast<unsigned char>(c)) ||
                   std::string_view("._-+@").find(c) != std::string_view::npos
               ? c
               : '_';
  }
  return out;
}

// Recursive descent over "a + b", "a * b", "(a)", "-a" and numbers.
class Arithmetic {
 public:
  explicit Arithmetic(const std::string& text) : s_(text) {}
  double parse() {
    const double v = sum();
    skip();
    if (i_ != s_.size()) throw std::invalid_argument("unexpected '" + s_.substr(i_, 1) + "'");
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool take(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  double sum() {
    double v = product();
    for (;;) {
      if (take('+')) {
        v += product();
      } else if (take('-')) {
        v -= product();
      } else {
        return v;
      }
    }
  }
  double product() {
    double v = unary();
    for (;;) {
      if (take('*')) {
        v *= unary();
      } else if (take('/')) {
        v /= unary();
      } else {
        return v;
      }
    }
  }
  double unary() {
    if (take('-')) return -unary();
    if (take('(')) {
      const double v = sum();
      if (!take(')')) throw std::invalid_argument("a '(' is not closed");
      return v;
    }
    skip();
    const char* begin = s_.c_str() + i_;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin) throw std::invalid_argument("a number is missing");
    i_ += static_cast<std::size_t>(end - begin);
    return v;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

std::string ServeConfig::label() const {
  std::string out;
  for (const auto& name : order) out += (out.empty() ? "" : ", ") + name + "=" + params.at(name);
  return out.empty() ? "default" : out;
}

ServeParam parse_serve_param(const std::string& text) {
  const auto eq = text.find('=');
  ServeParam p;
  p.name = text.substr(0, eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || p.name.empty() ||
      !std::all_of(p.name.begin(), p.name.end(), name_char)) {
    throw std::invalid_argument("--serve-param '" + core::one_line(text) +
                                "': give NAME=V1,V2,... (NAME of letters, digits and _), e.g. "
                                "max_num_seqs=64,128");
  }
  p.values = split(text.substr(eq + 1), ',');
  for (const auto& v : p.values) {
    if (v.empty()) {
      throw std::invalid_argument("--serve-param " + p.name + ": an empty value in '" +
                                  core::one_line(text) + "'");
    }
  }
  return p;
}

std::vector<ServeConfig> serve_configs(const std::vector<ServeParam>& params,
                                       const std::vector<std::string>& links,
                                       std::size_t max_configs) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!index.emplace(params[i].name, i).second) {
      throw std::invalid_argument("--serve-param " + params[i].name +
                                  " is given twice: give its values in one list");
    }
  }
  // Groups of parameters that vary together: each --link, then every other parameter alone.
  std::vector<std::vector<std::size_t>> groups;
  std::set<std::size_t> linked;
  for (const auto& link : links) {
    std::vector<std::size_t> group;
    for (const auto& name : split(link, ',')) {
      const auto it = index.find(name);
      if (it == index.end()) {
        throw std::invalid_argument("--link " + core::one_line(link) + ": " + core::one_line(name) +
                                    " is not a --serve-param");
      }
      if (!linked.insert(it->second).second) {
        throw std::invalid_argument("--link: " + name + " is in two links; give one --link " +
                                    "with all the parameters that vary together");
      }
      if (params[it->second].values.size() !=
          params[group.empty() ? it->second : group[0]].values.size()) {
        throw std::invalid_argument("--link " + link + ": its parameters must have as many " +
                                    "values each (they are taken together, the i-th with the "
                                    "i-th)");
      }
      group.push_back(it->second);
    }
    groups.push_back(std::move(group));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!linked.count(i)) groups.push_back({i});
  }
  // Groups in the order of their first parameter on the command line: the first varies slowest.
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
  });
  std::size_t total = 1;
  for (const auto& g : groups) {
    total *= params[g[0]].values.size();
    if (total > max_configs) {
      throw std::invalid_argument("the --serve-param values make more than " +
                                  std::to_string(max_configs) +
                                  " server configurations: give fewer, or --link some");
    }
  }
  std::vector<ServeConfig> out;
  std::vector<std::size_t> at(groups.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    ServeConfig c;
    for (const auto& p : params) c.order.push_back(p.name);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (const std::size_t i : groups[g]) c.params[params[i].name] = params[i].values[at[g]];
    }
    for (const auto& name : c.order) {
      c.dir += (c.dir.empty() ? "" : ",") + dir_part(name) + "=" + dir_part(c.params[name]);
    }
    if (c.dir.empty()) c.dir = "default";
    if (c.dir.size() > 120) c.dir = "config-" + std::to_string(n + 1);
    out.push_back(std::move(c));
    for (std::size_t g = groups.size(); g-- > 0;) {  // the last group varies fastest
      if (++at[g] < params[groups[g][0]].values.size()) break;
      at[g] = 0;
    }
  }
  // Two values that differ only in characters a directory name cannot hold: numbered instead.
  std::set<std::string> seen;
  for (std::size_t n = 0; n < out.size(); ++n) {
    if (!seen.insert(out[n].dir).second) out[n].dir = "config-" + std::to_string(n + 1);
  }
  return out;
}

std::string fill_placeholders(const std::string& text,
                              const std::map<std::string, std::string>& values,
                              const std::string& what) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      out += text[i++];
      continue;
    }
    if (text[i] != '{' || (i > 0 && text[i - 1] == '$')) {  // ${VAR} is the shell's
      out += text[i];
      continue;
    }
    const auto close = text.find('}', i);
    const std::string name =
        close == std::string::npos ? std::string() : text.substr(i + 1, close - i - 1);
    if (name.empty() || !std::all_of(name.begin(), name.end(), name_char)) {
      out += text[i];  // a brace that is not a placeholder ("${HOME}" in a shell) stays
      continue;
    }
    const auto it = values.find(name);
    if (it == values.end()) {
      std::string known;
      for (const auto& [k, v] : values)
        known += fmt::format("{}{{{}}}", known.empty() ? "" : ", ", k);
      throw std::invalid_argument(
          fmt::format("{}: {{{}}} has no value: give --serve-param {}=... (known: {})", what, name,
                      name, known));
    }
    out += it->second;
    i = close;
  }
  return out;
}

std::vector<std::string> placeholders_in(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      ++i;
      continue;
    }
    if (text[i] != '{' || (i > 0 && text[i - 1] == '$')) continue;
    const auto close = text.find('}', i);
    if (close == std::string::npos) break;
    const std::string name = text.substr(i + 1, close - i - 1);
    if (!name.empty() && std::all_of(name.begin(), name.end(), name_char) &&
        std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

double evaluate_arithmetic(const std::string& text, const std::string& what) {
  try {
    const double v = Arithmetic(text).parse();
    if (!std::isfinite(v)) throw std::invalid_argument("it is not a finite number");
    return v;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        what + " '" + core::one_line(text) +
        "' is not a number or arithmetic (+ - * / and parentheses): " + e.what());
  }
}

}  // namespace tokenbench::experiment
