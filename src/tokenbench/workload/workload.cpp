#include "tokenbench/workload/workload.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <thread>

#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/synthetic_image.h"
#include "tokenbench/workload/synthetic_jobs.h"

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

void need_path(const core::RunConfig& config) {
  if (config.dataset_path.empty()) {
    throw std::runtime_error("--dataset " + core::to_string(config.dataset) +
                             " needs --dataset-path FILE");
  }
}

DatasetOptions file_options(const core::RunConfig& config, const tokenizer::Tokenizer* tokenizer) {
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
  return o;
}

// The datasets read whole from --dataset-path, by name.
std::vector<core::RequestSpec> load_file_dataset(const core::RunConfig& config,
                                                 const tokenizer::Tokenizer* tokenizer) {
  need_path(config);
  // A jsonl line without its own length gets --output-len.
  if (config.dataset == core::Dataset::kJsonl) {
    return load_jsonl_dataset(config.dataset_path, config.output_len, tokenizer,
                              config.session_field);
  }
  const DatasetOptions o = file_options(config, tokenizer);
  switch (config.dataset) {
    case core::Dataset::kLines:
      return load_lines_dataset(o);
    case core::Dataset::kCsv:
      return load_csv_dataset(o);
    case core::Dataset::kShareGpt:
      return load_sharegpt_dataset(o);
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

// The prompts of both phases, held.
struct Phases {
  std::vector<core::RequestSpec> warmup;
  std::vector<core::RequestSpec> measure;
};

// Warmup takes the first requests and the measure phase the others (cycled when it needs more),
// so that no measured prompt was sent before and cached.
void check_warmup(std::size_t warmup, std::size_t requests, const std::string& path) {
  if (warmup >= requests) {
    throw std::runtime_error("--warmup " + std::to_string(warmup) +
                             " needs fewer requests than the " + std::to_string(requests) +
                             " of dataset " + path + ": lower --warmup or add requests");
  }
}

Phases split_phases(std::vector<core::RequestSpec> all, std::size_t warmup,
                    const std::string& path) {
  check_warmup(warmup, all.size(), path);
  Phases p;
  p.warmup.assign(std::make_move_iterator(all.begin()),
                  std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)));
  p.measure.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)),
                   std::make_move_iterator(all.end()));
  return p;
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
    add_input(out.back(), std::move(all[i]));
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
void attach_all_images(Phases& w, const core::RunConfig& config) {
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

// The generator of a dataset made from a seed (random, fixed, sonnet); empty for the others.
PromptGenerator generator(const core::RunConfig& config, const tokenizer::Tokenizer* tokenizer) {
  switch (config.dataset) {
    case core::Dataset::kRandom: {
      RandomDatasetOptions options;
      options.input_len = config.input_len;
      options.output_len = config.output_len;
      options.range_ratio = config.range_ratio;
      options.prefix_len = config.random_prefix_len;
      options.seed = config.seed;
      options.input_dist = length_dist(config.input_dist, "--input-dist");
      options.output_dist = length_dist(config.output_dist, "--output-dist");
      options.hit_rate = config.prefix_hit_rate;
      options.hit_block = std::max<std::int64_t>(1, core::ideal_cache_block(config));
      return random_generator(options, tokenizer);
    }
    case core::Dataset::kFixed:
      return fixed_generator(config.prompt, config.output_len, tokenizer);
    case core::Dataset::kSonnet:
      need_path(config);
      return sonnet_generator(file_options(config, tokenizer));
    default:
      return {};
  }
}

// A dataset read a line at a time as the run asks for its prompts (jsonl without sessions,
// lines), when it holds more prompts than are worth holding and nothing needs them all at once
// (sessions, --batch-size, images, --replay's times); empty otherwise. Every line is checked
// first, so a bad one stops the run before anything is sent. `count`: its prompts.
PromptGenerator streamed_file(const core::RunConfig& config, const tokenizer::Tokenizer* tokenizer,
                              std::size_t& count) {
  if (config.multi_turn || inputs_per_request(config) > 1 || config.image_count > 0 ||
      config.replay) {
    return {};
  }
  if (config.dataset == core::Dataset::kJsonl && config.session_field.empty()) {
    need_path(config);
    count = check_jsonl_dataset(config.dataset_path);
    return count > kHeldPrompts ? jsonl_generator(config.dataset_path, config.output_len, tokenizer)
                                : PromptGenerator{};
  }
  if (config.dataset == core::Dataset::kLines) {
    need_path(config);
    const DatasetOptions o = file_options(config, tokenizer);
    count = check_lines_dataset(o);
    return count > kHeldPrompts ? lines_generator(o) : PromptGenerator{};
  }
  return {};
}

// The prompts of a dataset that are all held: a file's, or shared-prefix's G x P.
std::vector<core::RequestSpec> held_dataset(const core::RunConfig& config,
                                            const tokenizer::Tokenizer* tokenizer) {
  if (config.dataset != core::Dataset::kSharedPrefix) return load_file_dataset(config, tokenizer);
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
  return make_shared_prefix_dataset(o, tokenizer);
}

// A multi-turn run's workload: the sessions of `all`, the first `warmup` of them for warmup.
Workload multi_turn(std::vector<core::RequestSpec> all, std::size_t turns, std::size_t warmup,
                    const std::string& name) {
  std::vector<Session> sessions = make_sessions(std::move(all), turns, name);
  if (warmup >= sessions.size()) {
    throw std::runtime_error("--warmup " + std::to_string(warmup) +
                             " needs fewer sessions than the " + std::to_string(sessions.size()) +
                             " of " + name);
  }
  Workload w;
  w.warmup_sessions.assign(
      std::make_move_iterator(sessions.begin()),
      std::make_move_iterator(sessions.begin() + static_cast<std::ptrdiff_t>(warmup)));
  w.sessions.assign(std::make_move_iterator(sessions.begin() + static_cast<std::ptrdiff_t>(warmup)),
                    std::make_move_iterator(sessions.end()));
  return w;
}

Workload split_jobs(std::vector<Job> jobs, std::size_t warmup, const std::string& name);

// A job run's workload: the jobs of --dataset-path, or --jobs's synthetic ones; the first
// `warmup` of them for warmup.
Workload job_workload(const core::RunConfig& config, std::size_t warmup,
                      const tokenizer::Tokenizer* tokenizer) {
  std::vector<Job> jobs;
  if (!config.jobs_spec.empty()) {
    // Synthetic jobs, made up front: as many as the run sends (at most kSyntheticJobs, cycled
    // beyond), after the warmup's.
    const JobShape shape = parse_job_shape(config.jobs_spec);
    const std::size_t measured =
        config.num_prompts > 0
            ? std::min<std::size_t>(static_cast<std::size_t>(config.num_prompts), kSyntheticJobs)
            : kSyntheticJobs;
    for (std::size_t i = 0; i < warmup + measured; ++i) {
      jobs.push_back(make_synthetic_job(shape, config.seed, i, config.output_len, tokenizer));
    }
    return split_jobs(std::move(jobs), warmup, "--jobs");
  }
  if (config.dataset_path.empty()) {
    throw std::runtime_error(
        "--dataset jobs needs --dataset-path FILE (a job file) or --jobs SPEC (synthetic jobs, "
        "e.g. fanout:3,depth:1,tools:2)");
  }
  return split_jobs(load_job_file(config.dataset_path, config.output_len, config.seed, tokenizer),
                    warmup, config.dataset_path);
}

// The first `warmup` jobs for warmup, the rest for the measure phase.
Workload split_jobs(std::vector<Job> jobs, std::size_t warmup, const std::string& name) {
  if (warmup >= jobs.size()) {
    throw std::runtime_error("--warmup " + std::to_string(warmup) + " needs fewer jobs than the " +
                             std::to_string(jobs.size()) + " of " + name);
  }
  Workload w;
  const auto split = jobs.begin() + static_cast<std::ptrdiff_t>(warmup);
  w.warmup_jobs.assign(std::make_move_iterator(jobs.begin()), std::make_move_iterator(split));
  w.jobs.assign(std::make_move_iterator(split), std::make_move_iterator(jobs.end()));
  return w;
}

// A phase of `count` generated prompts from where `generate` stands (null when none): held when
// few enough that making them again each cycle would cost more than keeping them. With
// `then_more` (another phase follows), `generate` is left after the phase's prompts; each is
// made once when held.
std::unique_ptr<PromptSource> phase_prompts(PromptGenerator& generate, std::size_t count,
                                            bool then_more) {
  if (count == 0) return nullptr;
  if (count <= kHeldPrompts) return std::make_unique<HeldPrompts>(take(generate, count));
  auto phase = std::make_unique<GeneratedPrompts>(generate, count);
  for (std::size_t i = 0; then_more && i < count; ++i) generate();
  return phase;
}

// A workload whose prompts are all held.
Workload held_workload(Phases p) {
  Workload w;
  if (!p.warmup.empty()) w.warmup = std::make_unique<HeldPrompts>(std::move(p.warmup));
  w.measure = std::make_unique<HeldPrompts>(std::move(p.measure));
  return w;
}

// Without a tokenizer a synthetic prompt is words that are single tokens, about 5 bytes each
// with the space; with the room a growing string keeps, a prompt token costs about 7 bytes in
// each copy (measured: 200,000 prompts of 1,024 tokens took 2.7 GiB, estimated 2.9).
constexpr std::int64_t kPromptBytesPerToken = 7;
// A request's own cost beside its prompt text: the RequestSpec, its body's JSON keys and the
// heap's bookkeeping of both strings, its schedule entry.
constexpr std::int64_t kRequestOverheadBytes =
    static_cast<std::int64_t>(sizeof(core::RequestSpec)) + 320;
// A prompt of a file whose prompts are not known before it is read.
constexpr std::int64_t kFilePromptBytes = 4096;

bool generated(core::Dataset d) {
  return d == core::Dataset::kRandom || d == core::Dataset::kFixed || d == core::Dataset::kSonnet;
}

// The bytes of one prompt's text as the configuration says (0 for a file's).
std::int64_t prompt_bytes(const core::RunConfig& config) {
  switch (config.dataset) {
    case core::Dataset::kRandom:
    case core::Dataset::kSonnet:
      return (config.input_len + std::max<std::int64_t>(0, config.random_prefix_len)) *
             kPromptBytesPerToken;
    case core::Dataset::kFixed:
      return static_cast<std::int64_t>(config.prompt.size());
    case core::Dataset::kSharedPrefix:
      return (config.prefix_len + config.input_len) * kPromptBytesPerToken;
    default:
      return 0;
  }
}

// The base64 PNG images of one request (about half a byte a pixel).
std::int64_t image_bytes(const core::RunConfig& config) {
  if (config.image_count <= 0) return 0;
  try {
    const ImageSize size = parse_image_size(config.image_size);
    return config.image_count * std::int64_t{size.width} * size.height / 2;
  } catch (const std::invalid_argument&) {
    return 0;
  }
}

}  // namespace

