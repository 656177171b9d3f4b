#include "tokenbench/workload/prompt_source.h"

namespace tokenbench::workload {

std::vector<core::RequestSpec> take(PromptGenerator& generate, std::size_t count) {
  std::vector<core::RequestSpec> specs;
  specs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) specs.push_back(generate());
  return specs;
}

void add_input(core::RequestSpec& request, core::RequestSpec&& more) {
  request.more_inputs.push_back(std::move(more.prompt));
  request.input_tokens += more.input_tokens;
}

PromptGenerator grouped(PromptGenerator generate, std::size_t batch) {
  return [generate = std::move(generate), batch, id = std::uint64_t{0}]() mutable {
    core::RequestSpec request = generate();
    request.id = id++;
    request.more_inputs.reserve(batch - 1);
    for (std::size_t i = 1; i < batch; ++i) add_input(request, generate());
    return request;
  };
}

PromptGenerator with_queries(PromptGenerator queries, PromptGenerator documents_of,
                             std::size_t documents) {
  return [queries = std::move(queries), documents_of = std::move(documents_of), documents,
          id = std::uint64_t{0}]() mutable {
    core::RequestSpec request = queries();
    request.id = id++;
    request.more_inputs.reserve(documents);
    for (std::size_t i = 0; i < documents; ++i) add_input(request, documents_of());
    return request;
  };
}

core::RequestSpec HeldPrompts::next() {
  const core::RequestSpec& spec = (*specs_)[at_];
  at_ = at_ + 1 == specs_->size() ? 0 : at_ + 1;
  return spec;
}

core::RequestSpec GeneratedPrompts::next() {
  if (made_ == size_) {
    current_ = start_;
    made_ = 0;
  }
  ++made_;
  return current_();
}

std::vector<core::RequestSpec> all_prompts(const PromptSource& source) {
  if (const auto* held = source.held()) return *held;
  const auto fresh = source.restart();
  std::vector<core::RequestSpec> specs;
  specs.reserve(fresh->size());
  for (std::size_t i = 0; i < fresh->size(); ++i) specs.push_back(fresh->next());
  return specs;
}

}  // namespace tokenbench::workload
