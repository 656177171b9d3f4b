#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::workload {

/// Makes the prompts of a dataset one at a time, in order: each call returns the next. A copy
/// goes on from where the original stood, with the same prompts after it (its random stream is
/// copied too), so a copy taken at the start of a phase repeats the phase's prompts.
using PromptGenerator = std::function<core::RequestSpec()>;

/// The first `count` prompts of `generate` (advancing it).
std::vector<core::RequestSpec> take(PromptGenerator& generate, std::size_t count);

/// `batch` consecutive prompts of `generate` as one request that embeds them all (--batch-size):
/// the first keeps its prompt, the others go to RequestSpec::more_inputs, and the input counts
/// add up. Ids are renumbered 0, 1, ...
PromptGenerator grouped(PromptGenerator generate, std::size_t batch);
/// Rerank and score with --query-len: each request a prompt of `queries` (its id renumbered from
/// 0) and `documents` prompts of `documents_of` in RequestSpec::more_inputs.
PromptGenerator with_queries(PromptGenerator queries, PromptGenerator documents_of,
                             std::size_t documents);

/// Adds `more`'s prompt to `request` as one more input (--batch-size).
void add_input(core::RequestSpec& request, core::RequestSpec&& more);

/// The prompts of one phase, handed out in order and cycled: prompt 0, 1, ..., size() - 1, then
/// 0 again (the same prompts). A generated dataset makes each one when it is asked for, so a run
/// of any length holds only the prompts in flight; a dataset read from a file holds them all.
/// Not thread-safe: one thread asks (the phase's feed).
class PromptSource {
 public:
  virtual ~PromptSource() = default;

  /// Prompts in one cycle (> 0).
  virtual std::size_t size() const = 0;
  /// The next prompt of the cycle.
  virtual core::RequestSpec next() = 0;
  /// A source of the same prompts from the start of the cycle (a target's own copy).
  virtual std::unique_ptr<PromptSource> restart() const = 0;
  /// Every prompt of the cycle when they are all held (a dataset read from a file), else null:
  /// --replay takes its arrival times from them.
  virtual const std::vector<core::RequestSpec>* held() const { return nullptr; }
};

/// Prompts made up front (a file's, or any list).
class HeldPrompts final : public PromptSource {
 public:
  /// `specs` must not be empty.
  explicit HeldPrompts(std::vector<core::RequestSpec> specs)
      : specs_(std::make_shared<const std::vector<core::RequestSpec>>(std::move(specs))) {}
  explicit HeldPrompts(std::shared_ptr<const std::vector<core::RequestSpec>> specs)
      : specs_(std::move(specs)) {}

  std::size_t size() const override { return specs_->size(); }
  core::RequestSpec next() override;
  std::unique_ptr<PromptSource> restart() const override {
    return std::make_unique<HeldPrompts>(specs_);
  }
  const std::vector<core::RequestSpec>* held() const override { return specs_.get(); }

 private:
  std::shared_ptr<const std::vector<core::RequestSpec>> specs_;
  std::size_t at_ = 0;
};

/// Prompts made as they are asked for: the `size` prompts `generate` makes from where it stands,
/// made again from a copy of it each cycle.
class GeneratedPrompts final : public PromptSource {
 public:
  GeneratedPrompts(PromptGenerator generate, std::size_t size)
      : start_(std::move(generate)), current_(start_), size_(size) {}

  std::size_t size() const override { return size_; }
  core::RequestSpec next() override;
  std::unique_ptr<PromptSource> restart() const override {
    return std::make_unique<GeneratedPrompts>(start_, size_);
  }

 private:
  PromptGenerator start_;    // as at the start of the cycle
  PromptGenerator current_;  // where the next prompt comes from
  std::size_t size_;
  std::size_t made_ = 0;  // prompts made in this cycle
};

/// Every prompt `source` holds or makes in one cycle (tests, multi-turn sessions).
std::vector<core::RequestSpec> all_prompts(const PromptSource& source);

}  // namespace tokenbench::workload
