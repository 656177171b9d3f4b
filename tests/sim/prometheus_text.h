#pragma once

// A strict little reader of the Prometheus text format for the simulator's tests: every sample
// line must follow a `# TYPE` of its family and parse as `name{labels} value`. Test-only.

#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tokenbench::sim::testing {

/// The samples of one exposition, keyed by the whole series (`name{labels}`), and the declared
/// type and help text of every family.
struct PromText {
  std::map<std::string, double> samples;
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> help;

  /// The value of a series; throws when it is missing.
  double at(const std::string& series) const {
    const auto it = samples.find(series);
    if (it == samples.end()) throw std::runtime_error("no series " + series);
    return it->second;
  }
};

/// Parses `text`; throws std::runtime_error on the first line that breaks the format.
inline PromText parse_prom_text(const std::string& text) {
  PromText out;
  std::istringstream in(text);
  std::string line;
  std::string family;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line.rfind("# HELP ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      out.help[line.substr(7, sp - 7)] = sp == std::string::npos ? "" : line.substr(sp + 1);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      if (sp == std::string::npos) throw std::runtime_error("bad TYPE line: " + line);
      family = line.substr(7, sp - 7);
      out.types[family] = line.substr(sp + 1);
      continue;
    }
    if (line[0] == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) throw std::runtime_error("no value: " + line);
    const std::string series = line.substr(0, space);
    const std::string name = series.substr(0, series.find('{'));
    if (family.empty() || name.rfind(family, 0) != 0) {
      throw std::runtime_error("sample outside its family: " + line);
    }
    if (series.find('{') != std::string::npos && series.back() != '}') {
      throw std::runtime_error("bad labels: " + line);
    }
    const std::string value = line.substr(space + 1);
    char* end = nullptr;
    const double v = value == "+Inf" ? 1e308 : std::strtod(value.c_str(), &end);
    if (value != "+Inf" && (end == value.c_str() || *end != '\0')) {
      throw std::runtime_error("bad value: " + line);
    }
    out.samples[series] = v;
  }
  return out;
}

}  // namespace tokenbench::sim::testing
