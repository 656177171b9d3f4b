// The file datasets on the sample files of tests/data/workloads: what each reads, the filters
// documented in docs/WORKLOADS.md, and one clear error naming the file and line for bad input.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "../support/word_tokenizer.h"
#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/workload/csv_reader.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {
namespace {

std::string data(const std::string& name) {
  return std::string(TOKENBENCH_TEST_DATA_DIR) + "/workloads/" + name;
}

DatasetOptions options(const std::string& name) {
  DatasetOptions o;
  o.path = data(name);
  o.output_len = 128;
  o.seed = 7;
  return o;
}

// The one-line error a loader throws for a file.
template <typename Load>
std::string error_of(Load load, const DatasetOptions& o) {
  try {
    load(o);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LinesDataset, OnePromptPerNonBlankLine) {
  const auto specs = load_lines_dataset(options("lines.txt"));
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].prompt, "Write a haiku about the sea.");
  EXPECT_EQ(specs[1].prompt, "Explain TCP slow start in two sentences.");  // CRLF taken off
  EXPECT_EQ(specs[1].input_tokens, 7);
  EXPECT_EQ(specs[2].id, 2u);
  EXPECT_EQ(specs[2].max_tokens, 128);
  EXPECT_LT(specs[2].trace_s, 0);
}

TEST(CsvReader, QuotedCommasLineBreaksAndDoubledQuotes) {
  const CsvFile csv = read_csv(data("prompts.csv"));
  EXPECT_EQ(csv.header, (std::vector<std::string>{"question", "max_out", "t"}));
  ASSERT_EQ(csv.records.size(), 3u);
  EXPECT_EQ(csv.records[0].fields[0], "Summarise this, briefly: the cat sat on the mat.");
  EXPECT_EQ(csv.records[1].fields[0], "A prompt over\ntwo lines, with \"quotes\"");
  EXPECT_EQ(csv.records[1].line, 3u);
  EXPECT_EQ(csv.records[2].line, 5u);  // the quoted line break moved it down
  EXPECT_NE(error_of([](const DatasetOptions& o) { return read_csv(o.path); },
                     options("bad-unclosed.csv"))
                .find("bad-unclosed.csv line 3: a quoted field is never closed"),
            std::string::npos);
}

TEST(CsvDataset, ColumnsByNameAndTimesFromTheFirst) {
  DatasetOptions o = options("prompts.csv");
  o.prompt_field = "question";
  o.output_len_field = "max_out";
  o.timestamp_field = "t";
  const auto specs = load_csv_dataset(o);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[1].prompt, "A prompt over\ntwo lines, with \"quotes\"");
  EXPECT_EQ(specs[0].max_tokens, 12);
  EXPECT_EQ(specs[2].max_tokens, 30);
  EXPECT_DOUBLE_EQ(specs[0].trace_s, 0.0);
  EXPECT_DOUBLE_EQ(specs[2].trace_s, 2.75);
  // --output-len replaces the column.
  o.output_len_override = true;
  o.output_len = 5;
  EXPECT_EQ(load_csv_dataset(o)[2].max_tokens, 5);

  DatasetOptions missing = options("prompts.csv");  // no column named "prompt"
  EXPECT_NE(error_of(load_csv_dataset, missing)
                .find("has no column 'prompt' (its columns: question, max_out, t); name one with "
                      "--prompt-field"),
            std::string::npos);
  DatasetOptions bad = options("bad-lengths.csv");
  bad.output_len_field = "max_out";
  EXPECT_NE(error_of(load_csv_dataset, bad)
                .find("bad-lengths.csv line 3: max_out 'lots' is not a whole number >= 1"),
            std::string::npos);
}

