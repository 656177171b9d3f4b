#include "tokenbench/workload/dataset.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "../support/word_tokenizer.h"
#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::workload {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(RandomDataset, ExactLengthsWithoutRange) {
  RandomDatasetOptions o;
  o.input_len = 100;
  o.output_len = 20;
  const auto specs = make_random_dataset(o, 5, 10);
  ASSERT_EQ(specs.size(), 5u);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].id, 10 + i);
    EXPECT_EQ(specs[i].input_tokens, 100);
    EXPECT_EQ(core::approx_token_count(specs[i].prompt), 100);
    EXPECT_EQ(specs[i].input_source, core::TokenSource::kApproximate);
    EXPECT_EQ(specs[i].max_tokens, 20);
  }
  EXPECT_NE(specs[0].prompt, specs[1].prompt);
}

TEST(RandomDataset, RangeRatioIsSymmetricAndDeterministic) {
  RandomDatasetOptions o;
  o.input_len = 100;
  o.output_len = 50;
  o.range_ratio = 0.5;
  o.seed = 9;
  const auto a = make_random_dataset(o, 2000);
  const auto b = make_random_dataset(o, 2000);
  std::int64_t lo = 1 << 30, hi = 0;
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].prompt, b[i].prompt);
    lo = std::min(lo, a[i].input_tokens);
    hi = std::max(hi, a[i].input_tokens);
    sum += static_cast<double>(a[i].input_tokens);
    EXPECT_GE(a[i].max_tokens, 25);
    EXPECT_LE(a[i].max_tokens, 75);
  }
  EXPECT_EQ(lo, 50);
  EXPECT_EQ(hi, 150);
  EXPECT_NEAR(sum / 2000.0, 100.0, 3.0);
}

TEST(RandomDataset, TokenExactWithATokenizerAndASharedPrefix) {
  testing::WordTokenizer tok;
  RandomDatasetOptions o;
  o.input_len = 40;
  o.output_len = 5;
  o.range_ratio = 0.5;
  o.prefix_len = 7;
  o.seed = 3;
  const auto specs = make_random_dataset(o, 50, 0, &tok);
  for (const auto& s : specs) {
    EXPECT_EQ(s.input_source, core::TokenSource::kTokenizer);
    EXPECT_EQ(static_cast<std::int64_t>(tok.count(s.prompt)), s.input_tokens);
    EXPECT_GE(s.input_tokens, 7 + 20);
    EXPECT_LE(s.input_tokens, 7 + 60);
    EXPECT_EQ(s.prompt.find("<s>"), std::string::npos);  // never a special token
  }
  // The first 7 tokens are the same for every prompt.
  const auto a = tok.encode(specs[0].prompt), b = tok.encode(specs[1].prompt);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 7, b.begin()));
  EXPECT_FALSE(std::equal(a.begin() + 7, a.begin() + 14, b.begin() + 7));
}

TEST(RandomDataset, WordPrefixWithoutATokenizer) {
  RandomDatasetOptions o;
  o.input_len = 10;
  o.prefix_len = 4;
  const auto specs = make_random_dataset(o, 3);
  EXPECT_EQ(specs[0].input_tokens, 14);
  // The first four words are the same in every prompt; the rest differs.
  auto first_words = [](const std::string& p, int n) {
    std::size_t cut = 0;
    for (int spaces = 0; cut < p.size() && spaces < n; ++cut) spaces += p[cut] == ' ';
    return p.substr(0, cut);
  };
  for (const auto& s : specs) EXPECT_EQ(first_words(s.prompt, 4), first_words(specs[0].prompt, 4));
  EXPECT_NE(specs[1].prompt, specs[0].prompt);
}

TEST(JsonlDataset, TokenizerCountsInputLengths) {
  testing::WordTokenizer tok;
  const auto path = write_temp("tok.jsonl",
                               "{\"prompt\":\"w1 w2 w3 w4\"}\n"
                               "{\"messages\":[{\"role\":\"system\",\"content\":\"w5\"},"
                               "{\"role\":\"user\",\"content\":\"w6 w7\"}]}\n");
  const auto specs = load_jsonl_dataset(path, 0, &tok);
  EXPECT_EQ(specs[0].input_tokens, 4);
  EXPECT_EQ(specs[0].input_source, core::TokenSource::kTokenizer);
  EXPECT_EQ(specs[1].input_tokens, 3);
}

TEST(JsonlDataset, PromptsMessagesAndLengths) {
  const auto path = write_temp("ds.jsonl",
                               "{\"prompt\":\"one two three\",\"output_len\":5}\n"
                               "\n"
                               "{\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}]}\n");
  const auto specs = load_jsonl_dataset(path, 7);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].prompt, "one two three");
  EXPECT_EQ(specs[0].input_tokens, 3);
  EXPECT_EQ(specs[0].max_tokens, 5);
  EXPECT_TRUE(specs[0].messages_json.empty());
  EXPECT_EQ(specs[1].max_tokens, 7);
  EXPECT_EQ(specs[1].input_tokens, 2);
  EXPECT_NE(specs[1].messages_json.find("hi there"), std::string::npos);
}

