# Helpers shared by the benchmark harnesses (scripts/bench-fidelity.sh, scripts/bench-http2.sh).
# Sourced, not run.

# kv LINE KEY: the value of KEY=VALUE in a summary line.
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
# median N...: the median of numbers (the lower middle of an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# calc FORMAT EXPR: awk arithmetic, printed with FORMAT.
calc() { awk "BEGIN {printf \"$1\", $2}"; }
# json FILE KEY: a top-level number of summary.json.
json() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("nan" if v is None else v)' "$1" "$2"; }
# timed OUT CMD...: runs CMD under /usr/bin/time; OUT gets "wall user system maxrss_kib".
timed() {
  local out=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$out" "$@"
}
# cpu_of OUT / rss_of OUT: user + system seconds, and peak RSS KiB, of a `timed` run.
cpu_of() { awk '{printf "%.4f", $2 + $3}' "$1"; }
rss_of() { awk '{print $4}' "$1"; }
# engine_us_per_token SUMMARY: tokenbench's engine threads' CPU (checks.client.workers) per token.
engine_us_per_token() {
  python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
w = s["tokenbench"]["checks"]["client"]["workers"]
print("%.3f" % (sum(x["cpu_s"] for x in w) * 1e6 / s["total_output_tokens"]))' "$1"
}
