// End to end: `make install` (cmake --install) puts a stripped binary in PREFIX/bin and its debug
// info beside it, in PREFIX/bin/.debug/tokenbench.debug, linked by .gnu_debuglink (issue 27).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "process.h"
#include "tokenbench/core/version.h"

namespace tokenbench::e2e {
namespace {

namespace fs = std::filesystem;

// The section names `readelf -S` lists for `file`.
std::string sections(const std::string& file) {
  const auto r = run_process({TOKENBENCH_READELF, "-S", "-W", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(EndToEndInstall, TheBinaryIsStrippedAndItsDebugInfoSplitBesideIt) {
  const std::string prefix = make_temp_dir("install");
  const auto installed =
      run_process({TOKENBENCH_CMAKE_COMMAND, "--install", TOKENBENCH_BUILD_DIR, "--prefix", prefix},
                  std::chrono::seconds(120));
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
  const std::string bin = prefix + "/bin/tokenbench";
  const std::string debug = prefix + "/bin/.debug/tokenbench.debug";
  ASSERT_TRUE(fs::is_regular_file(bin));
  ASSERT_TRUE(fs::is_regular_file(debug));

  const auto version = run_process({bin, "--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_NE(version.out.find(core::kVersion), std::string::npos) << version.out;

  const std::string bin_sections = sections(bin);
  EXPECT_EQ(bin_sections.find(".debug_info"), std::string::npos) << "not stripped";
  EXPECT_NE(bin_sections.find(".gnu_debuglink"), std::string::npos);
  EXPECT_NE(sections(debug).find(".debug_info"), std::string::npos);
  // The built binary carries its debug info; the installed one is a small part of it.
  EXPECT_LT(fs::file_size(bin) * 5, fs::file_size(TOKENBENCH_BINARY));
  fs::remove_all(prefix);
}

}  // namespace
}  // namespace tokenbench::e2e