TEST(JsonlDataset, ErrorsNameFileAndLine) {
  const auto path = write_temp("bad.jsonl", "{\"prompt\":\"ok\"}\n{\"nope\":1}\n");
  try {
    load_jsonl_dataset(path, 0);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_jsonl_dataset(::testing::TempDir() + "missing.jsonl", 0), std::runtime_error);
  EXPECT_THROW(
      load_jsonl_dataset(write_temp("neg.jsonl", "{\"prompt\":\"a\",\"output_len\":0}\n"), 0),
      std::runtime_error);
}

TEST(Workload, WarmupNeverSendsMeasuredPrompts) {
  core::RunConfig c;
  c.num_prompts = 10;
  c.warmup = 3;
  c.input_len = 8;
  const auto w = build_workload(c);
  ASSERT_EQ(w.warmup->size(), 3u);
  ASSERT_EQ(w.measure->size(), 10u);
  for (const auto& wu : all_prompts(*w.warmup)) {
    for (const auto& m : all_prompts(*w.measure)) EXPECT_NE(wu.prompt, m.prompt);
  }
  c.dataset = core::Dataset::kJsonl;
  c.dataset_path =
      write_temp("w.jsonl", "{\"prompt\":\"a\"}\n{\"prompt\":\"b\"}\n{\"prompt\":\"c\"}\n");
  c.warmup = 1;
  const auto j = build_workload(c);
  ASSERT_EQ(j.warmup->size(), 1u);
  EXPECT_EQ(all_prompts(*j.warmup)[0].prompt, "a");
  const auto measured = all_prompts(*j.measure);
  ASSERT_EQ(measured.size(), 2u);  // the warmup line is never measured
  EXPECT_EQ(measured[0].prompt, "b");
  EXPECT_EQ(measured[1].prompt, "c");
  c.warmup = 3;
  EXPECT_THROW(build_workload(c), std::runtime_error);
  c.dataset_path.clear();  // a file dataset without its file (an unknown name is refused at
  EXPECT_THROW(build_workload(c), std::runtime_error);  // the edge: RunOptions' tests)
}

// Issue 27: a long generated phase is made as it is asked for, prompt for prompt what the whole
// list would have been, so the same seed sends the same prompts whatever the run's length.
TEST(Workload, LongGeneratedPhasesAreMadeAsTheyGoWithTheSamePrompts) {
  core::RunConfig c;
  c.num_prompts = static_cast<std::int64_t>(kHeldPrompts) + 5;
  c.warmup = 2;
  c.input_len = 6;
  c.range_ratio = 0.5;
  c.seed = 9;
  const Workload w = build_workload(c);
  ASSERT_EQ(w.measure->size(), kHeldPrompts + 5);
  EXPECT_EQ(w.measure->held(), nullptr);  // made as it goes
  ASSERT_NE(w.warmup->held(), nullptr);   // two prompts are held
  RandomDatasetOptions o;
  o.input_len = 6;
  o.output_len = c.output_len;
  o.range_ratio = 0.5;
  o.seed = 9;
  const auto whole = make_random_dataset(o, kHeldPrompts + 7);
  const auto warm = all_prompts(*w.warmup);
  EXPECT_EQ(warm[1].prompt, whole[1].prompt);
  for (std::size_t i = 0; i < kHeldPrompts + 5; ++i) {
    const core::RequestSpec spec = w.measure->next();
    ASSERT_EQ(spec.prompt, whole[i + 2].prompt) << i;
    ASSERT_EQ(spec.id, i + 2);
    ASSERT_EQ(spec.max_tokens, whole[i + 2].max_tokens);
  }
  // The cycle starts again with the same prompts; a restarted copy too.
  EXPECT_EQ(w.measure->next().prompt, whole[2].prompt);
  EXPECT_EQ(w.measure->restart()->next().prompt, whole[2].prompt);
  // --batch-size groups them as the held list did.
  c.batch_size = 3;
  c.warmup = 0;
  const Workload batched = build_workload(c);
  const core::RequestSpec first = batched.measure->next();
  EXPECT_EQ(first.prompt, whole[0].prompt);
  EXPECT_EQ(first.more_inputs, (std::vector<std::string>{whole[1].prompt, whole[2].prompt}));
  EXPECT_EQ(first.input_tokens,
            whole[0].input_tokens + whole[1].input_tokens + whole[2].input_tokens);
  EXPECT_EQ(batched.measure->next().id, 1u);
}

