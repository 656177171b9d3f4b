// `tokenbench tokenize --tokenizer PATH [--ids] TEXT|-`: counts (or lists) the tokens of a text.

#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::cli {
namespace {

struct TokenizeFlags {
  std::string tokenizer;
  std::string tiktoken_encoding;
  std::string text;
  bool ids = false;
  bool add_special_tokens = false;
};

int tokenize_command(const TokenizeFlags& f) {
  std::unique_ptr<tokenizer::Tokenizer> tok;
  try {
    tok = tokenizer::load_tokenizer(f.tokenizer, {.tiktoken_encoding = f.tiktoken_encoding});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  std::string text = f.text;
  if (text == "-") {
    std::cin >> std::noskipws;
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  const std::vector<std::int32_t> ids = tok->encode(text, f.add_special_tokens);
  if (!f.ids) {
    std::printf("%zu\n", ids.size());
    return kExitOk;
  }
  std::string line = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) line.push_back(',');
    line.append(std::to_string(ids[i]));
  }
  line.append("]\n");
  std::fputs(line.c_str(), stdout);
  return kExitOk;
}

}  // namespace

void add_tokenize_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<TokenizeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "Print the number of tokens of a text (or its token ids) with a local tokenizer");
  cmd->add_option(
         "--tokenizer", flags->tokenizer,
         "tokenizer.json, tokenizer.model, a .tiktoken rank file, a model folder, or a Hugging "
         "Face id ORG/NAME found in the local cache")
      ->required();
  cmd->add_flag("--ids", flags->ids, "Print the token ids as a JSON array instead of the count");
  cmd->add_flag("--add-special-tokens", flags->add_special_tokens,
                "Add what the tokenizer adds around a sequence (e.g. BOS)");
  only_values(cmd->add_option("--tiktoken-encoding", flags->tiktoken_encoding,
                              "Pattern and special tokens of a .tiktoken file: cl100k_base or "
                              "o200k_base (default: from the file name)"),
              {"cl100k_base", "o200k_base"});
  cmd->add_option("text", flags->text, "The text, or - to read it from standard input")->required();
  cmd->callback([flags, &exit_code] { exit_code = tokenize_command(*flags); });
}

}  // namespace tokenbench::cli
