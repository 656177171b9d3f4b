#include "tokenbench/workload/workload.h"

#include <algorithm>
#include <exception>
#include <map>
#include <stdexcept>
#include <thread>

#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/synthetic_image.h"

namespace tokenbench::workload {

namespace {

// --input-dist / --output-dist, with this module's error type.
LengthDist length_dist(const std::string& spec, const char* flag) {
  try {
    return parse_length_dist(spec, flag);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

// The datasets read from --dataset-path, by name.
// `count`: the requests a generated dataset (sonnet) makes.
std::vector<core::RequestSpec> load_file_dataset(const core::RunConfig& config,
                                                 const tokenizer::Tokenizer* tokenizer,
                                                 std::size_t count) {
  if (config.dataset_path.empty()) {
    throw std::runtime_error("--dataset " + core::to_string(config.dataset) +
                             " needs --dataset-path FILE");
  }
  // A jsonl line without its own length gets --output-len.
  if (config.dataset == core::Dataset::kJsonl) {
    return load_jsonl_dataset(config.dataset_path, config.output_len, tokenizer,
                              config.session_field);
  }
  DatasetOptions o;
  o.path = config.dataset_path;
  o.output_len = config.output_len;
  o.output_len_override = !config.output_len_from_dataset;
  o.prompt_field = config.prompt_field;
  o.output_len_field = config.output_len_field;
  o.timestamp_field = config.timestamp_field;
  o.session_field = config.session_field;
  o.all_turns = config.multi_turn;
  o.input_len = config.input_len;
  o.sonnet_prefix_len = config.sonnet_prefix_len;
  o.seed = config.seed;
  o.tokenizer = tokenizer;
  switch (config.dataset) {
    case core::Dataset::kLines:
      return load_lines_dataset(o);
    case core::Dataset::kCsv:
      return load_csv_dataset(o);
    case core::Dataset::kShareGpt:
      return load_sharegpt_dataset(o);
    case core::Dataset::kSonnet:
      return make_sonnet_dataset(o, count);
    case core::Dataset::kBurstGpt:
      return load_burstgpt_dataset(o);
    case core::Dataset::kAzure:
      return load_azure_dataset(o);
    case core::Dataset::kMooncake:
      return load_mooncake_dataset(o);
    default:
      break;
  }
  throw std::logic_error("--dataset " + core::to_string(config.dataset) +
                         " is not read from a file");
}

// Warmup takes the first requests and the measure phase the others (cycled when it needs more),
// so that no measured prompt was sent before and cached.
void split_phases(Workload& w, std::vector<core::RequestSpec> all, std::size_t warmup,
                  const std::string& path) {
  if (warmup >= all.size()) {
    throw std::runtime_error("--warmup " + std::to_string(warmup) +
                             " needs fewer requests than the " + std::to_string(all.size()) +
                             " of dataset " + path + ": lower --warmup or add requests");
  }
  w.warmup.assign(std::make_move_iterator(all.begin()),
                  std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)));
  w.measure.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)),
                   std::make_move_iterator(all.end()));
}

// Consecutive runs of `batch` specs become one request embedding them all (a short last run
// too); ids are renumbered from 0.
std::vector<core::RequestSpec> group_inputs(std::vector<core::RequestSpec> all, std::size_t batch) {
  std::vector<core::RequestSpec> out;
  out.reserve((all.size() + batch - 1) / batch);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i % batch == 0) {
      out.push_back(std::move(all[i]));
      out.back().id = out.size() - 1;
      out.back().more_inputs.reserve(batch - 1);
      continue;
    }
    core::RequestSpec& request = out.back();
    request.more_inputs.push_back(std::move(all[i].prompt));
    request.input_tokens += all[i].input_tokens;
  }
  return out;
}

