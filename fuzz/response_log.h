#pragma once

// A response sink that writes down what a reader hands it (status, fields, end of headers, body)
// as one string, for the fuzz targets that compare what a reply read whole and read in pieces
// gave. Not part of the library.

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

#include "tokenbench/client/http1_reader.h"

namespace tokenbench::fuzz {

struct ResponseLog final : client::ResponseSink {
  std::string log;
  /// The body bytes taken before on_body refuses more, as the worker stops a runaway reply.
  std::size_t limit = std::numeric_limits<std::size_t>::max();

  void on_status(int status, int version) override {
    log += "S" + std::to_string(status) + "/" + std::to_string(version) + "\n";
  }
  void on_field(std::string_view name, std::string_view value) override {
    log += "F";
    log.append(name);
    log += ":";
    log.append(value);
    log += "\n";
  }
  void on_header_end() override { log += "H\n"; }
  bool on_body(std::string_view data) override {
    log.append(data);
    return log.size() < limit;
  }
};

}  // namespace tokenbench::fuzz