TEST(ShareGptDataset, FirstHumanTurnWithVllmFilters) {
  const auto specs = load_sharegpt_dataset(options("sharegpt.json"));
  // "short-prompt" (2 words), "short-reply" (1 word) and "no-reply" are filtered out.
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].prompt, "What is the capital city of France and why is it famous?");
  EXPECT_EQ(specs[0].input_tokens, 12);
  EXPECT_EQ(specs[0].max_tokens, 15);  // the reply's length
  EXPECT_EQ(specs[1].prompt, "Name three prime numbers below twenty please.");  // after system
  EXPECT_EQ(specs[1].max_tokens, 7);
  // --output-len replaces the replies' lengths and lifts the short-reply filter.
  DatasetOptions o = options("sharegpt.json");
  o.output_len_override = true;
  o.output_len = 50;
  const auto fixed = load_sharegpt_dataset(o);
  ASSERT_EQ(fixed.size(), 3u);
  EXPECT_EQ(fixed[2].prompt, "Please answer with one word only: yes or no?");
  EXPECT_EQ(fixed[2].max_tokens, 50);
  EXPECT_NE(error_of(load_sharegpt_dataset, options("bad-sharegpt.json"))
                .find("bad-sharegpt.json line 3: not valid JSON"),
            std::string::npos)
      << error_of(load_sharegpt_dataset, options("bad-sharegpt.json"));
}

TEST(BurstGptDataset, Gpt4RowsWithAResponseAndTheirTimes) {
  const auto specs = load_burstgpt_dataset(options("burstgpt.csv"));
  ASSERT_EQ(specs.size(), 3u);  // rows at 6, 8 and 12 s
  EXPECT_EQ(specs[0].input_tokens, 40);
  EXPECT_EQ(core::approx_token_count(specs[0].prompt), 40);
  EXPECT_EQ(specs[0].max_tokens, 12);
  EXPECT_EQ(specs[2].input_tokens, 50);
  EXPECT_EQ(specs[2].max_tokens, 25);
  EXPECT_DOUBLE_EQ(specs[0].trace_s, 0.0);
  EXPECT_DOUBLE_EQ(specs[1].trace_s, 2.0);
  EXPECT_DOUBLE_EQ(specs[2].trace_s, 6.0);
  // Deterministic for the seed, another seed another prompt.
  EXPECT_EQ(load_burstgpt_dataset(options("burstgpt.csv"))[1].prompt, specs[1].prompt);
  DatasetOptions other = options("burstgpt.csv");
  other.seed = 8;
  EXPECT_NE(load_burstgpt_dataset(other)[1].prompt, specs[1].prompt);
  EXPECT_NE(error_of(load_burstgpt_dataset, options("bad-burstgpt.csv"))
                .find("bad-burstgpt.csv line 3: Request tokens '-3' is not a whole number >= 1"),
            std::string::npos);
}

TEST(AzureDataset, CivilTimestampsRelativeToTheFirst) {
  const auto specs = load_azure_dataset(options("azure.csv"));
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[2].input_tokens, 879);
  EXPECT_EQ(specs[2].max_tokens, 15);
  EXPECT_NEAR(specs[1].trace_s, 4.314579, 1e-6);
  EXPECT_NEAR(specs[3].trace_s, 14.31941, 1e-6);  // across a minute boundary
  EXPECT_NE(error_of(load_azure_dataset, options("bad-azure.csv"))
                .find("bad-azure.csv line 3: TIMESTAMP '16/11/2023 18:15' is not "
                      "YYYY-MM-DD HH:MM:SS[.fraction]"),
            std::string::npos);
}

