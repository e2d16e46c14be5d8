#!/usr/bin/env bash
# Per-iteration overhead of agentloop against a plain shell loop doing the same
# work (bench/shellloop.sh): a no-op agent (`true`) with the prompt on stdin, its output to a log, and
# the state written atomically (fsync + rename) after every iteration.
#
#   bench/loop.sh [ITERATIONS] [ROUNDS]     (default 500 3)
#
# The shell loop and agentloop run one after the other, ROUNDS times, so the
# machine's load weighs on both alike. Prints per round the wall time and CPU
# time (user + system, bench/peakrss) per iteration of each, the median of the
# ratios agentloop / shell (target <= 1.0), and the load average before and
# after. With strace installed, it then counts agentloop's fsyncs per iteration
# (fsync and fdatasync, on a run of min(ITERATIONS, 50) iterations), by what
# they make durable (target <= 2; the shell loop does 1).
set -euo pipefail
n=${1:-500}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop && go build -o "$tmp/bin/peakrss" ./bench/peakrss)
# A home of its own (after the build, which keeps the user's Go cache): the
# runs read no configuration of the user's and write their spend to a ledger
# of their own, not to the user's.
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_STATE_HOME="$tmp/home/.local/state"
mkdir -p "$HOME"

# measure OUT COMMAND...: appends "wall cpu" (seconds) of COMMAND to OUT.
measure() {
  local out=$1
  shift
  "$tmp/bin/peakrss" -- "$@" 2>"$tmp/peak.txt" >/dev/null || { cat "$tmp/peak.txt" >&2; exit 1; }
  sed -n 's/^peakrss: exit 0, wall \([0-9.]*\)s, peak RSS [0-9.]* MiB, cpu \([0-9.]*\)s$/\1 \2/p' "$tmp/peak.txt" >>"$out"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$tmp/shell.txt"
: >"$tmp/al.txt"
for ((r = 1; r <= rounds; r++)); do
  rm -rf "$tmp/shell" "$tmp/al"
  mkdir -p "$tmp/shell" "$tmp/al"
  measure "$tmp/shell.txt" bash "$root/bench/shellloop.sh" "$tmp/shell" 1 "$n"
  (cd "$tmp/al" && measure "$tmp/al.txt" "$tmp/bin/agentloop" run --agent-cmd true --max-iterations "$n" -q)
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v n="$n" -v rounds="$rounds" '
  FNR == 1 { f++ }
  { wall[f, FNR] = $1; cpu[f, FNR] = $2 }
  END {
    printf "%d iterations, ms per iteration (wall, cpu):\n", n
    for (i = 1; i <= rounds; i++) {
      ratio[i] = wall[2, i] / wall[1, i]
      printf "round %d: shell loop %.2f, %.2f; agentloop %.2f, %.2f; ratio %.3f\n", i,
        wall[1, i] * 1000 / n, cpu[1, i] * 1000 / n, wall[2, i] * 1000 / n, cpu[2, i] * 1000 / n, ratio[i]
    }
    for (i = 1; i <= rounds; i++) for (j = i + 1; j <= rounds; j++) if (ratio[j] < ratio[i]) { t = ratio[i]; ratio[i] = ratio[j]; ratio[j] = t }
    m = rounds % 2 ? ratio[(rounds + 1) / 2] : (ratio[rounds / 2] + ratio[rounds / 2 + 1]) / 2
    printf "ratio agentloop / shell loop, median of %d: %.3f (target <= 1.0)\n", rounds, m
  }' "$tmp/shell.txt" "$tmp/al.txt"

if ! command -v strace >/dev/null; then
  echo "fsyncs: not counted (strace is not installed)"
  exit 0
fi
k=$((n < 50 ? n : 50))
rm -rf "$tmp/al" && mkdir -p "$tmp/al"
(cd "$tmp/al" && strace -f -y -qq -e trace=fsync,fdatasync -o "$tmp/fsync.txt" "$tmp/bin/agentloop" run --agent-cmd true --max-iterations "$k" -q >/dev/null 2>&1)
# Name each fsync by what it makes durable: the file or directory, with the
# run's id and an iteration's number taken out.
sed -n 's/.*f\(data\)\{0,1\}sync(\([0-9]*\)<\([^>]*\)>.*/\3/p' "$tmp/fsync.txt" |
  sed -e "s#^$tmp/al/##" -e 's#/[0-9]\{8\}-[0-9]\{6\}-[0-9a-f]*#/RUN#' -e 's#iter-[0-9]*#iter-N#' -e 's#\.tmp[^/]*$#.tmp#' |
  sort | uniq -c | sort -rn | awk -v k="$k" '
    { total += $1; lines[NR] = sprintf("  %6.2f  %s", $1 / k, $2) }
    END {
      printf "fsyncs per iteration: %.2f (%d in %d iterations; target <= 2, the shell loop 1), by what they make durable:\n", total / k, total, k
      for (i = 1; i <= NR; i++) print lines[i]
    }'
