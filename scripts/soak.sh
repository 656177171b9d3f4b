#!/usr/bin/env bash
# make soak: a long run against serve-sim at SOAK_RATE requests per second (at most SOAK_STREAMS at
# once) for SOAK_SECONDS, sampling the tokenbench client's resident memory and open file
# descriptors from /proc every SOAK_INTERVAL seconds into BUILD_DIR/soak.csv, then saying whether
# both stayed flat.
#
#   scripts/soak.sh [BUILD_DIR]   (env: SOAK_SECONDS=300 SOAK_RATE=2000 SOAK_STREAMS=2000
#                                  SOAK_INTERVAL=5)
#
# The client keeps no record in memory (they are folded into the figures as they are written), so
# its RSS must not grow with the run: "flat" compares the largest sample of the last fifth of the
# run with the largest of the reference window, minute 5 (300 to 360 s; for a run under 10
# minutes, the fifth after the first, as the first is warm-up: connections open, buffers grow).
# RSS may grow by at most SOAK_RSS_SLACK percent (default 10), descriptors by SOAK_FD_SLACK
# (default 16). The records are written zstd-compressed (about 1.5 GB an hour at 2,000 req/s).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
bin="$build/tokenbench"
seconds=${SOAK_SECONDS:-300}
streams=${SOAK_STREAMS:-2000}
rate=${SOAK_RATE:-2000}
interval=${SOAK_INTERVAL:-5}
rss_slack=${SOAK_RSS_SLACK:-10}
fd_slack=${SOAK_FD_SLACK:-16}
csv="$build/soak.csv"
results="$build/soak-results"
[ -x "$bin" ] || { echo "soak: $bin is missing (make build)" >&2; exit 2; }

# Each side holds one socket per stream, plus files and epoll/timer descriptors.
need=$((streams + 1024))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
  ulimit -n "$need" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
    echo "soak: open-file limit $(ulimit -n) is below the $need that $streams streams need" >&2
    exit 2
  fi
fi

sim_log=$(mktemp)
run_log="$build/soak-run.log"
run_pid=""
# shellcheck source=scripts/serve_sim.sh
source "$(dirname "$0")/serve_sim.sh"
cleanup() {
  [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null || true
  stop_sim
  wait 2>/dev/null || true
  rm -f "$sim_log"
}
trap cleanup EXIT

# Fixed timing, no engine model: every request is admitted at once and lives about
# ttft + output-len x itl = 0.6 s, so the client holds about 0.6 x SOAK_RATE streams.
start_sim "$bin" "$sim_log" --preset fixed --ttft-ms 100 --itl-ms 10 --threads 2 \
  --idle-timeout-s 0 --seed 1
sim_pid=$SIM_PID
url=$SIM_URL

"$bin" run --base-url "$url" --request-rate "$rate" --max-concurrency "$streams" \
  --duration "$seconds" --input-len 32 --output-len 50 --seed 1 --fail-fast 0 \
  --records-compress zstd \
  --output-dir "$results" --overwrite >"$run_log" 2>&1 &
run_pid=$!

echo "t_s,client_rss_kb,client_fds,server_rss_kb,server_fds,records_bytes" >"$csv"
start=$(date +%s)
sample() {  # pid -> "rss_kb fds", or nothing when the process is gone
  local rss fds
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 0
  fds=$(ls "/proc/$1/fd" 2>/dev/null | wc -l)
  echo "$rss $fds"
}
while kill -0 "$run_pid" 2>/dev/null; do
  c=$(sample "$run_pid")
  s=$(sample "$sim_pid")
  bytes=$(stat -c %s "$results/requests.jsonl.zst" 2>/dev/null || echo 0)
  [ -n "$c" ] && echo "$(($(date +%s) - start)),${c% *},${c#* },${s% *},${s#* },$bytes" >>"$csv"
  sleep "$interval"
done
status=0
wait "$run_pid" || status=$?
run_pid=""
echo "soak: tokenbench run exited $status after $(($(date +%s) - start)) s; samples in $csv"
[ $status -eq 0 ] || { tail -20 "$run_log" >&2; exit 1; }

# Windows by time: reference = minute 5 ([300, 360) s) when the run lasts 10 minutes or more,
# else [T/5, 2T/5); late = [4T/5, T]; T = the requested duration.
awk -F, -v T="$seconds" -v rs="$rss_slack" -v fs="$fd_slack" '
  NR == 1 { next }
  { lo = T >= 600 ? 300 : T / 5; hi = T >= 600 ? 360 : 2 * T / 5 }
  $1 >= lo && $1 < hi { if ($2 > er) er = $2; if ($3 > ef) ef = $3 }
  $1 >= 4 * T / 5 && $1 <= T { if ($2 > lr) lr = $2; if ($3 > lf) lf = $3 }
  { if ($3 > maxfd) maxfd = $3; if ($2 > maxrss) maxrss = $2 }
  END {
    if (!er || !lr) { print "soak: too few samples to compare"; exit 2 }
    rss_ok = lr <= er * (1 + rs / 100); fd_ok = lf <= ef + fs
    printf "client RSS: reference max %.1f MiB, late max %.1f MiB (%+.1f%%; peak %.1f MiB): %s\n",
      er / 1024, lr / 1024, (lr - er) * 100 / er, maxrss / 1024, rss_ok ? "flat" : "GREW"
    printf "client fds: reference max %d, late max %d (peak %d): %s\n", ef, lf, maxfd,
      fd_ok ? "flat" : "GREW"
    exit (rss_ok && fd_ok) ? 0 : 1
  }' "$csv"
