#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace tokenbench::testing {

/// Reads a captured llama.cpp reply from the fixtures folder.
inline std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_FIXTURES_DIR) + "/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tokenbench::testing