// The sessions of a multi-turn run: prompts grouped by their session key (in the order each key
// first appears), or else runs of `turns` consecutive prompts.
std::vector<Session> make_sessions(std::vector<core::RequestSpec> all, std::size_t turns,
                                   const std::string& name) {
  std::vector<Session> sessions;
  const bool keyed = !all.empty() && !all.front().session_key.empty();
  if (!keyed && turns == 0) {
    throw std::runtime_error(
        "--multi-turn needs sessions: --dataset sharegpt (each conversation), --session-field "
        "FIELD (jsonl, csv), or --turns N (N consecutive prompts of " +
        name + " per session)");
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < all.size(); ++i) {
    core::RequestSpec& spec = all[i];
    std::size_t at = 0;
    if (keyed) {
      const auto [it, added] = index.try_emplace(spec.session_key, sessions.size());
      if (added) sessions.emplace_back();
      at = it->second;
    } else {
      if (i % turns == 0) sessions.emplace_back();
      at = sessions.size() - 1;
    }
    auto& session_turns = sessions[at].turns;
    if (!keyed || turns == 0 || session_turns.size() < turns) {
      spec.id = session_turns.size();
      session_turns.push_back(std::move(spec));
    }
  }
  return sessions;
}

// --image-count: every request's images, made on up to 8 threads (each image is a few ms).
void attach_all_images(Workload& w, const core::RunConfig& config) {
  ImageSize size;
  try {
    size = parse_image_size(config.image_size);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  std::vector<core::RequestSpec*> specs;
  for (auto& s : w.warmup) specs.push_back(&s);
  for (auto& s : w.measure) specs.push_back(&s);
  if (specs.empty()) return;
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                      std::min<std::size_t>(8, specs.size()));
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        for (std::size_t i = t; i < specs.size(); i += threads) {
          attach_images(*specs[i], config.seed, static_cast<int>(config.image_count), size);
        }
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// Without a tokenizer a synthetic prompt is words that are single tokens, about 5 bytes each
// with the space; with the room a growing string keeps, a prompt token costs about 7 bytes in
// each copy (measured: 200,000 prompts of 1,024 tokens took 2.7 GiB, estimated 2.9).
constexpr std::int64_t kPromptBytesPerToken = 7;
// A request's own cost beside its prompt text: the RequestSpec, its body's JSON keys and the
// heap's bookkeeping of both strings, its schedule entry.
constexpr std::int64_t kRequestOverheadBytes =
    static_cast<std::int64_t>(sizeof(core::RequestSpec)) + 320;

}  // namespace

WorkloadEstimate estimate_workload(const core::RunConfig& config) {
  const std::int64_t warmup = std::max<std::int64_t>(0, config.warmup);
  const std::int64_t measure = config.num_prompts > 0 ? config.num_prompts
                               : config.image_count > 0
                                   ? static_cast<std::int64_t>(kImagePoolSize)
                                   : static_cast<std::int64_t>(kDurationPoolSize);
  const std::int64_t turns = config.multi_turn ? std::max<std::int64_t>(1, config.turns) : 1;
  const std::int64_t batch = std::max(1, config.batch_size);
  WorkloadEstimate e;
  e.requests = (warmup + measure) * turns;
  std::int64_t prompt = 0;  // bytes of one prompt's text
  std::int64_t prompts = e.requests * batch;
  if (config.dataset == core::Dataset::kRandom || config.dataset == core::Dataset::kSonnet) {
    prompt = (config.input_len + std::max<std::int64_t>(0, config.random_prefix_len)) *
             kPromptBytesPerToken;
  } else if (config.dataset == core::Dataset::kFixed) {
    prompt = static_cast<std::int64_t>(config.prompt.size());
  } else if (config.dataset == core::Dataset::kSharedPrefix) {
    prompts = config.prefix_groups * config.prompts_per_group;
    prompt = (config.prefix_len + config.input_len) * kPromptBytesPerToken;
  } else {
    prompts = 0;  // a file's prompts: bounded by the file
  }
  std::int64_t images = 0;  // base64 PNG, about half a byte a pixel
  if (config.image_count > 0) {
    try {
      const ImageSize size = parse_image_size(config.image_size);
      images = config.image_count * std::int64_t{size.width} * size.height / 2;
    } catch (const std::invalid_argument&) {
    }
  }
  const auto body = static_cast<std::int64_t>(config.extra_body.size());
  // Each prompt is kept twice: as text in its RequestSpec and inside its request body (a third
  // time in a whole body with --nonstream-sample).
  const std::int64_t copies = config.nonstream_sample > 0 ? 3 : 2;
  e.bytes =
      e.requests * (kRequestOverheadBytes + body + copies * images) + prompts * copies * prompt;
  return e;
}

