#!/usr/bin/env bash
# Per-iteration overhead of agentloop against a plain shell loop doing the same
# work: a no-op agent (`true`) with the prompt on stdin, its output to a log, and
# the state written atomically (fsync + rename) after every iteration.
#
#   bench/loop.sh [ITERATIONS]     (default 500)
#
# Prints both wall times and the ratio agentloop / shell.
set -euo pipefail
n=${1:-500}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop)

shell_loop() {
  local dir=$1
  mkdir -p "$dir/state"
  for ((i = 1; i <= n; i++)); do
    it=$(printf '%s/runs/iter-%03d' "$dir" "$i")
    mkdir -p "$it"
    printf 'Iteration %d of %d\n\nDo the task.\n' "$i" "$n" >"$it/prompt.md"
    true <"$it/prompt.md" >"$it/agent.log" 2>&1
    printf '{"version":1,"name":"bench","iteration":%d,"max_iterations":%d,"status":"running"}\n' "$i" "$n" >"$dir/state/bench.json.tmp"
    sync "$dir/state/bench.json.tmp"
    mv "$dir/state/bench.json.tmp" "$dir/state/bench.json"
  done
}

now() { date +%s.%N; }

mkdir -p "$tmp/shell" "$tmp/agentloop"
t0=$(now)
shell_loop "$tmp/shell"
t1=$(now)
(cd "$tmp/agentloop" && "$tmp/bin/agentloop" run --agent-cmd true --max-iterations "$n" -q >/dev/null)
t2=$(now)

awk -v n="$n" -v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
  shell = t1 - t0; al = t2 - t1
  printf "iterations:  %d\n", n
  printf "shell loop:  %.3fs (%.2f ms/iteration)\n", shell, shell * 1000 / n
  printf "agentloop:   %.3fs (%.2f ms/iteration)\n", al, al * 1000 / n
  printf "ratio:       %.3f (agentloop / shell; target <= 1.25)\n", al / shell
}'
