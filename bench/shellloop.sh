#!/usr/bin/env bash
# The per-iteration floor: a shell loop doing what agentloop does each
# iteration outside git with a no-op agent: a new iteration folder, the prompt
# written to a file and fed to `true` on stdin, its output to a log, and the
# state written to a temporary file, fsynced (`sync FILE`) and renamed.
# bench/loop.sh and bench/flat run it as their floor.
#
#   bench/shellloop.sh DIR FIRST COUNT    (iterations FIRST to FIRST+COUNT-1, in DIR)
set -euo pipefail
dir=$1
first=$2
last=$(($2 + $3 - 1))
mkdir -p "$dir/state"
for ((i = first; i <= last; i++)); do
  it=$(printf '%s/runs/iter-%03d' "$dir" "$i")
  mkdir -p "$it"
  printf 'Iteration %d of %d\n\nDo the task.\n' "$i" "$last" >"$it/prompt.md"
  true <"$it/prompt.md" >"$it/agent.log" 2>&1
  printf '{"version":1,"name":"bench","iteration":%d,"max_iterations":%d,"status":"running"}\n' "$i" "$last" >"$dir/state/bench.json.tmp"
  sync "$dir/state/bench.json.tmp"
  mv "$dir/state/bench.json.tmp" "$dir/state/bench.json"
done
