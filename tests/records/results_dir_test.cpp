#include "tokenbench/records/results_dir.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tokenbench::records {
namespace {

TEST(RunOutputs, AFailedWriteLeavesNoTmpBehind) {
  // A full disk, as a file size limit: writes past 1 KiB fail with EFBIG (SIGXFSZ ignored).
  const std::string dir = ::testing::TempDir() + "run-outputs-full";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit before{};
  getrlimit(RLIMIT_FSIZE, &before);
  rlimit small = before;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    write_text_file(dir + "/summary.json", std::string(64 * 1024, 'x'));
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &before);
  EXPECT_NE(error.find("cannot write " + dir + "/summary.json"), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json.tmp"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
}

// Issue 25 item 17: what a refused run made is undone, and only that: a directory that held
// something, and a file that was there before, stay.
TEST(RunOutputs, RemoveCreatedUndoesOnlyWhatWasMade) {
  const std::string root = ::testing::TempDir() + "run-outputs-created";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root + "/kept");
  std::ofstream(root + "/kept/mine.txt") << "before";
  std::vector<std::string> created;
  make_directories(root + "/new/inner", created);
  EXPECT_EQ(created, (std::vector<std::string>{root + "/new", root + "/new/inner"}));
  write_new_file(root + "/new/inner/config.yaml", "a: 1\n", created);
  write_new_file(root + "/kept/config.yaml", "a: 1\n", created);
  write_new_file(root + "/kept/mine.txt", "after", created);  // there before: not its own
  EXPECT_EQ(created.size(), 4u);
  remove_created(created);
  EXPECT_FALSE(std::filesystem::exists(root + "/new"));
  EXPECT_FALSE(std::filesystem::exists(root + "/kept/config.yaml"));
  EXPECT_EQ(read_text_file(root + "/kept/mine.txt"), "after");
}

}  // namespace
}  // namespace tokenbench::records
