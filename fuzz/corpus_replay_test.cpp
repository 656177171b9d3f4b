// Replays every committed input of fuzz/corpus/<target>/ through its fuzz target, built without
// libFuzzer (tests/CMakeLists.txt renames each target's entry point to tokenbench_fuzz_<target>).
// Under ASan and UBSan (`make test-asan-ci`) this keeps every past finding fixed, in CI, without
// clang. A broken invariant aborts the binary, as it would the fuzzer.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define TOKENBENCH_FUZZ_TARGET(name) \
  extern "C" int tokenbench_fuzz_##name(const std::uint8_t* data, std::size_t size);
#include "fuzz_targets.inc"
#undef TOKENBENCH_FUZZ_TARGET

namespace {

struct FuzzTarget {
  const char* name;
  int (*run)(const std::uint8_t*, std::size_t);
};

const std::vector<FuzzTarget>& targets() {
#define TOKENBENCH_FUZZ_TARGET(name) {#name, &tokenbench_fuzz_##name},
  static const std::vector<FuzzTarget> all = {
#include "fuzz_targets.inc"
  };
#undef TOKENBENCH_FUZZ_TARGET
  return all;
}

class CorpusReplay : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(CorpusReplay, EveryCommittedInputRuns) {
  const std::filesystem::path dir =
      std::filesystem::path(TOKENBENCH_FUZZ_CORPUS_DIR) / GetParam().name;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir << " is missing: every target has seeds";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    EXPECT_EQ(GetParam().run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
    ++files;
  }
  EXPECT_GT(files, 0u);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, CorpusReplay, ::testing::ValuesIn(targets()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