TEST(MooncakeDataset, SharedHashIdsShareTheirBlocksOfTokens) {
  testing::WordTokenizer tok;
  DatasetOptions o = options("mooncake.jsonl");
  o.tokenizer = &tok;
  const auto specs = load_mooncake_dataset(o);
  ASSERT_EQ(specs.size(), 4u);
  std::vector<std::vector<std::int32_t>> ids;
  for (const auto& s : specs) ids.push_back(tok.encode(s.prompt));
  EXPECT_EQ(ids[0].size(), 1100u);
  EXPECT_EQ(specs[0].input_tokens, 1100);
  EXPECT_EQ(ids[1].size(), 700u);
  EXPECT_EQ(ids[3].size(), 300u);
  const auto block = [&ids](std::size_t r, std::size_t b, std::size_t n = 512) {
    return std::vector<std::int32_t>(ids[r].begin() + static_cast<std::ptrdiff_t>(b * 512),
                                     ids[r].begin() + static_cast<std::ptrdiff_t>(b * 512 + n));
  };
  // Hash 0 opens requests 0, 1 and 2; hash 1 is block 1 of requests 0 and 2.
  EXPECT_EQ(block(0, 0), block(1, 0));
  EXPECT_EQ(block(0, 0), block(2, 0));
  EXPECT_EQ(block(0, 1), block(2, 1));
  // Block 1 of request 1 is hash 3, not hash 1: it differs (its 188 tokens against hash 1's).
  EXPECT_NE(block(1, 1, 188), block(0, 1, 188));
  EXPECT_NE(block(3, 0, 300), block(0, 0, 300));  // hash 4
  // The block of a hash id is the synth's, whatever request it is in.
  PromptSynth synth(7, &tok);
  EXPECT_EQ(block(0, 2, 76), synth.block_ids(2, 76));
  EXPECT_EQ(specs[1].max_tokens, 12);
  EXPECT_DOUBLE_EQ(specs[1].trace_s, 0.25);
  EXPECT_DOUBLE_EQ(specs[3].trace_s, 1.5);

  // Without a tokenizer the blocks are words, shared the same way.
  const auto words = load_mooncake_dataset(options("mooncake.jsonl"));
  EXPECT_EQ(words[0].input_tokens, 1100);
  EXPECT_EQ(words[0].prompt.substr(0, 2000), words[2].prompt.substr(0, 2000));
  EXPECT_NE(error_of(load_mooncake_dataset, options("bad-mooncake.jsonl"))
                .find("bad-mooncake.jsonl line 2: needs \"hash_ids\""),
            std::string::npos);
}

// The first n words of a prompt.
std::string first_words(const std::string& text, int n) {
  std::size_t at = 0;
  for (int w = 0; w < n && at != std::string::npos; ++w) at = text.find(' ', at + 1);
  return text.substr(0, at);
}

TEST(SharedPrefixDataset, GroupsShareTheirPrefixInEitherOrder) {
  SharedPrefixOptions o;
  o.groups = 3;
  o.prompts_per_group = 2;
  o.prefix_len = 10;
  o.question_len = 5;
  o.output_len = 9;
  o.seed = 4;
  const auto inter = make_shared_prefix_dataset(o, nullptr);
  ASSERT_EQ(inter.size(), 6u);
  for (const auto& s : inter) {
    EXPECT_EQ(s.input_tokens, 15);
    EXPECT_EQ(s.max_tokens, 9);
  }
  // Interleaved: groups 0, 1, 2, 0, 1, 2.
  EXPECT_EQ(first_words(inter[0].prompt, 10), first_words(inter[3].prompt, 10));
  EXPECT_EQ(first_words(inter[2].prompt, 10), first_words(inter[5].prompt, 10));
  EXPECT_NE(first_words(inter[0].prompt, 10), first_words(inter[1].prompt, 10));
  EXPECT_NE(inter[0].prompt, inter[3].prompt);  // their own parts differ
  // Grouped: the same prompts, group by group.
  o.grouped = true;
  const auto grouped = make_shared_prefix_dataset(o, nullptr);
  EXPECT_EQ(grouped[0].prompt, inter[0].prompt);
  EXPECT_EQ(grouped[1].prompt, inter[3].prompt);
  EXPECT_EQ(grouped[2].prompt, inter[1].prompt);
  EXPECT_EQ(grouped[5].id, 5u);
  // With a tokenizer the prefix is token-exact.
  testing::WordTokenizer tok;
  const auto exact = make_shared_prefix_dataset(o, &tok);
  const auto a = tok.encode(exact[0].prompt);
  const auto b = tok.encode(exact[1].prompt);
  ASSERT_EQ(a.size(), 15u);
  EXPECT_EQ(std::vector<std::int32_t>(a.begin(), a.begin() + 10),
            std::vector<std::int32_t>(b.begin(), b.begin() + 10));
}

TEST(FixedDataset, TheSamePromptForEveryRequest) {
  const auto specs = make_fixed_dataset("Say hello to the benchmark.", 4, 16, nullptr);
  ASSERT_EQ(specs.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(specs[i].id, i);
    EXPECT_EQ(specs[i].prompt, "Say hello to the benchmark.");
    EXPECT_EQ(specs[i].input_tokens, 5);
    EXPECT_EQ(specs[i].max_tokens, 16);
  }
}

