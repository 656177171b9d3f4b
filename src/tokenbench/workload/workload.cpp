#include "tokenbench/workload/workload.h"

#include <algorithm>
#include <stdexcept>

#include "tokenbench/workload/dataset.h"

namespace tokenbench::workload {

Workload build_workload(const core::RunConfig& config, const tokenizer::Tokenizer* tokenizer) {
  const auto warmup = static_cast<std::size_t>(std::max<std::int64_t>(0, config.warmup));
  const std::size_t measure =
      config.num_prompts > 0 ? static_cast<std::size_t>(config.num_prompts) : kDurationPoolSize;
  Workload w;
  if (config.dataset == "random") {
    RandomDatasetOptions options;
    options.input_len = config.input_len;
    options.output_len = config.output_len;
    options.range_ratio = config.range_ratio;
    options.prefix_len = config.random_prefix_len;
    options.seed = config.seed;
    auto all = make_random_dataset(options, warmup + measure, 0, tokenizer);
    w.warmup.assign(std::make_move_iterator(all.begin()),
                    std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)));
    w.measure.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)),
                     std::make_move_iterator(all.end()));
  } else if (config.dataset == "jsonl") {
    if (config.dataset_path.empty()) {
      throw std::runtime_error("--dataset jsonl needs --dataset-path FILE");
    }
    // A jsonl line without its own length gets --output-len.
    auto all = load_jsonl_dataset(config.dataset_path, config.output_len, tokenizer);
    // Warmup takes the first lines and the measure phase the others (cycled when it needs more),
    // so that no measured prompt was sent before and cached.
    if (warmup >= all.size()) {
      throw std::runtime_error("--warmup " + std::to_string(warmup) +
                               " needs fewer requests than "
                               "the dataset's " +
                               std::to_string(all.size()) + " lines: lower --warmup or add lines");
    }
    w.warmup.assign(std::make_move_iterator(all.begin()),
                    std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)));
    w.measure.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(warmup)),
                     std::make_move_iterator(all.end()));
  } else {
    throw std::runtime_error("unknown --dataset '" + config.dataset + "': use random or jsonl");
  }
  return w;
}

}  // namespace tokenbench::workload