// Issue 27: a long JSON Lines or lines file is read a line at a time as the run asks for its
// prompts (the same prompts as the whole file read up front), after every line was checked.
TEST(Workload, LongLineFilesAreReadAsTheRunGoes) {
  std::string jsonl;
  std::string text;
  for (std::size_t i = 0; i < kHeldPrompts + 10; ++i) {
    jsonl += "{\"prompt\":\"p" + std::to_string(i) +
             "\",\"output_len\":" + std::to_string(i % 7 + 1) + "}\n" + (i % 100 == 0 ? "\n" : "");
    text += "line " + std::to_string(i) + "\r\n";
  }
  core::RunConfig c;
  c.dataset = core::Dataset::kJsonl;
  c.dataset_path = write_temp("long.jsonl", jsonl);
  c.warmup = 3;
  c.num_prompts = 100;
  const Workload w = build_workload(c);
  EXPECT_EQ(w.measure->held(), nullptr);  // read as it goes
  ASSERT_EQ(w.measure->size(), kHeldPrompts + 7);
  const auto whole = load_jsonl_dataset(c.dataset_path, 0);
  EXPECT_EQ(all_prompts(*w.warmup)[2].prompt, "p2");
  for (std::size_t i = 0; i < kHeldPrompts + 7; ++i) {
    const core::RequestSpec spec = w.measure->next();
    ASSERT_EQ(spec.prompt, whole[i + 3].prompt) << i;
    ASSERT_EQ(spec.max_tokens, whole[i + 3].max_tokens) << i;
  }
  EXPECT_EQ(w.measure->next().prompt, "p3");  // cycled: the first measured line again
  EXPECT_EQ(w.measure->restart()->next().prompt, "p3");
  // A bad line far into the file stops the run before anything is sent, named by its number.
  c.dataset_path = write_temp("long-bad.jsonl", jsonl + "{\"prompt\":7}\n");
  try {
    build_workload(c);
    ADD_FAILURE() << "a bad line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line " + std::to_string(kHeldPrompts + 10 + 42 + 1) +
                                         ": \"prompt\" must be a string"),
              std::string::npos)
        << e.what();
  }
  // A lines file, the same way ('\r' dropped).
  c.dataset = core::Dataset::kLines;
  c.dataset_path = write_temp("long.txt", text);
  c.warmup = 0;
  const Workload l = build_workload(c);
  EXPECT_EQ(l.measure->held(), nullptr);
  EXPECT_EQ(l.measure->size(), kHeldPrompts + 10);
  EXPECT_EQ(l.measure->next().prompt, "line 0");
  EXPECT_EQ(l.measure->next().prompt, "line 1");
}

// Issue 27: the estimate that refuses a workload too large for memory counts what a run holds
// whatever its length: held prompts, the requests made ahead and the schedule.
TEST(WorkloadEstimate, CountsHeldPromptsAndTheRequestsMadeAhead) {
  core::RunConfig c;
  c.num_prompts = 200;
  c.warmup = 10;
  c.input_len = 100;
  const std::int64_t own = static_cast<std::int64_t>(sizeof(core::RequestSpec)) + 320;
  const std::int64_t one = request_bytes(c);
  EXPECT_EQ(one, own + 2 * 700);  // the prompt in its spec and in its body
  WorkloadEstimate e = estimate_workload(c);
  EXPECT_EQ(e.requests, 210);  // few enough to hold
  EXPECT_EQ(e.ahead, 210);     // each phase's feed holds at most the phase
  EXPECT_EQ(e.bytes, 210 * (own + 700) + 210 * one);
  // The synthetic prompts are no larger than the estimate says.
  const Workload w = build_workload(c);
  std::int64_t text = 0;
  for (const auto& s : all_prompts(*w.measure)) text += static_cast<std::int64_t>(s.prompt.size());
  EXPECT_LE(text, 200 * 700);
  EXPECT_GT(text, 200 * 300);
  // 10^7 prompts for 2 s at 1,000/s hold nothing but the requests made ahead and the schedule.
  c.num_prompts = 10'000'000;
  c.duration_s = 2;
  c.request_rate = 1000;
  e = estimate_workload(c);
  EXPECT_EQ(e.requests, 10);
  EXPECT_EQ(e.ahead, 10 + static_cast<std::int64_t>(kMadeAhead));
  EXPECT_LT(e.bytes, std::int64_t{64} << 20);
  // A multi-turn run holds its sessions.
  c.multi_turn = true;
  c.turns = 4;
  EXPECT_EQ(estimate_workload(c).requests, 4 * 10'000'010);
  EXPECT_GT(estimate_workload(c).bytes, std::int64_t{40} << 30);
  // A file's prompts are bounded by the file: the feeds count, at 4 KiB a prompt.
  c.multi_turn = false;
  c.dataset = core::Dataset::kJsonl;
  EXPECT_EQ(estimate_workload(c).requests, 0);
  EXPECT_EQ(request_bytes(c), own + 2 * 4096);
  // Requests made ahead take at most 64 MiB, and never fewer than 16.
  EXPECT_EQ(made_ahead(1000), kMadeAhead);
  EXPECT_EQ(made_ahead(std::int64_t{1} << 20), 64u);
  EXPECT_EQ(made_ahead(std::int64_t{1} << 30), 16u);
}

}  // namespace
}  // namespace tokenbench::workload
