#!/usr/bin/env python3
"""report.html at scale: 100,000 requests over an hour, built by `tokenbench report` and drawn in
headless Chromium three times; prints the file size, the build time and the page's own build
time (data-build-ms: parse the data, build every chart). Usage:
    python3 bench/report/page_at_scale.py build/tokenbench
"""
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time


def write_requests(path, n=100000, span_ns=3600 * 10**9):
    random.seed(1)
    with open(path, "w") as f:
        for i in range(n):
            scheduled = i * span_ns // n
            sent = scheduled + 20000
            first = sent + int(random.lognormvariate(18, 0.5))  # TTFT about 65 ms
            chunks = [first + k * 20 * 10**6 for k in range(32)]
            ok = random.random() > 0.01
            f.write(json.dumps({
                "id": i, "phase": "measure", "streamed": True, "scheduled_ns": scheduled,
                "sent_ns": sent, "headers_ns": sent + 10**6,
                "first_token_ns": first if ok else None,
                "last_token_ns": chunks[-1] if ok else None, "done_ns": chunks[-1],
                "chunk_ns": chunks if ok else [], "chunk_tokens": [1] * 32 if ok else [],
                "prompt_tokens": 512, "prompt_source": "usage", "output_tokens": 32 if ok else 0,
                "output_source": "usage", "output_chars": 100, "http_status": 200 if ok else 503,
                "error": "none" if ok else "http_5xx", "error_message": "" if ok else "busy",
                "finish_reason": "length" if ok else ""}, separators=(",", ":")) + "\n")


def build_ms(html):
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(["chromium", "--headless=new", "--disable-gpu", "--no-sandbox",
                              "--user-data-dir=" + profile, "--virtual-time-budget=10000",
                              "--dump-dom", "file://" + os.path.abspath(html)],
                             capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'data-charts="(\d+)" data-charts-drawn="(\d+)"[^>]*data-build-ms="(\d+)"', dom)
    if not m:
        sys.exit("the page did not finish: " + dom[:300])
    return int(m.group(3)), m.group(1), m.group(2)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/tokenbench"
    with tempfile.TemporaryDirectory() as d:
        write_requests(os.path.join(d, "requests.jsonl"))
        t = time.monotonic()
        subprocess.run([binary, "report", d], check=True, stdout=subprocess.DEVNULL)
        report_s = time.monotonic() - t
        html = os.path.join(d, "report.html")
        runs = [build_ms(html) for _ in range(3)]
        print(f"requests.jsonl {os.path.getsize(os.path.join(d, 'requests.jsonl')) / 1e6:.1f} MB, "
              f"report.html {os.path.getsize(html) / 1e6:.2f} MB, `tokenbench report` {report_s:.1f} s")
        print(f"page build (median of 3): {statistics.median(r[0] for r in runs)} ms, "
              f"charts drawn {runs[0][2]} of {runs[0][1]}")


if __name__ == "__main__":
    main()