TEST(SonnetDataset, InstructionHeadThenSeededLinesWithinInputLen) {
  DatasetOptions o = options("sonnet.txt");
  o.input_len = 60;
  o.sonnet_prefix_len = 30;
  const auto specs = make_sonnet_dataset(o, 8);
  ASSERT_EQ(specs.size(), 8u);
  // The instruction (11 words) and the first two lines (7 + 9) fit in 30; the third would not.
  const std::string head = std::string(kSonnetInstruction) +
                           "The kettle hums before the morning light,\n"
                           "And frost has drawn its ferns across the pane;\n";
  std::set<std::string> distinct;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    EXPECT_EQ(s.id, i);
    EXPECT_EQ(s.prompt.rfind(head, 0), 0u) << s.prompt;
    EXPECT_GT(s.prompt.size(), head.size());  // lines drawn after the head
    EXPECT_EQ(s.input_tokens, core::approx_token_count(s.prompt));
    EXPECT_LE(s.input_tokens, 60);
    EXPECT_GT(s.input_tokens, 60 - 12);  // stops at the first line that does not fit
    EXPECT_EQ(s.input_source, core::TokenSource::kApproximate);
    EXPECT_EQ(s.max_tokens, 128);
    EXPECT_EQ(s.prompt.back(), '\n');
    distinct.insert(s.prompt);
  }
  EXPECT_GT(distinct.size(), 1u);
  // The same seed sends the same prompts; another seed others, after the same head.
  const auto again = make_sonnet_dataset(o, 8);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(again[i].prompt, specs[i].prompt);
  o.seed = 8;
  const auto other = make_sonnet_dataset(o, 8);
  EXPECT_NE(other[0].prompt, specs[0].prompt);
  EXPECT_EQ(other[0].prompt.rfind(head, 0), 0u);
}

TEST(SonnetDataset, CountsWithTheTokenizerAndNoPrefixBelowTheInstruction) {
  // Lines the test tokenizer knows (its words are w1 ... w99).
  DatasetOptions o = options("sonnet.txt");
  o.path = ::testing::TempDir() + "word-sonnet.txt";
  std::ofstream(o.path) << "w1 w2 w3\nw4 w5\nw6 w7 w8 w9\nw10\nw11 w12 w13\n";
  const testing::WordTokenizer tok;
  o.tokenizer = &tok;
  o.input_len = 40;
  o.sonnet_prefix_len = 0;  // no line of the file is fixed: only the instruction
  const auto specs = make_sonnet_dataset(o, 3);
  for (const auto& s : specs) {
    EXPECT_EQ(s.input_source, core::TokenSource::kTokenizer);
    EXPECT_EQ(s.input_tokens, static_cast<std::int64_t>(tok.count(s.prompt)));
    EXPECT_LE(s.input_tokens, 40);
  }
  EXPECT_NE(specs[0].prompt.substr(std::string(kSonnetInstruction).size()),
            specs[1].prompt.substr(std::string(kSonnetInstruction).size()));
}

TEST(SonnetDataset, MissingOrEmptyFileAndTooShortAnInputAreOneLineErrors) {
  const auto make = [](const DatasetOptions& o) { return make_sonnet_dataset(o, 2); };
  DatasetOptions o = options("no-such-sonnet.txt");
  EXPECT_NE(error_of(make, o).find("cannot open dataset file " + o.path), std::string::npos);
  const std::string empty = ::testing::TempDir() + "empty-sonnet.txt";
  std::ofstream(empty) << "\n  \n";
  o.path = empty;
  EXPECT_EQ(error_of(make, o),
            "dataset " + empty + " has no lines: --dataset sonnet needs a text file of poem lines");
  o = options("sonnet.txt");
  o.input_len = 11;  // the instruction alone is 11 words
  EXPECT_EQ(error_of(make, o),
            "--dataset sonnet: --input-len 11 leaves no room for lines after the instruction's 11 "
            "tokens");
}

}  // namespace
}  // namespace tokenbench::workload
