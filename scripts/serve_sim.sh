# shellcheck shell=bash
# Sourced by the scripts that start the built-in simulated server (demo, soak, the benches).
#   start_sim BIN LOG [SERVE-SIM FLAGS...]
# starts `BIN serve-sim --port 0 FLAGS` on a free loopback port, its output in LOG, and sets
# SIM_PID and SIM_URL once it listens; when it does not within 10 s, prints its log and exits 1.
#   stop_sim
# stops it (safe to call twice, or from an EXIT trap).
start_sim() {
  local bin=$1 log=$2
  shift 2
  "$bin" serve-sim --port 0 "$@" >"$log" 2>&1 &
  SIM_PID=$!
  SIM_URL=""
  for _ in $(seq 1 200); do
    SIM_URL=$(grep -o 'http://[0-9.]*:[0-9]*' "$log" | head -1 || true)
    [ -n "$SIM_URL" ] && return 0
    kill -0 "$SIM_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "serve-sim did not start:" >&2
  cat "$log" >&2
  exit 1
}

stop_sim() {
  [ -n "${SIM_PID:-}" ] || return 0
  kill "$SIM_PID" 2>/dev/null || true
  wait "$SIM_PID" 2>/dev/null || true
}
