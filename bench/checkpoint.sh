#!/usr/bin/env bash
# Checkpoint cost: agentloop's per-iteration time in git repositories of growing
# size, against git's own floor for one snapshot of the work tree (copy the
# index, `git add -A`, `git write-tree`, `git commit-tree`) and against the same
# agentloop loop outside git, all in the same run.
#
#   bench/checkpoint.sh [ITERATIONS] [SIZES] [ROUNDS]
#     (default 20 "0 2000 20000 100000 u20000" 5)
#
# A size is a number of tracked files; uNNN is a repository of 2000 tracked files
# plus NNN untracked ones. Two agents: `cat` (changes nothing) and one that edits
# a file each iteration. The three measures of a size (floor, agentloop, agentloop
# outside git) are taken one after the other, ROUNDS times, so that a shared
# machine's load weighs on them alike. Prints the median ms per iteration of each,
# the median over the rounds of the ratio of agentloop to the floor, and of the
# git ratio: what agentloop in git costs beyond the same loop outside git, against
# the floor. The load average is printed before and after.
set -euo pipefail
n=${1:-20}
sizes=${2:-"0 2000 20000 100000 u20000"}
rounds=${3:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop)
al="$tmp/bin/agentloop"
now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }'; }

# files DIR COUNT PREFIX: COUNT small files spread over directories of 100.
files() {
  local dir=$1 count=$2 prefix=$3
  awk -v dir="$dir" -v count="$count" -v prefix="$prefix" 'BEGIN {
    for (i = 0; i < count; i++) {
      d = sprintf("%s/%s%04d", dir, prefix, int(i / 100))
      if (i % 100 == 0) system("mkdir -p " d)
      f = sprintf("%s/f%05d.txt", d, i)
      printf "file %d\n", i > f
      close(f)
    }
  }'
}

repo() {
  local dir=$1 size=$2 tracked untracked=0
  case $size in
    u*) tracked=2000 untracked=${size#u} ;;
    *) tracked=$size ;;
  esac
  mkdir -p "$dir" && cd "$dir"
  git init -q -b main
  printf '.agentloop/\n' >.gitignore
  echo "edited 0" >edited.txt
  files "$dir" "$tracked" t
  # No automatic gc: it would pack the objects in the background during the measures.
  git add -A && git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -q -m start
  [ "$untracked" -gt 0 ] && files "$dir" "$untracked" u
  cd - >/dev/null
}

# floor DIR EDIT: git's own cost of one snapshot per iteration.
floor() {
  local dir=$1 edit=$2 idx="$tmp/floor-index"
  cd "$dir"
  local t0 t1
  t0=$(now)
  for ((i = 1; i <= n; i++)); do
    [ "$edit" = 1 ] && echo "edited $i" >edited.txt
    cp .git/index "$idx"
    GIT_INDEX_FILE=$idx git add -A
    tree=$(GIT_INDEX_FILE=$idx git write-tree)
    echo floor | git -c user.name=b -c user.email=b@b commit-tree "$tree" -p HEAD >/dev/null
  done
  t1=$(now)
  rm -f "$idx"
  cd - >/dev/null
  ms "$t0" "$t1"
}

# loop DIR EDIT: agentloop's per-iteration time (whole process, n iterations).
loop() {
  local dir=$1 edit=$2 agent=cat
  [ "$edit" = 1 ] && agent='sh -c "date +%N >edited.txt"'
  cd "$dir"
  rm -rf .agentloop
  local t0 t1
  t0=$(now)
  "$al" run --agent-cmd "$agent" --context "a no-op task" --max-iterations "$n" -q >/dev/null 2>&1
  t1=$(now)
  cd - >/dev/null
  ms "$t0" "$t1"
}

# median: the median of the numbers on stdin.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "load average before: $(load); $n iterations per measure, $rounds rounds, medians"
printf '%-8s %-6s %10s %10s %10s %8s %9s\n' size agent floor agentloop "no git" ratio "git ratio"
for size in $sizes; do
  dir="$tmp/repo-$size"
  repo "$dir" "$size"
  nogit="$tmp/nogit-$size"
  mkdir -p "$nogit" && echo "edited 0" >"$nogit/edited.txt"
  for edit in 0 1; do
    rows=()
    for ((r = 1; r <= rounds; r++)); do
      f=$(floor "$dir" "$edit")
      a=$(loop "$dir" "$edit")
      g=$(loop "$nogit" "$edit")
      rows+=("$f $a $g")
    done
    col() { printf '%s\n' "${rows[@]}" | awk "{ print $1 }" | median; }
    name=cat
    [ "$edit" = 1 ] && name=edit
    printf '%-8s %-6s %10s %10s %10s %8s %9s\n' "$size" "$name" "$(col '$1')" "$(col '$2')" "$(col '$3')" \
      "$(col '$2 / $1')" "$(col '($2 - $3) / $1')"
  done
  rm -rf "$dir"
done
echo "load average after: $(load)"
