#!/usr/bin/env bash
# How often does `tokenbench compare` call a change between two runs of one configuration?
# Starts one serve-sim with SIM_FLAGS, then for each of PAIRS pairs runs `tokenbench run` twice
# with RUN_FLAGS into WORK/aN and WORK/bN (seed N for both, or N and N + 1000 with `diff`),
# compares them with `compare --json -` and prints the figures called worse or better; the last
# line counts the pairs with any such false verdict (docs/EXPERIMENTS.md, "False changes between
# identical runs"). Loopback only.
#
#   scripts/compare-false-changes.sh BIN PAIRS same|diff "SIM_FLAGS" "RUN_FLAGS" [WORK]
#
# e.g. scripts/compare-false-changes.sh build/tokenbench 12 same \
#        "--ttft-ms 100 --itl-ms 10 --jitter-ms 3" \
#        "--num-prompts 300 --max-concurrency 16 --input-len 32 --output-len 16"
# A saved WORK can be compared again with another binary: COMPARE_ONLY=1 skips the runs.
set -euo pipefail

bin=$1
pairs=$2
mode=$3
sim_flags=$4
run_flags=$5
work=${6:-$(mktemp -d /tmp/compare-false-changes.XXXX)}
mkdir -p "$work"

if [ -z "${COMPARE_ONLY:-}" ]; then
  # shellcheck source=scripts/serve_sim.sh
  source "$(dirname "$0")/serve_sim.sh"
  trap stop_sim EXIT
  # shellcheck disable=SC2086 # the flags are words
  start_sim "$bin" "$work/sim.out" $sim_flags
  url=$SIM_URL
fi

false_pairs=0
for i in $(seq 1 "$pairs"); do
  if [ -z "${COMPARE_ONLY:-}" ]; then
    seed_b=$i
    [ "$mode" = diff ] && seed_b=$((i + 1000))
    rm -rf "$work/a$i" "$work/b$i"
    "$bin" run --base-url "$url" --output-dir "$work/a$i" --quiet --seed "$i" $run_flags \
      >/dev/null 2>&1
    "$bin" run --base-url "$url" --output-dir "$work/b$i" --quiet --seed "$seed_b" $run_flags \
      >/dev/null 2>&1
  fi
  "$bin" compare "$work/a$i" "$work/b$i" --json - >"$work/c$i.json"
  called=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
print(" ".join(f["name"] + ":" + f["verdict"] for f in c["figures"]
               if f["verdict"] in ("worse", "better")))' "$work/c$i.json")
  [ -n "$called" ] && false_pairs=$((false_pairs + 1))
  echo "pair $i: ${called:-no change}"
done
echo "false verdicts in $false_pairs of $pairs pairs ($work)"
