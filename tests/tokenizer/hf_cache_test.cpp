// load_tokenizer("ORG/NAME"): a Hugging Face model id resolved offline in the local hub cache,
// laid out as huggingface_hub leaves it after a download (refs/, snapshots/ of symlinks, blobs/).

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tiny_tokenizer_json.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;

// A small byte-level BPE tokenizer.json: "ab ab" is [3, 4].
constexpr const char* kByteLevel = tokenizer::testing::kByteLevel;
constexpr const char* kConfig = R"({"bos_token": null, "eos_token": "<|x|>"})";

constexpr const char* kHash = "0e9e39f249a16976918f6564b8830bc894c89659";
constexpr const char* kVariables[] = {"HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME"};

class HfCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tokenbench-hfcache-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cwd");
    for (const char* name : kVariables) {
      const char* v = std::getenv(name);
      saved_.push_back(v ? std::optional<std::string>(v) : std::nullopt);
      ::unsetenv(name);
    }
    // Relative names resolve in an empty folder, so that "org/name" is no local path by chance.
    old_cwd_ = fs::current_path();
    fs::current_path(dir_ / "cwd");
  }
  void TearDown() override {
    fs::current_path(old_cwd_);
    for (std::size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i]) {
        ::setenv(kVariables[i], saved_[i]->c_str(), 1);
      } else {
        ::unsetenv(kVariables[i]);
      }
    }
    fs::remove_all(dir_);
  }

  static void write(const fs::path& p, const std::string& content) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }

  // Puts `file` into the cached model `repo` ("models--org--name") under `root` as
  // huggingface_hub does: the content in blobs/<sha>, a relative symlink in the snapshot.
  static void cache_file(const fs::path& root, const std::string& repo, const std::string& hash,
                         const std::string& file, const std::string& content) {
    const fs::path model = root / repo;
    const std::string blob = "sha-" + hash.substr(0, 8) + "-" + file;  // a sha256 in real life
    write(model / "blobs" / blob, content);
    fs::create_directories(model / "snapshots" / hash);
    fs::create_symlink(fs::path("../../blobs") / blob, model / "snapshots" / hash / file);
  }

  // A complete download of org/name: refs/main, the snapshot, tokenizer.json and its config.
  static void cache_model(const fs::path& root, bool with_ref = true) {
    cache_file(root, "models--org--name", kHash, "tokenizer.json", kByteLevel);
    cache_file(root, "models--org--name", kHash, "tokenizer_config.json", kConfig);
    if (with_ref) write(root / "models--org--name" / "refs" / "main", kHash);
  }

  static void expect_cached_tokenizer(const Tokenizer& tok) {
    EXPECT_EQ(tok.encode("ab ab"), (Ids{3, 4}));
    EXPECT_EQ(tok.encode("ab <|x|> ab"), (Ids{3, 7, 4}));
    EXPECT_EQ(tok.decode(Ids{3, 7, 4}), "ab<|x|> ab");
    EXPECT_EQ(tok.eos_id(), 7);  // tokenizer_config.json found beside the symlink
  }

  static std::string error_of(const std::string& path) {
    try {
      load_tokenizer(path);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
  fs::path old_cwd_;
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(HfCache, IdFromHfHubCache) {
  const fs::path root = dir_ / "hub-cache";
  cache_model(root);
  ASSERT_TRUE(fs::is_symlink(root / "models--org--name/snapshots" / kHash / "tokenizer.json"));
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  ::setenv("HF_HOME", (dir_ / "elsewhere").c_str(), 1);  // HF_HUB_CACHE wins
  expect_cached_tokenizer(*load_tokenizer("org/name"));
}

TEST_F(HfCache, IdFromHfHome) {
  cache_model(dir_ / "hf-home" / "hub");
  ::setenv("HF_HOME", (dir_ / "hf-home").c_str(), 1);
  ::setenv("XDG_CACHE_HOME", (dir_ / "elsewhere").c_str(), 1);  // HF_HOME wins
  expect_cached_tokenizer(*load_tokenizer("org/name"));
  // A leading ~ is the home folder, as huggingface_hub expands it.
  ::setenv("HOME", dir_.c_str(), 1);
  ::setenv("HF_HOME", "~/hf-home", 1);
  expect_cached_tokenizer(*load_tokenizer("org/name"));
}

TEST_F(HfCache, IdFromXdgCacheHomeThenHome) {
  cache_model(dir_ / "xdg" / "huggingface" / "hub");
  ::setenv("XDG_CACHE_HOME", (dir_ / "xdg").c_str(), 1);
  ::setenv("HOME", (dir_ / "home").c_str(), 1);
  expect_cached_tokenizer(*load_tokenizer("org/name"));
  ::unsetenv("XDG_CACHE_HOME");
  cache_model(dir_ / "home" / ".cache" / "huggingface" / "hub");
  expect_cached_tokenizer(*load_tokenizer("org/name"));
}

TEST_F(HfCache, MissingIdIsOneLineNamingWhereItLooked) {
  const fs::path root = dir_ / "hub-cache";
  fs::create_directories(root);
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  const std::string error = error_of("meta-llama/Llama-3.1-8B");
  EXPECT_EQ(error,
            "tokenizer 'meta-llama/Llama-3.1-8B': not a file or folder, and not in the "
            "Hugging Face cache (looked in " +
                (root / "models--meta-llama--Llama-3.1-8B").string() +
                "); download it with `huggingface-cli download meta-llama/Llama-3.1-8B "
                "tokenizer.json` (or set HF_HOME / HF_HUB_CACHE), or pass a local path");
  EXPECT_EQ(error.find('\n'), std::string::npos);

  ::unsetenv("HF_HUB_CACHE");
  ::setenv("HOME", (dir_ / "home").c_str(), 1);
  EXPECT_NE(error_of("org/name")
                .find("(looked in " +
                      (dir_ / "home/.cache/huggingface/hub/models--org--name").string() + ")"),
            std::string::npos)
      << error_of("org/name");
}

TEST_F(HfCache, ModelFolderWithoutSnapshotOrTokenizer) {
  const fs::path root = dir_ / "hub-cache";
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  fs::create_directories(root / "models--org--name" / "snapshots");
  EXPECT_NE(
      error_of("org/name")
          .find("(looked in " + (root / "models--org--name").string() + ", which has no snapshot)"),
      std::string::npos)
      << error_of("org/name");
  // Only config.json was downloaded.
  cache_file(root, "models--org--name", kHash, "config.json", "{}");
  const fs::path snapshot = root / "models--org--name" / "snapshots" / kHash;
  EXPECT_EQ(error_of("org/name"), "tokenizer 'org/name': the Hugging Face cache snapshot " +
                                      snapshot.string() +
                                      " has no tokenizer.json, tokenizer.model or *.tiktoken; "
                                      "download it with `huggingface-cli download org/name "
                                      "tokenizer.json` (or set HF_HOME / HF_HUB_CACHE), or pass "
                                      "a local path");
}

TEST_F(HfCache, WithoutRefsMainTheOnlySnapshot) {
  const fs::path root = dir_ / "hub-cache";
  cache_model(root, /*with_ref=*/false);
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  expect_cached_tokenizer(*load_tokenizer("org/name"));
}

TEST_F(HfCache, WithoutRefsMainTheNewestSnapshot) {
  const fs::path root = dir_ / "hub-cache";
  cache_model(root, /*with_ref=*/false);
  // An older snapshot whose tokenizer.json is not loadable: it must not be chosen.
  cache_file(root, "models--org--name", "1111111111111111111111111111111111111111",
             "tokenizer.json", "{\"model\": ");
  const fs::path snapshots = root / "models--org--name" / "snapshots";
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(snapshots / "1111111111111111111111111111111111111111",
                      now - std::chrono::hours(24));
  fs::last_write_time(snapshots / kHash, now);
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  expect_cached_tokenizer(*load_tokenizer("org/name"));
}

TEST_F(HfCache, RefsMainWinsOverTheNewestSnapshot) {
  const fs::path root = dir_ / "hub-cache";
  cache_model(root);
  cache_file(root, "models--org--name", "2222222222222222222222222222222222222222",
             "tokenizer.json", "{\"model\": ");
  const fs::path snapshots = root / "models--org--name" / "snapshots";
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(snapshots / kHash, now - std::chrono::hours(24));
  fs::last_write_time(snapshots / "2222222222222222222222222222222222222222", now);
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  expect_cached_tokenizer(*load_tokenizer("org/name"));
}

TEST_F(HfCache, LocalPathWinsOverTheCache) {
  const fs::path root = dir_ / "hub-cache";
  cache_model(root);
  ::setenv("HF_HUB_CACHE", root.c_str(), 1);
  // A local folder "org/name" (relative to the working directory) with "a" and "b" swapped.
  std::string local = kByteLevel;
  local.replace(local.find(R"("a": 0, "b": 1)"), 14, R"("a": 1, "b": 0)");
  write(fs::path("org") / "name" / "tokenizer.json", local);
  const auto tok = load_tokenizer("org/name");
  EXPECT_EQ(tok->encode("a"), (Ids{1}));
  EXPECT_EQ(tok->eos_id(), std::nullopt);  // no tokenizer_config.json beside the local one
  fs::remove_all("org");
  EXPECT_EQ(load_tokenizer("org/name")->encode("a"), (Ids{0}));
}

TEST_F(HfCache, OnlyOrgSlashNameIsLookedUp) {
  ::setenv("HF_HUB_CACHE", (dir_ / "hub-cache").c_str(), 1);
  for (const std::string path :
       {"a/b/c", "./org/name", ".org/name", "/org/name", "org/", "/name", "name", "org//name"}) {
    EXPECT_EQ(error_of(path), "tokenizer " + path + ": no such file or directory") << path;
  }
}

}  // namespace
}  // namespace tokenbench::tokenizer
