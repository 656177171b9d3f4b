// End to end: every row of docs/CLI.md's peer tables (what `tokenbench peer-tables` prints) holds
// for the real binary. A refused flag stops its command with one line naming it; a flag that is
// "the same", or renamed to a tokenbench flag, names a flag `run` has; a refused key of
// inference-perf's config stops `run --config`, and an ignored one is said.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

struct Row {
  std::vector<std::string> names;  // the row's spellings
  std::string here;                // "refused", "ignored", "the same", "`--flag`" or words
};

// The tables of `tokenbench peer-tables`, by heading.
std::map<std::string, std::vector<Row>> tables() {
  const auto r = run_process({TOKENBENCH_BINARY, "peer-tables"});
  EXPECT_EQ(r.exit_code, 0);
  std::map<std::string, std::vector<Row>> out;
  std::istringstream in(r.out);
  std::string line;
  std::string heading;
  while (std::getline(in, line)) {
    if (line.rfind("#### ", 0) == 0) heading = line.substr(5);
    if (line.rfind("| `", 0) != 0) continue;
    const auto second = line.find(" | ", 2);
    const auto third = line.find(" | ", second + 3);
    Row row;
    std::string names = line.substr(2, second - 2);
    for (std::size_t at = names.find('`'); at != std::string::npos;
         at = names.find('`', names.find('`', at + 1) + 1)) {
      const auto close = names.find('`', at + 1);
      row.names.push_back(names.substr(at + 1, close - at - 1));
    }
    row.here = line.substr(second + 3, third - second - 3);
    out[heading].push_back(row);
  }
  return out;
}

// The command that takes a table's flags.
std::vector<std::string> command_of(const std::string& heading) {
  if (heading.find("`tokenbench profile`") == 0) return {"profile"};
  if (heading.find("`tokenbench benchmark`") == 0) return {"benchmark"};
  if (heading.find("`tokenbench bench serve`") == 0) return {"bench", "serve"};
  if (heading.find("`tokenbench perf`") == 0) return {"perf"};
  if (heading.find("LLMPerf") != std::string::npos) return {"run", "--peer", "llmperf"};
  if (heading.find("SGLang") != std::string::npos) return {"run", "--peer", "sglang"};
  return {};
}

// A YAML document (JSON is YAML) holding the dotted key ("load.stages[].timeout", "metrics.*")
// with the value 1, beside a server section that makes the file inference-perf's.
std::string yaml_with(const std::string& key) {
  nlohmann::json doc = {{"server", {{"base_url", "http://127.0.0.1:1"}}},
                        {"load", {{"stages", {{{"rate", 1}, {"duration", 1}}}}}}};
  nlohmann::json* at = &doc;
  std::size_t from = 0;
  while (true) {
    const auto dot = key.find('.', from);
    std::string part = key.substr(from, dot - from);
    if (part == "*") part = "any";
    const bool list = part.size() > 2 && part.compare(part.size() - 2, 2, "[]") == 0;
    if (list) part.resize(part.size() - 2);
    if (dot == std::string::npos) {
      (*at)[part] = 1;
      return doc.dump();
    }
    at = &(*at)[part];
    if (list) {
      if (!at->is_array()) *at = nlohmann::json::array({nlohmann::json::object()});
      at = &(*at)[0];
    }
    from = dot + 1;
  }
}

std::string run_help() {
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  return r.out;
}

bool has_flag(const std::string& help, const std::string& flag) {
  for (std::size_t at = help.find(flag); at != std::string::npos; at = help.find(flag, at + 1)) {
    const char after = at + flag.size() < help.size() ? help[at + flag.size()] : ' ';
    if (after == ' ' || after == ',' || after == '=' || after == '\n' || after == ':') return true;
  }
  return false;
}

TEST(PeerRows, EveryRefusedFlagIsRefusedByItsCommand) {
  int checked = 0;
  for (const auto& [heading, rows] : tables()) {
    const auto command = command_of(heading);
    if (command.empty()) continue;
    for (const auto& row : rows) {
      if (row.here != "refused") continue;
      for (const auto& name : row.names) {
        std::vector<std::string> all{TOKENBENCH_BINARY};
        all.insert(all.end(), command.begin(), command.end());
        all.push_back(name + "=1");
        const auto r = run_process(all);
        EXPECT_EQ(r.exit_code, 1) << heading << ": " << name << "\n" << r.err;
        EXPECT_NE(r.err.find("error: " + name), std::string::npos)
            << heading << ": " << name << "\n"
            << r.err;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 80);
}

TEST(PeerRows, EveryFlagARowNamesIsRunsOwn) {
  const std::string help = run_help();
  int checked = 0;
  for (const auto& [heading, rows] : tables()) {
    if (command_of(heading).empty()) continue;
    for (const auto& row : rows) {
      std::string flag;
      if (row.here == "the same") flag = row.names.front();
      if (row.here.size() > 2 && row.here.front() == '`')
        flag = row.here.substr(1, row.here.size() - 2);
      if (flag.empty()) continue;
      EXPECT_TRUE(has_flag(help, flag)) << heading << ": " << row.names.front() << " -> " << flag;
      ++checked;
    }
  }
  EXPECT_GT(checked, 80);
}

TEST(PeerRows, InferencePerfKeysAreRefusedOrSaidAsTheirRows) {
  const std::string dir = make_temp_dir("peer_rows_ip");
  int checked = 0;
  for (const auto& [heading, rows] : tables()) {
    if (heading.find("inference-perf") == std::string::npos) continue;
    for (const auto& row : rows) {
      if (row.here != "refused" && row.here != "ignored") continue;
      for (const auto& key : row.names) {
        const std::string config = dir + "/config.yml";
        std::ofstream(config) << yaml_with(key);  // no server answers there
        const auto r = run_process({TOKENBENCH_BINARY, "run", "--config", config, "--no-preflight",
                                    "--model", "m", "--num-prompts", "1", "--output-dir",
                                    dir + "/run" + std::to_string(checked)});
        const std::string shown = key.substr(0, key.find(".*"));
        if (row.here == "refused") {
          EXPECT_EQ(r.exit_code, 1) << key << "\n" << yaml_with(key) << r.err;
          EXPECT_NE(r.err.find("inference-perf's " + shown), std::string::npos) << key << "\n"
                                                                                << r.err;
          EXPECT_NE(r.err.find("is refused: "), std::string::npos) << key << "\n" << r.err;
        } else {
          EXPECT_NE(r.err.find("inference-perf's " + shown), std::string::npos) << key << "\n"
                                                                                << r.err;
          EXPECT_NE(r.err.find("is not read: "), std::string::npos) << key << "\n" << r.err;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 30);
  // A key no row has is not inference-perf's.
  std::ofstream(dir + "/typo.yml")
      << "server:\n  base_url: http://127.0.0.1:1\nload:\n  stagez: 1\n";
  const auto typo = run_process({TOKENBENCH_BINARY, "run", "--config", dir + "/typo.yml"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("load.stagez is not a key of inference-perf's config"), std::string::npos)
      << typo.err;
}

}  // namespace
}  // namespace tokenbench::e2e
