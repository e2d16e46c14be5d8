#!/usr/bin/env bash
# Stopping: (1) Ctrl-C while the agent has a child that ignores SIGTERM: every
# process gone and the state saved within the grace period plus 1 s; (2) an
# iteration timeout of 1 s with such children: the next iteration starts within
# 1 s plus the grace period. The grace period is AGENTLOOP_KILL_GRACE (default 5s).
#
#   bench/interrupt.sh [GRACE]    (default 2s)
set -euo pipefail
grace=${1:-2s}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/agentloop" ./cmd/agentloop && go build -o "$tmp/fakeagent" ./internal/fakeagent/cmd/fakeagent)
printf 'spawn-stubborn\nhang-stubborn\n' >"$tmp/plan.txt"
export FAKEAGENT_PLAN="$tmp/plan.txt" AGENTLOOP_KILL_GRACE=$grace
now() { date +%s.%N; }

mkdir "$tmp/int" && cd "$tmp/int"
export FAKEAGENT_DIR="$tmp/int/fa"
"$tmp/agentloop" run --agent-cmd "$tmp/fakeagent" -q >/dev/null &
loop=$!
until [ -s fa/pids ] && [ "$(wc -l <fa/pids)" -ge 2 ]; do sleep 0.01; done
t0=$(now)
kill -INT $loop
wait $loop || true
t1=$(now)
alive() {
  local p
  for p in $(cat fa/pids); do
    if kill -0 "$p" 2>/dev/null && ! grep -q '^[^)]*) Z' "/proc/$p/stat" 2>/dev/null; then return 0; fi
  done
  return 1
}
while alive; do sleep 0.01; done
t2=$(now)
grep -q '"status": "interrupted"' .agentloop/state/build.json
awk -v a="$t0" -v b="$t1" -v c="$t2" -v g="$grace" 'BEGIN {
  printf "Ctrl-C with a SIGTERM-ignoring child (grace %s): agentloop exited after %.3fs, every process gone after %.3fs, state: interrupted\n", g, b - a, c - a
}'

mkdir "$tmp/timeout" && cd "$tmp/timeout"
export FAKEAGENT_DIR="$tmp/timeout/fa"
"$tmp/agentloop" run --agent-cmd "$tmp/fakeagent" --iteration-timeout 1s --max-iterations 2 --failure-threshold 5 -q >/dev/null || true
awk -v g="$grace" '/"type":"iteration_started"/ { match($0, /"time":"[^"]*"/); t[++n] = substr($0, RSTART + 8, RLENGTH - 9) } END {
  cmd = "date -d " t[1] " +%s.%N"; cmd | getline a; close(cmd)
  cmd = "date -d " t[2] " +%s.%N"; cmd | getline b; close(cmd)
  printf "iteration timeout 1s with SIGTERM-ignoring children (grace %s): the next iteration started %.3fs after the first\n", g, b - a
}' .agentloop/runs/build/*/events.jsonl