std::size_t inputs_per_request(const core::RunConfig& config) {
  if (config.api == core::ApiKind::kRerank || config.api == core::ApiKind::kScore) {
    return static_cast<std::size_t>(1 + std::max(1, config.documents));
  }
  return static_cast<std::size_t>(std::max(1, config.batch_size));
}

std::size_t made_ahead(std::int64_t request_bytes) {
  const std::int64_t by_bytes = kMadeAheadBytes / std::max<std::int64_t>(1, request_bytes);
  return static_cast<std::size_t>(
      std::clamp<std::int64_t>(by_bytes, kMadeAheadLeast, static_cast<std::int64_t>(kMadeAhead)));
}

std::int64_t request_bytes(std::int64_t prompt_bytes, const core::RunConfig& config) {
  const auto batch = static_cast<std::int64_t>(inputs_per_request(config));
  return kRequestOverheadBytes + static_cast<std::int64_t>(config.extra_body.size()) +
         2 * (batch * prompt_bytes + image_bytes(config));
}

std::int64_t request_bytes(const core::RunConfig& config) {
  const std::int64_t prompt = prompt_bytes(config);
  return request_bytes(prompt > 0 || generated(config.dataset) ? prompt : kFilePromptBytes, config);
}

WorkloadEstimate estimate_workload(const core::RunConfig& config) {
  const std::int64_t warmup = std::max<std::int64_t>(0, config.warmup);
  const std::int64_t measure = config.num_prompts > 0 ? config.num_prompts
                               : config.image_count > 0
                                   ? static_cast<std::int64_t>(kImagePoolSize)
                                   : static_cast<std::int64_t>(kDurationPoolSize);
  const std::int64_t turns = config.multi_turn ? std::max<std::int64_t>(1, config.turns) : 1;
  const auto batch = static_cast<std::int64_t>(inputs_per_request(config));
  // The prompts held: a multi-turn run's sessions, the requests with images, shared-prefix's
  // G x P, and a generated phase of at most kHeldPrompts; a longer one is made as it goes, and a
  // file's prompts are bounded by the file.
  const bool as_it_goes =
      generated(config.dataset) && !config.multi_turn && config.image_count == 0;
  const auto held = [&](std::int64_t n) {
    return as_it_goes && n > static_cast<std::int64_t>(kHeldPrompts) ? 0 : n;
  };
  WorkloadEstimate e;
  if (config.dataset == core::Dataset::kSharedPrefix) {
    e.requests = config.prefix_groups * config.prompts_per_group;
  } else if (generated(config.dataset)) {
    e.requests = config.multi_turn ? (warmup + measure) * turns : held(warmup) + held(measure);
  }
  // A held request is its spec: its prompts and images once; its body is made as it nears its
  // send, in a bounded number of requests made ahead (both phases' feeds).
  const std::int64_t one = request_bytes(config);
  const auto most = static_cast<std::int64_t>(made_ahead(one));
  // (A multi-turn or job run builds each turn's or call's body at its send: it has no feed.)
  e.ahead = config.multi_turn || config.dataset == core::Dataset::kJobs
                ? 0
                : std::min(most, warmup) + std::min(most, measure);
  std::int64_t schedule = 0;  // 8 bytes an arrival of an open-loop schedule
  if (!std::isinf(config.request_rate) && config.request_rate > 0) {
    double arrivals = config.num_prompts > 0 ? static_cast<double>(config.num_prompts) : 1e18;
    if (config.duration_s > 0) {
      arrivals = std::min(arrivals, config.request_rate * config.duration_s * 1.1 + 16);
    }
    schedule = 8 * static_cast<std::int64_t>(std::min(arrivals, 1e15));
  }
  e.bytes =
      e.requests * (kRequestOverheadBytes + batch * prompt_bytes(config) + image_bytes(config)) +
      e.ahead * one + schedule;
  return e;
}

