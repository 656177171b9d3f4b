// A JSON Lines dataset file (--dataset-path) as workload::load_jsonl_dataset reads it. The input
// is the file's contents. It may fail only with std::runtime_error, as documented. Lines are
// bounded at 4 KiB here (--max-line-bytes; 16 MiB by default) so that small inputs reach the
// refusal of an oversized line.

#include <stdexcept>

#include "fuzz_support.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/workload/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static tokenbench::fuzz::ScratchFile file("dataset.jsonl");
  // Set for this input only: CI's replay runs every target (and other tests) in one process.
  struct LineLimit {
    LineLimit() { tokenbench::core::set_max_line_bytes(4096); }
    ~LineLimit() { tokenbench::core::set_max_line_bytes(tokenbench::core::kDefaultMaxLineBytes); }
  } limit;
  const std::string& path = file.write(tokenbench::fuzz::as_view(data, size));
  try {
    const auto specs = tokenbench::workload::load_jsonl_dataset(path, 16);
    for (const auto& spec : specs) {
      if (spec.max_tokens < 1) tokenbench::fuzz::fail("a request without a positive max_tokens");
      if (spec.input_tokens < 0) tokenbench::fuzz::fail("negative input token count");
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
