# The fuzz targets, fuzz/<name>.cpp with seeds in fuzz/corpus/<name>/. Included by
# fuzz/CMakeLists.txt (libFuzzer binaries) and tests/CMakeLists.txt (the corpus replay of CI's
# ASan subset).
set(TOKENBENCH_FUZZ_TARGETS
  sse_stream
  http1_reply
  http2_reply
  api_adapter
  model_list
  redact
  records_jsonl
  jsonl_dataset
  hf_tokenizer_json
  tiktoken
  sim_request
  sim_http_request
  quantile_sketch)
