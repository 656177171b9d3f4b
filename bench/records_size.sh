#!/usr/bin/env bash
# Bytes per output token of requests.jsonl (docs/PERFORMANCE.md, "Record size"): a real run
# against serve-sim streaming 256 one-token chunks 1 ms apart, written plain and with
# --records-compress zstd. Usage: bench/records_size.sh [build/tokenbench] [requests]
set -euo pipefail
BIN=${1:-build/tokenbench}
N=${2:-64}
WORK=$(mktemp -d)
# shellcheck source=scripts/serve_sim.sh
source "$(dirname "$0")/../scripts/serve_sim.sh"
trap 'stop_sim; rm -rf "$WORK"' EXIT
start_sim "$BIN" "$WORK/sim.log" --ttft-ms 20 --itl-ms 1
URL=$SIM_URL
for compress in none zstd; do
  "$BIN" run --base-url "$URL" --num-prompts "$N" --max-concurrency 8 --input-len 64 \
    --output-len 256 --server-metrics off --gpu-metrics off --records-compress "$compress" \
    --output-dir "$WORK/$compress" --quiet >/dev/null
done
python3 - "$WORK" <<'PY'
import json, os, sys

DIGITS = [chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\!']

def chunks(record):  # docs/REPORTS.md, "The chunks field"
    text, i, out, us = record["chunks"], 1, [], None
    def number():
        nonlocal i
        v, scale = 0, 1
        while True:
            d = DIGITS.index(text[i]); i += 1
            v += (d % 46) * scale; scale *= 46
            if d < 46: return v
    while i < len(text):
        tokens = 1
        if text[i] == "!":
            i += 1; tokens = number()
        d = number()
        sent_us = (record["sent_ns"] or 0) // 1000
        us = sent_us + ((d >> 1) ^ -(d & 1)) if us is None else us + d
        out.append((us * 1000, tokens))
    return out

work = sys.argv[1]
lines = [json.loads(l) for l in open(os.path.join(work, "none", "requests.jsonl"))]
tokens = sum(r["output_tokens"] for r in lines)
plain = os.path.getsize(os.path.join(work, "none", "requests.jsonl"))
packed = sum(len(r["chunks"]) for r in lines)
# The same chunks as the format before it wrote them: absolute ns in chunk_ns, chunk_tokens.
compact = dict(separators=(",", ":"))
old = sum(len(json.dumps([t for t, _ in chunks(r)], **compact)) + len('"chunk_ns":,') +
          len(json.dumps([n for _, n in chunks(r)], **compact)) + len('"chunk_tokens":,')
          for r in lines)
zst_dir = os.path.join(work, "zstd")
zst = os.path.getsize(os.path.join(zst_dir, "requests.jsonl.zst"))
zst_tokens = json.load(open(os.path.join(zst_dir, "summary.json")))["total_output_tokens"]
print(f"{len(lines)} requests, {tokens} output tokens ({tokens / len(lines):.0f} per request)")
print(f"requests.jsonl:     {plain / tokens:6.2f} bytes/token ({plain / len(lines):.0f} per line)")
print(f"  chunks field:     {packed / tokens:6.2f} bytes/token "
      f"(chunk_ns + chunk_tokens before it: {old / tokens:.2f})")
print(f"  everything else:  {(plain - packed) / len(lines):6.0f} bytes/line")
print(f"requests.jsonl.zst: {zst / zst_tokens:6.2f} bytes/token")
PY
