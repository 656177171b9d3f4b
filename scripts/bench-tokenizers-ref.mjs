#!/usr/bin/env node
// Encode throughput of the reference tokenizers, one thread, timed as
// bench/tokenizer_bench.cpp times tokenbench's: each corpus file is one encode call; passes
// repeat for at least a second, three times; the median is printed in MB/s.
//   Hugging Face tokenizers (Rust, through @anush008/tokenizers) on the tokenizer.json files,
//   tiktoken (WebAssembly) on cl100k_base and o200k_base,
//   SentencePiece (WebAssembly, @sctg/sentencepiece-js) on the Llama-2 model.
//
//   node scripts/bench-tokenizers-ref.mjs FIXTURES_DIR REFS_DIR CORPUS_FILE...
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [fixtures, refs, ...files] = process.argv.slice(2);
if (!fixtures || !refs || files.length === 0) {
  console.error("usage: node bench-tokenizers-ref.mjs FIXTURES_DIR REFS_DIR CORPUS_FILE...");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(refs), "package.json"));
const { Tokenizer } = require("@anush008/tokenizers");
const tiktoken = require("tiktoken");
const { SentencePieceProcessor } = require("@sctg/sentencepiece-js");

const docs = files.map((f) => fs.readFileSync(f, "utf8"));
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);

async function measure(encode) {
  let tokens = 0;
  for (const d of docs) tokens += (await encode(d)).length;  // warm-up pass
  const rates = [];
  for (let repetition = 0; repetition < 3; repetition++) {
    let passes = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    do {
      for (const d of docs) await encode(d);
      passes++;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    } while (elapsed < 1.0);
    rates.push((bytes * passes) / elapsed / 1e6);
  }
  rates.sort((a, b) => a - b);
  return { rate: rates[1], tokens };
}

function report(family, impl, { rate, tokens }) {
  console.log(
    `${family.padEnd(10)} ${impl.padEnd(16)} ${rate.toFixed(2).padStart(10)} ${String(tokens).padStart(12)}`,
  );
}

console.log(`corpus: ${docs.length} documents, ${bytes} bytes`);
console.log(`${"family".padEnd(10)} ${"implementation".padEnd(16)} ${"MB/s".padStart(10)} ${"tokens".padStart(12)}`);
for (const family of ["llama3", "qwen3", "gpt4o", "mistral"]) {
  const tok = Tokenizer.fromFile(path.join(fixtures, family, "tokenizer.json"));
  const encode = async (d) => (await tok.encode(d, null, { addSpecialTokens: false })).getIds();
  report(family, "hf-rust (napi)", await measure(encode));
}
{
  const spp = new SentencePieceProcessor();
  const model = fs.readFileSync(path.join(fixtures, "llama2-sp/tokenizer.model"));
  await spp.loadFromB64StringModel(model.toString("base64"));
  report("llama2-sp", "sentencepiece-js", await measure(async (d) => spp.encodeIds(d)));
}
for (const [family, encoding] of [
  ["cl100k", "cl100k_base"],
  ["o200k", "o200k_base"],
]) {
  const enc = tiktoken.get_encoding(encoding);
  report(family, "tiktoken (wasm)", await measure(async (d) => enc.encode(d, "all")));
  enc.free();
}
