#!/usr/bin/env bash
# Many tasks: a graph of N (default 200) independent tasks, run with --parallel P
# (default 8) in a repository of FILES tracked files (default 20). Each task's
# agent writes one file of its own (one iteration, no gate), so every task has
# work to commit and merge back; each task runs in its own git worktree and
# branch, is merged as soon as it is done, and its worktree is then removed.
#
# Two floors, measured in the same run on a repository made the same way:
#   - the single-task loop: one `agentloop run` of the same agent in the same
#     repository, a process of its own (10 times);
#   - git alone: a shell loop doing what a task's git work is, one task after
#     the other, FLOOR_N times (default N, at most 500; half before the graph,
#     half after): `git worktree add` of a new branch, the agent's file
#     written, `git add -A` and `git commit` in the worktree, `git merge
#     --no-ff` of the branch into main, the worktree and the branch removed.
#
# Reports agentloop's wall time per task against both floors, its peak RSS
# (and its RSS sampled over the first and the last tenth of the graph's time),
# the time per task of the first and the last tenth of the merges (from the
# merge commits' times), and the peak disk of the task worktrees, sampled every
# 0.5 s: the most worktrees at once and their size, against one checkout of
# the repository (target: at most PARALLEL + 1 worktrees, whatever N).
#
# With DEADLINE=SECONDS, the graph is interrupted (SIGINT) after that long if
# it is still running, and the figures are of the tasks merged until then.
#
#   bench/tasks.sh [N] [PARALLEL] [FILES]
#   FLOOR_N=40 DEADLINE=3600 bench/tasks.sh 10000 4 2000
set -euo pipefail
n=${1:-200}
par=${2:-8}
files=${3:-20}
floor_n=${FLOOR_N:-$((n < 500 ? n : 500))}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'kill "${sampler:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop && go build -o "$tmp/bin/peakrss" ./bench/peakrss)
al="$tmp/bin/agentloop"
now() { date +%s.%N; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$root" rev-parse --short HEAD)"
# The agent: one file named after its worktree (the task's id), nothing else.
agent='sh -c '\''cat >/dev/null; echo done > "task-$(basename "$PWD").txt"'\'''
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b

# repo DIR: a repository of FILES tracked Go files in 50 folders, committed.
repo() {
  mkdir "$1" && cd "$1"
  git init -q -b main
  git config gc.auto 0
  printf '.agentloop/\n' >.gitignore
  for ((i = 0; i < 50 && i < files; i++)); do mkdir -p "src/d$i"; done
  for ((i = 0; i < files; i++)); do
    d="src/d$((i % 50))"
    printf 'package p\n\n// file %d of the benchmark repository\nvar V%d = %d\n' "$i" "$i" "$i" >"$d/f$i.go"
  done
  git add -A && git commit -q -m start
}

# The floor of git alone, in a repository of its own: floor FROM TO does its
# tasks FROM to TO and adds their time to floor_s. Half of them run before the
# graph, half after, so that both see the machine's load of the time.
repo "$tmp/floor"
floor_s=0
floor() {
  local a b i w
  a=$(now)
  for ((i = $1; i <= $2; i++)); do
    w="$tmp/floor-wt/t$i"
    git -C "$tmp/floor" worktree add -q -b "floor/t$i" "$w" main
    echo done >"$w/task-t$i.txt"
    git -C "$w" add -A
    git -C "$w" commit -q -m "task t$i"
    git -C "$tmp/floor" merge -q --no-ff -m "Merge branch floor/t$i" "floor/t$i"
    git -C "$tmp/floor" worktree remove --force "$w"
    git -C "$tmp/floor" branch -q -D "floor/t$i"
  done
  b=$(now)
  floor_s=$(awk -v s="$floor_s" -v a="$a" -v b="$b" 'BEGIN {print s + b - a}')
}
floor 1 $((floor_n / 2))

repo "$tmp/repo"
{
  echo "tasks:"
  for ((i = 1; i <= n; i++)); do echo "  - {id: t$i, prompt: task $i}"; done
} >tasks.yaml
git add tasks.yaml && git commit -q -m tasks
checkout_kib=$(du -sk --exclude=.git --exclude=.agentloop . | cut -f1)

# the single-task loop, 10 times, for the per-task baseline
t0=$(now)
for ((i = 1; i <= 10; i++)); do "$al" run --agent-cmd "$agent" --max-iterations 1 -q >/dev/null; done
t1=$(now)
git clean -qfd -e .agentloop && git checkout -q .
start=$(git rev-parse HEAD)

# The graph, its worktrees' disk and agentloop's RSS sampled while it runs:
# a line per sample (seconds since the start, worktrees, their KiB, RSS KiB).
wts=.agentloop/worktrees/tasks
t1=$(now)
"$tmp/bin/peakrss" -- "$al" run --tasks tasks.yaml --parallel "$par" --agent-cmd "$agent" --max-iterations 1 -q >"$tmp/out.txt" 2>"$tmp/err.txt" &
pr=$!
(
  while kill -0 "$pr" 2>/dev/null; do
    c=0 k=0 rss=0
    if [ -d "$wts" ]; then
      c=$(find "$wts" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l) || c=0
      [ "$c" -gt 0 ] && { k=$(du -sk "$wts" 2>/dev/null | cut -f1) || k=0; }
    fi
    p=$(pgrep -P "$pr" -x agentloop | head -1) || p=
    [ -n "$p" ] && rss=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null) || true
    echo "$(awk -v a="$t1" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}') $c ${k:-0} ${rss:-0}" >>"$tmp/samples.txt"
    sleep 0.5
  done
) &
sampler=$!
if [ -n "${DEADLINE:-}" ]; then
  (
    sleep "$DEADLINE"
    p=$(pgrep -P "$pr" -x agentloop | head -1) || exit 0
    echo "deadline: the graph is interrupted after ${DEADLINE}s" >"$tmp/deadline.txt"
    kill -INT "$p"
  ) &
  deadline=$!
