#!/usr/bin/env bash
# Many tasks: a graph of N (default 200) independent tasks with a no-op agent
# (`true`, one iteration each) run with --parallel 8, each in its own git worktree
# and branch and merged back. Reports agentloop's wall time per task and peak RSS,
# against the single-task loop: one `agentloop run` of the same no-op agent.
#
#   bench/tasks.sh [N] [PARALLEL]
set -euo pipefail
n=${1:-200}
par=${2:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop && go build -o "$tmp/bin/peakrss" ./bench/peakrss)
al="$tmp/bin/agentloop"
now() { date +%s.%N; }

mkdir "$tmp/repo" && cd "$tmp/repo"
git init -q -b main
printf '.agentloop/\n' >.gitignore
{
  echo "tasks:"
  for ((i = 1; i <= n; i++)); do echo "  - {id: t$i, prompt: no-op task $i}"; done
} >tasks.yaml
git add -A && git -c user.name=b -c user.email=b@b commit -q -m start

# the single-task loop, 20 times, for the per-task baseline
t0=$(now)
for ((i = 1; i <= 20; i++)); do "$al" run --agent-cmd true --max-iterations 1 -q >/dev/null; done
t1=$(now)
"$tmp/bin/peakrss" -- "$al" run --tasks tasks.yaml --parallel "$par" --agent-cmd true --max-iterations 1 -q >"$tmp/out.txt" 2>"$tmp/rss.txt" || true
t2=$(now)
grep -cE '^t[0-9]+ +(succeeded|completed) ' "$tmp/out.txt" | awk -v n="$n" '{printf "tasks succeeded: %d of %d\n", $1, n}'
cat "$tmp/rss.txt" | grep peakrss
awk -v n="$n" -v p="$par" -v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
  single = (t1 - t0) / 20; graph = (t2 - t1) / n
  printf "single-task loop (one run, one iteration): %.1f ms\n", single * 1000
  printf "task graph, %d tasks, --parallel %d: %.2fs, %.1f ms per task (worktree, loop, commit, merge-back)\n", n, p, t2 - t1, graph * 1000
  printf "ratio per task / single loop: %.2f (target <= 2)\n", graph / single
}'