Workload build_workload(const core::RunConfig& config, const tokenizer::Tokenizer* tokenizer) {
  const auto warmup = static_cast<std::size_t>(std::max<std::int64_t>(0, config.warmup));
  const std::size_t measure = config.num_prompts > 0 ? static_cast<std::size_t>(config.num_prompts)
                              : config.image_count > 0 ? kImagePoolSize
                                                       : kDurationPoolSize;
  // Embeddings requests carry --batch-size inputs each: that many prompts per request.
  const std::size_t batch = static_cast<std::size_t>(std::max(1, config.batch_size));
  // A multi-turn run's --num-prompts counts sessions: random and fixed prompts make --turns each.
  const auto turns = static_cast<std::size_t>(std::max<std::int64_t>(0, config.turns));
  const std::size_t wanted =
      (warmup + measure) * batch * (config.multi_turn ? std::max<std::size_t>(1, turns) : 1);
  std::vector<core::RequestSpec> all;
  std::string name = core::to_string(config.dataset);
  if (config.dataset == core::Dataset::kRandom) {
    RandomDatasetOptions options;
    options.input_len = config.input_len;
    options.output_len = config.output_len;
    options.range_ratio = config.range_ratio;
    options.prefix_len = config.random_prefix_len;
    options.seed = config.seed;
    options.input_dist = length_dist(config.input_dist, "--input-dist");
    options.output_dist = length_dist(config.output_dist, "--output-dist");
    all = make_random_dataset(options, wanted, 0, tokenizer);
  } else if (config.dataset == core::Dataset::kSharedPrefix) {
    SharedPrefixOptions o;
    o.groups = config.prefix_groups;
    o.prompts_per_group = config.prompts_per_group;
    o.prefix_len = config.prefix_len;
    o.question_len = config.input_len;
    o.output_len = config.output_len;
    o.grouped = config.group_order == core::GroupOrder::kGrouped;
    o.seed = config.seed;
    o.question_dist = length_dist(config.input_dist, "--input-dist");
    o.output_dist = length_dist(config.output_dist, "--output-dist");
    all = make_shared_prefix_dataset(o, tokenizer);
  } else if (config.dataset == core::Dataset::kFixed) {
    all = make_fixed_dataset(config.prompt, wanted, config.output_len, tokenizer);
  } else {
    all = load_file_dataset(config, tokenizer, wanted);
    name = config.dataset_path;
  }
  Workload w;
  if (config.multi_turn) {
    std::vector<Session> sessions = make_sessions(std::move(all), turns, name);
    if (warmup >= sessions.size()) {
      throw std::runtime_error("--warmup " + std::to_string(warmup) +
                               " needs fewer sessions than the " + std::to_string(sessions.size()) +
                               " of " + name);
    }
    w.warmup_sessions.assign(
        std::make_move_iterator(sessions.begin()),
        std::make_move_iterator(sessions.begin() + static_cast<std::ptrdiff_t>(warmup)));
    w.sessions.assign(
        std::make_move_iterator(sessions.begin() + static_cast<std::ptrdiff_t>(warmup)),
        std::make_move_iterator(sessions.end()));
    return w;
  }
  split_phases(w, batch > 1 ? group_inputs(std::move(all), batch) : std::move(all), warmup, name);
  if (config.image_count > 0) attach_all_images(w, config);
  return w;
}

}  // namespace tokenbench::workload