fi
wait "$pr" && code=0 || code=$?
t2=$(now)
kill "${deadline:-}" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
cat "$tmp/deadline.txt" 2>/dev/null || true
floor $((floor_n / 2 + 1)) "$floor_n"
[ "$(git -C "$tmp/floor" rev-list --merges --count main)" = "$floor_n" ] || echo "the floor merged $(git -C "$tmp/floor" rev-list --merges --count main) of $floor_n"
touch "$tmp/samples.txt"

merged=$(git rev-list --merges --first-parent "$start..main" | wc -l)
present=$(ls task-t*.txt 2>/dev/null | wc -l)
left=$(git branch --list 'agentloop/*' | wc -l)
echo "exit code: $code; tasks merged: $merged of $n (files on main: $present); task branches left: $left"
grep peakrss "$tmp/err.txt" || true
runs_kib=$(du -sk .agentloop/runs | cut -f1)
state_kib=$(du -sk .agentloop/graphs 2>/dev/null | cut -f1) || state_kib=0
git_kib=$(du -sk .git | cut -f1)
# the merge commits' times, oldest first, for the first and the last tenth
git log --first-parent --merges --reverse --format=%ct "$start..main" >"$tmp/merges.txt"
awk -v n="$n" -v done="$merged" -v p="$par" -v f="$files" -v fn="$floor_n" -v fs="$floor_s" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
  -v ck="$checkout_kib" -v rk="$runs_kib" -v sk="$state_kib" -v gk="$git_kib" -v samples="$tmp/samples.txt" -v merges="$tmp/merges.txt" 'BEGIN {
  per = done > 0 ? done : n
  single = (t1 - t0) / 10; graph = (t2 - t1) / per; floor = fs / fn; total = t2 - t1
  printf "repository: %d files, one checkout %.1f MiB\n", f, ck / 1024
  printf "floor, git alone (worktree add, commit, merge, worktree and branch removed; %d tasks one after the other): %.1f ms per task\n", fn, floor * 1000
  printf "single-task loop (one agentloop run, one iteration): %.1f ms\n", single * 1000
  printf "task graph, %d tasks, --parallel %d: %d merged in %.1fs, %.1f ms per task merged (worktree, loop, commit, merge, removal)\n", n, p, done, total, graph * 1000
  printf "ratio per task / git floor: %.2f; per task / single loop: %.2f\n", graph / floor, graph / single
  while ((getline line < samples) > 0) {
    split(line, a, " ")
    if (a[2] > mn) mn = a[2]
    if (a[3] > mk) mk = a[3]
    if (a[1] <= total / 10 && a[4] > r_first) r_first = a[4]
    if (a[1] >= total * 9 / 10 && a[4] > r_last) r_last = a[4]
    ns++
  }
  printf "peak worktrees at once: %d (target <= %d) in %d samples; peak worktree disk %.1f MiB = %.2f checkouts\n", mn, p + 1, ns, mk / 1024, mk / ck
  printf "RSS sampled: at most %.1f MiB in the first tenth of the time, %.1f MiB in the last tenth\n", r_first / 1024, r_last / 1024
  m = 0
  while ((getline line < merges) > 0) ct[++m] = line
  if (m >= 20) {
    k = int(m / 10)
    first = (ct[k + 1] - ct[1]) / k; last = (ct[m] - ct[m - k]) / k
    printf "merges: %d; the first tenth %.1f ms per task, the last tenth %.1f ms per task (ratio %.2f)\n", m, first * 1000, last * 1000, (first > 0 ? last / first : 0)
  }
  printf "at the end: run folders %.1f MiB (%.1f KiB per task), graph state %.1f MiB, .git %.1f MiB\n", rk / 1024, rk / per, sk / 1024, gk / 1024
}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