Workload build_workload(const core::RunConfig& config, const tokenizer::Tokenizer* tokenizer) {
  const auto warmup = static_cast<std::size_t>(std::max<std::int64_t>(0, config.warmup));
  const std::size_t measure = config.num_prompts > 0 ? static_cast<std::size_t>(config.num_prompts)
                              : config.image_count > 0 ? kImagePoolSize
                                                       : kDurationPoolSize;
  // Embeddings requests carry --batch-size inputs each, rerank and score a query and
  // --documents: that many prompts per request.
  const std::size_t batch = inputs_per_request(config);
  // A multi-turn run's --num-prompts counts sessions: random and fixed prompts make --turns each.
  const auto turns = static_cast<std::size_t>(std::max<std::int64_t>(0, config.turns));
  if (config.dataset == core::Dataset::kJobs) return job_workload(config, warmup, tokenizer);
  PromptGenerator generate = generator(config, tokenizer);
  if (config.multi_turn) {
    const std::size_t wanted = (warmup + measure) * batch * std::max<std::size_t>(1, turns);
    return multi_turn(generate ? take(generate, wanted) : held_dataset(config, tokenizer), turns,
                      warmup, generate ? core::to_string(config.dataset) : config.dataset_path);
  }
  Workload w;
  std::size_t lines = 0;
  if (!generate) {
    if (PromptGenerator file = streamed_file(config, tokenizer, lines)) {
      check_warmup(warmup, lines, config.dataset_path);
      w.warmup = phase_prompts(file, warmup, true);  // the measured prompts come after
      w.measure = std::make_unique<GeneratedPrompts>(std::move(file), lines - warmup);
      return w;
    }
    Phases p = split_phases(batch > 1 ? group_inputs(held_dataset(config, tokenizer), batch)
                                      : held_dataset(config, tokenizer),
                            warmup, config.dataset_path);
    if (config.image_count > 0) attach_all_images(p, config);
    return held_workload(std::move(p));
  }
  if (config.query_len > 0) {  // rerank and score: queries of their own length
    core::RunConfig queries = config;
    queries.input_len = config.query_len;
    queries.seed = config.seed ^ 0x9E3779B97F4A7C15ULL;  // other text than the documents'
    queries.random_prefix_len = 0;
    queries.prefix_hit_rate = 0;
    generate = with_queries(generator(queries, tokenizer), std::move(generate), batch - 1);
  } else if (batch > 1) {
    generate = grouped(std::move(generate), batch);
  }
  if (config.image_count > 0) {  // images are made on several threads, up front
    Phases p{take(generate, warmup), take(generate, measure)};
    attach_all_images(p, config);
    return held_workload(std::move(p));
  }
  w.warmup = phase_prompts(generate, warmup, true);  // the measured prompts come after
  w.measure = phase_prompts(generate, measure, false);
  return w;
}

}  // namespace tokenbench::workload
