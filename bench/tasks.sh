#!/usr/bin/env bash
# Many tasks: a graph of N (default 200) independent tasks, run with --parallel P
# (default 8) in a repository of FILES tracked files (default 20). Each task's
# agent writes one file of its own (one iteration, no gate), so every task has
# work to commit and merge back; each task runs in its own git worktree and
# branch, is merged as soon as it is done, and its worktree is then removed.
#
# Reports agentloop's wall time per task and peak RSS against the single-task
# loop (one `agentloop run` of the same agent in the same repository, a process
# of its own), and the peak disk of the task worktrees, sampled every 0.2 s:
# the most worktrees at once and their size, against one checkout of the
# repository (target: at most PARALLEL + 1 worktrees).
#
#   bench/tasks.sh [N] [PARALLEL] [FILES]
set -euo pipefail
n=${1:-200}
par=${2:-8}
files=${3:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill "${sampler:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop && go build -o "$tmp/bin/peakrss" ./bench/peakrss)
al="$tmp/bin/agentloop"
now() { date +%s.%N; }
# The agent: one file named after its worktree (the task's id), nothing else.
agent='sh -c '\''cat >/dev/null; echo done > "task-$(basename "$PWD").txt"'\'''

mkdir "$tmp/repo" && cd "$tmp/repo"
git init -q -b main
printf '.agentloop/\n' >.gitignore
for ((i = 0; i < files; i++)); do
  d="src/d$((i % 50))"
  mkdir -p "$d"
  printf 'package p\n\n// file %d of the benchmark repository\nvar V%d = %d\n' "$i" "$i" "$i" >"$d/f$i.go"
done
{
  echo "tasks:"
  for ((i = 1; i <= n; i++)); do echo "  - {id: t$i, prompt: task $i}"; done
} >tasks.yaml
git add -A && git -c user.name=b -c user.email=b@b commit -q -m start
checkout_kib=$(du -sk --exclude=.git --exclude=.agentloop . | cut -f1)

# the single-task loop, 10 times, for the per-task baseline
t0=$(now)
for ((i = 1; i <= 10; i++)); do "$al" run --agent-cmd "$agent" --max-iterations 1 -q >/dev/null; done
t1=$(now)
git clean -qfd -e .agentloop && git checkout -q .

# the worktrees' disk, sampled while the graph runs
wts=.agentloop/worktrees/tasks
(
  max_n=0 max_k=0
  while :; do
    if [ -d "$wts" ]; then
      k=$(du -sk "$wts" 2>/dev/null | cut -f1) || k=0
      c=$(find "$wts" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l) || c=0
      [ "${k:-0}" -gt "$max_k" ] && max_k=$k
      [ "$c" -gt "$max_n" ] && max_n=$c
      echo "$max_n $max_k" >"$tmp/disk.txt"
    fi
    sleep 0.2
  done
) &
sampler=$!
t1=$(now)
"$tmp/bin/peakrss" -- "$al" run --tasks tasks.yaml --parallel "$par" --agent-cmd "$agent" --max-iterations 1 -q >"$tmp/out.txt" 2>"$tmp/err.txt" && code=0 || code=$?
t2=$(now)
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
read -r max_n max_k <"$tmp/disk.txt" || { max_n=0 max_k=0; }

merged=$(git log --oneline --format=%s main | grep -c '^Merge branch .agentloop/tasks/' || true)
present=$(ls task-t*.txt 2>/dev/null | wc -l)
left=$(git branch --list 'agentloop/*' | wc -l)
echo "exit code: $code; tasks merged: $merged of $n (files on main: $present); task branches left: $left"
grep peakrss "$tmp/err.txt" || true
runs_kib=$(du -sk .agentloop/runs | cut -f1)
awk -v n="$n" -v p="$par" -v f="$files" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v mn="$max_n" -v mk="$max_k" -v ck="$checkout_kib" -v rk="$runs_kib" 'BEGIN {
  single = (t1 - t0) / 10; graph = (t2 - t1) / n
  printf "repository: %d files, one checkout %.1f MiB\n", f, ck / 1024
  printf "single-task loop (one run, one iteration): %.1f ms\n", single * 1000
  printf "task graph, %d tasks, --parallel %d: %.1fs, %.1f ms per task (worktree, loop, commit, merge, removal)\n", n, p, t2 - t1, graph * 1000
  printf "ratio per task / single loop: %.2f\n", graph / single
  printf "peak worktrees at once: %d (target <= %d); peak worktree disk %.1f MiB = %.2f checkouts\n", mn, p + 1, mk / 1024, mk / ck
  printf "run folders at the end: %.1f MiB (%.1f KiB per task)\n", rk / 1024, rk / n
}'
