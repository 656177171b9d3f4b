#!/usr/bin/env node
// Generates the expected token ids of tests/data/tokenizer/corpus.json with reference
// tokenizers, one vectors-FAMILY.json per tokenizer family, for tests/tokenizer/.
//
//   bash scripts/fetch-tokenizer-fixtures.sh build/tokenizer-fixtures
//   bash scripts/install-tokenizer-refs.sh build/tokenizer-refs
//   node scripts/gen-tokenizer-vectors.mjs build/tokenizer-fixtures build/tokenizer-refs
//
// References: tokenizer.json files through @anush008/tokenizers (Hugging Face's Rust crate),
// tiktoken ranks through tiktoken's WebAssembly build (encode(text, "all"): special-token text
// becomes special ids), the SentencePiece model through @sctg/sentencepiece-js (SentencePiece's
// C++ in WebAssembly). Corpus entries given as "hex" bytes are decoded with TextDecoder, which
// replaces ill-formed UTF-8 with U+FFFD per maximal subpart; JavaScript strings cannot hold
// anything else, and tokenbench sanitizes its input the same way.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [fixtures, refs] = process.argv.slice(2);
if (!fixtures || !refs) {
  console.error("usage: node gen-tokenizer-vectors.mjs FIXTURES_DIR REFS_DIR");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.join(root, "tests/data/tokenizer");
const require = createRequire(path.join(path.resolve(refs), "package.json"));
const { Tokenizer } = require("@anush008/tokenizers");
const tiktoken = require("tiktoken");
const { SentencePieceProcessor } = require("@sctg/sentencepiece-js");
const version = (name) =>
  JSON.parse(fs.readFileSync(path.join(refs, "node_modules", name, "package.json"), "utf8")).version;

const corpus = JSON.parse(fs.readFileSync(path.join(dataDir, "corpus.json"), "utf8")).cases;
const texts = corpus.map((c) =>
  c.hex !== undefined ? new TextDecoder("utf-8").decode(Buffer.from(c.hex, "hex")) : c.text,
);

function write(family, fixture, reference, cases) {
  const lines = cases.map((c) => "  " + JSON.stringify(c));
  const header = JSON.stringify({ family, fixture, reference }).slice(0, -1);
  const body = `${header},"cases":[\n${lines.join(",\n")}\n]}\n`;
  fs.writeFileSync(path.join(dataDir, `vectors-${family}.json`), body);
  console.log(`vectors-${family}.json: ${cases.length} cases`);
}

const hfReference = `@anush008/tokenizers ${version("@anush008/tokenizers")} (tokenizers 0.22.2)`;
for (const [family, dir] of [
  ["llama3", "llama3"],
  ["qwen3", "qwen3"],
  ["gpt4o", "gpt4o"],
  ["mistral", "mistral"],
]) {
  const fixture = `${dir}/tokenizer.json`;
  const tok = Tokenizer.fromFile(path.join(fixtures, fixture));
  const cases = [];
  for (let i = 0; i < corpus.length; i++) {
    const ids = (await tok.encode(texts[i], null, { addSpecialTokens: false })).getIds();
    const special = (await tok.encode(texts[i], null, { addSpecialTokens: true })).getIds();
    const decoded = await tok.decode(ids, false);
    cases.push({ name: corpus[i].name, ids, ids_special: special, decoded });
  }
  write(family, fixture, hfReference, cases);
}

for (const [family, encoding] of [
  ["cl100k", "cl100k_base"],
  ["o200k", "o200k_base"],
]) {
  const enc = tiktoken.get_encoding(encoding);
  const cases = [];
  for (let i = 0; i < corpus.length; i++) {
    const ids = Array.from(enc.encode(texts[i], "all"));
    const decoded = new TextDecoder("utf-8").decode(enc.decode(Uint32Array.from(ids)));
    cases.push({ name: corpus[i].name, ids, ids_special: ids, decoded });
  }
  enc.free();
  write(family, `tiktoken/${encoding}.tiktoken`, `tiktoken ${version("tiktoken")} (WASM)`, cases);
}

{
  const fixture = "llama2-sp/tokenizer.model";
  const spp = new SentencePieceProcessor();
  await spp.loadFromB64StringModel(fs.readFileSync(path.join(fixtures, fixture)).toString("base64"));
  const cases = [];
  for (let i = 0; i < corpus.length; i++) {
    const ids = spp.encodeIds(texts[i]);
    // SentencePiece adds nothing itself; like Llama-2's HF tokenizer, tokenbench prepends BOS (1).
    const decoded = spp.decodeIds(Int32Array.from(ids));
    cases.push({ name: corpus[i].name, ids, ids_special: [1, ...ids], decoded });
  }
  write(
    "llama2-sp",
    fixture,
    `@sctg/sentencepiece-js ${version("@sctg/sentencepiece-js")} (SentencePiece WASM)`,
    cases,
  );
}
