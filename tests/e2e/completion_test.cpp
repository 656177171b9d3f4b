// The generated shell completions and man page (`tokenbench completion bash|zsh`, `tokenbench
// man`; the package installs them) against the app's own --help: every command and every flag
// --help lists is in each, so that they cannot drift from the flags; and the bash script, run,
// completes commands, flags and the option table's enum values.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "process.h"
#include "tokenbench/core/run_options.h"

namespace tokenbench::e2e {
namespace {

std::string output_of(const std::vector<std::string>& args) {
  const auto r = run_process(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The commands `tokenbench --help` lists, in its "Subcommands:" section.
std::vector<std::string> commands() {
  std::istringstream help(output_of({TOKENBENCH_BINARY, "--help"}));
  std::vector<std::string> out;
  bool in_section = false;
  const std::regex line_re(R"(^  ([a-z][a-z-]*)\s)");
  for (std::string line; std::getline(help, line);) {
    if (line.rfind("Subcommands:", 0) == 0) in_section = true;
    std::smatch m;
    if (in_section && std::regex_search(line, m, line_re)) out.push_back(m[1]);
  }
  return out;
}

// The flags (-o, --output) of the option lines of `tokenbench [COMMAND] --help`.
std::vector<std::string> flags(const std::string& command) {
  std::vector<std::string> args{TOKENBENCH_BINARY};
  if (!command.empty()) args.push_back(command);
  args.emplace_back("--help");
  std::istringstream help(output_of(args));
  std::vector<std::string> out;
  // Option lines start with two spaces; a description too long for its line goes on the next,
  // indented further.
  const std::regex names_re(R"(^  (-\S+))");
  for (std::string line; std::getline(help, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, names_re)) continue;
    std::istringstream names(m[1]);
    for (std::string name; std::getline(names, name, ',');) out.push_back(name);
  }
  return out;
}

// The man page's text for `flag`: every hyphen a roff minus.
std::string roff_flag(const std::string& flag) {
  std::string out;
  for (const char ch : flag) out += ch == '-' ? std::string("\\-") : std::string(1, ch);
  return out;
}

TEST(EndToEndCompletion, EveryCommandAndFlagOfHelpIsInBothScriptsAndTheManPage) {
  const std::string bash = output_of({TOKENBENCH_BINARY, "completion", "bash"});
  const std::string zsh = output_of({TOKENBENCH_BINARY, "completion", "zsh"});
  const std::string man = output_of({TOKENBENCH_BINARY, "man"});
  const auto names = commands();
  ASSERT_GE(names.size(), 8u);
  std::size_t checked = 0;
  for (const std::string& command : names) {
    SCOPED_TRACE(command);
    EXPECT_NE(bash.find("\n    " + command + ")\n"), std::string::npos);
    EXPECT_NE(zsh.find("\n    '" + command + ":"), std::string::npos);
    EXPECT_NE(man.find(".SS \"tokenbench " + roff_flag(command) + "\""), std::string::npos);
    // The command's own case in the bash script, its own function in the zsh script.
    const std::string bash_case = bash.substr(bash.find("\n    " + command + ")\n"));
    std::string fn = "_tokenbench_" + command;
    for (char& ch : fn) ch = ch == '-' ? '_' : ch;
    const std::string zsh_fn = zsh.substr(zsh.find(fn + "() {"));
    const std::string man_section = man.substr(man.find(".SS \"tokenbench " + roff_flag(command)));
    for (const std::string& flag : flags(command)) {
      const std::regex word("opts=\"([^\"]* )?" + flag + "[\" ]");
      EXPECT_TRUE(std::regex_search(bash_case.substr(0, bash_case.find("\n      ;;\n")), word))
          << flag << " is not in the bash completion of " << command;
      // '--flag[help]', '--flag=[help]:...', '*--flag=[help]:...', '-o+[help]:...'
      const std::regex spec("'\\*?" + flag + "[=+]?\\[");
      EXPECT_TRUE(std::regex_search(zsh_fn.substr(0, zsh_fn.find("\n}\n")), spec))
          << flag << " is not in the zsh completion of " << command;
      EXPECT_NE(man_section.find("\\fB" + roff_flag(flag) + "\\fR"), std::string::npos)
          << flag << " is not in the man page's section of " << command;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200u);  // run alone has more
  for (const std::string& flag : flags("")) {
    EXPECT_TRUE(std::regex_search(bash, std::regex("compgen -W \"([^\"]* )?" + flag + " ")))
        << flag;
    EXPECT_NE(zsh.find("'(- *)" + flag + "["), std::string::npos) << flag;
  }
}

// What the bash function completes for each of `lines` (a line ending in a space completes a
// new word), one "LINE: WORDS" line each.
std::string bash_completes(const std::vector<std::string>& lines) {
  const std::string dir = make_temp_dir("completion");
  const std::string script = dir + "/tokenbench.bash";
  std::ofstream(script) << output_of({TOKENBENCH_BINARY, "completion", "bash"});
  std::string program = "source '" + script + "'\n";
  for (const auto& line : lines) {
    program += "read -r -a COMP_WORDS <<<'" + line + "'\n";
    if (line.back() == ' ') program += "COMP_WORDS+=('')\n";
    program += "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tokenbench\n";
    program += "echo '" + line + ":' \"${COMPREPLY[*]}\"\n";
  }
  const auto r = run_process({"/bin/bash", "-c", program});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The words completed for each line of bash_completes' output, by line.
std::map<std::string, std::vector<std::string>> by_line(const std::string& out) {
  std::map<std::string, std::vector<std::string>> words;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.rfind(": ");
    if (colon == std::string::npos) continue;
    std::istringstream completed(line.substr(colon + 2));
    std::string key = line.substr(0, colon);
    while (!key.empty() && key.back() == ' ') key.pop_back();  // "tokenbench run --api "
    auto& w = words[key];
    for (std::string word; completed >> word;) w.push_back(word);
  }
  return words;
}

TEST(EndToEndCompletion, BashCompletesCommandsFlagsAndTheTablesValues) {
  std::vector<std::string> lines{"tokenbench ",
                                 "tokenbench se",
                                 "tokenbench run --max-conc",
                                 "tokenbench run --api = op",  // --api=op: = is a word of its own
                                 "tokenbench report --as ",
                                 "tokenbench serve-sim --preset ",
                                 "tokenbench run --arrival "};
  // Every enum of the option table, as `run` and `search` take it.
  std::vector<std::pair<std::string, std::vector<std::string>>> table;
  for (const auto& row : core::run_options()) {
    const auto* text = std::get_if<core::TextField>(&row.field);
    if (text == nullptr || row.flag.empty() || row.cli == core::OptionCli::kNone) continue;
    if (text->choices().empty()) continue;
    for (const char* command : {"run", "search"}) {
      lines.push_back("tokenbench " + std::string(command) + " " + std::string(row.flag) + " ");
      table.emplace_back(lines.back().substr(0, lines.back().size() - 1), text->choices());
    }
  }
  const std::string out = bash_completes(lines);
  const auto words = by_line(out);
  using Words = std::vector<std::string>;
  const auto at = [&words](const std::string& line) {
    const auto found = words.find(line);
    return found == words.end() ? Words{} : found->second;
  };
  EXPECT_EQ(at("tokenbench se"), (Words{"search", "serve-sim"})) << out;
  EXPECT_EQ(at("tokenbench run --max-conc"), (Words{"--max-concurrency"})) << out;
  EXPECT_EQ(at("tokenbench report --as"), (Words{"vllm", "sglang", "guidellm", "evalscope",
                                                 "aiperf", "llmperf", "prometheus", "llm-d"}))
      << out;
  EXPECT_EQ(at("tokenbench run --arrival"), (Words{"gamma", "poisson", "constant"})) << out;
  const Words first = at("tokenbench");
  ASSERT_GE(first.size(), 5u) << out;
  EXPECT_EQ(Words(first.begin(), first.begin() + 5),
            (Words{"-h", "--help", "--version", "run", "check"}))
      << out;
  const Words apis = at("tokenbench run --api = op");
  EXPECT_FALSE(apis.empty()) << out;
  for (const auto& api : apis) EXPECT_EQ(api.rfind("op", 0), 0u) << api;
  const Words presets = at("tokenbench serve-sim --preset");
  EXPECT_NE(std::find(presets.begin(), presets.end(), "fixed"), presets.end()) << out;
  EXPECT_NE(std::find(presets.begin(), presets.end(), "llama3.1-8b-a100"), presets.end()) << out;
  ASSERT_FALSE(table.empty());
  for (const auto& [line, choices] : table) {
    const Words completed = at(line);
    for (const auto& choice : choices) {
      EXPECT_NE(std::find(completed.begin(), completed.end(), choice), completed.end())
          << line << ": " << choice << " is not completed\n"
          << out;
    }
  }
}

TEST(EndToEndCompletion, TheZshScriptParses) {
  std::string zsh = run_process({"/bin/sh", "-c", "command -v zsh"}).out;
  while (!zsh.empty() && zsh.back() == '\n') zsh.pop_back();
  if (zsh.empty()) GTEST_SKIP() << "zsh is not installed (scripts/install-deps.sh installs it)";
  const std::string dir = make_temp_dir("completion_zsh");
  const std::string script = dir + "/_tokenbench";
  std::ofstream(script) << output_of({TOKENBENCH_BINARY, "completion", "zsh"});
  const auto r = run_process({zsh, "-n", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
