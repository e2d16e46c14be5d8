#!/usr/bin/env bash
# The output path: an agent that prints SIZE (default 1G) in each of three
# shapes, read by agentloop (parsed for usage, redacted, kept in the bounded
# agent.log), against the floor of `tee` writing the same output to a file on
# the same disk, in the same run.
#
#   bench/output.sh [SIZE] [ROUNDS] [SHAPES]
#     (default 1G 3 "lines raw deltas"; SIZE takes K, M, G suffixes)
#
# Shapes: lines (66-byte text lines, read as text), raw (no newline at all,
# read as text), deltas (Claude stream-json with partial messages: ~250-byte
# text-delta records, read as claude-stream-json). The floor and agentloop run
# one after the other, ROUNDS times per shape, so the machine's load weighs on
# both alike. Prints per run the wall time, throughput, peak RSS (bench/peakrss:
# the largest of the process and the ones it waited for) and CPU time (the
# agent's included: it is the same program in both), and per shape the
# median of agentloop's throughput over tee's (target >= 0.50) and the largest
# peak RSS (target < 32 MiB). The load average is printed before and after.
set -euo pipefail
size=${1:-1G}
rounds=${2:-3}
shapes=${3:-"lines raw deltas"}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/agentloop" ./cmd/agentloop &&
  go build -o "$tmp/bin/fakeagent" ./internal/fakeagent/cmd/fakeagent &&
  go build -o "$tmp/bin/peakrss" ./bench/peakrss)
# A home of its own (after the build, which keeps the user's Go cache): the
# runs read no configuration of the user's and write their spend to a ledger
# of their own, not to the user's.
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_STATE_HOME="$tmp/home/.local/state"
mkdir -p "$HOME"
bin=$tmp/bin

# measure OUT COMMAND...: runs COMMAND under peakrss, appends "wall rss cpu" to OUT.
measure() {
  local out=$1
  shift
  "$bin/peakrss" -- "$@" 2>"$tmp/peak.txt" >/dev/null || { cat "$tmp/peak.txt" >&2; exit 1; }
  sed -n 's/^peakrss: exit 0, wall \([0-9.]*\)s, peak RSS \([0-9.]*\) MiB, cpu \([0-9.]*\)s$/\1 \2 \3/p' "$tmp/peak.txt" >>"$out"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-9s %9s %10s %9s %8s\n' shape who wall_s MB/s rss_MiB cpu_s
for shape in $shapes; do
  case $shape in
    lines) verb=flood format=text ;;
    raw) verb=flood-raw format=text ;;
    deltas) verb=flood-deltas format=claude-stream-json ;;
    *) echo "unknown shape $shape" >&2; exit 2 ;;
  esac
  dir=$tmp/$shape
  mkdir -p "$dir"
  printf '%s %s\n' "$verb" "$size" >"$dir/plan.txt"
  cat >"$dir/agentloop.yaml" <<YAML
agents:
  flood: {cmd: [$bin/fakeagent], format: $format}
procedures:
  build:
    agent: flood
    limits: {max_iterations: 1}
YAML
  : >"$dir/tee.txt"
  : >"$dir/al.txt"
  for ((r = 1; r <= rounds; r++)); do
    rm -rf "$dir/fa" "$dir/tee.out" "$dir/.agentloop"
    measure "$dir/tee.txt" sh -c "FAKEAGENT_PLAN='$dir/plan.txt' FAKEAGENT_DIR='$dir/fa' '$bin/fakeagent' </dev/null | tee '$dir/tee.out'"
    rm -rf "$dir/fa" "$dir/tee.out"
    (cd "$dir" && FAKEAGENT_PLAN="$dir/plan.txt" FAKEAGENT_DIR="$dir/fa" measure "$dir/al.txt" "$bin/agentloop" run -q --context 'print it')
    bytes=$(stat -c %s "$dir"/.agentloop/runs/build/*/iter-001/agent.log)
    [ "$bytes" -le $((2 * 1024 * 1024 + 100)) ] || { echo "agent.log is $bytes bytes, more than its head and tail" >&2; exit 1; }
  done
  total=$("$bin/fakeagent" --plan "$dir/plan.txt" </dev/null 2>/dev/null | wc -c)
  awk -v shape="$shape" -v total="$total" -v rounds="$rounds" '
    FNR == 1 { f++ }
    { wall[f, FNR] = $1; rss[f, FNR] = $2; cpu[f, FNR] = $3 }
    END {
      for (i = 1; i <= rounds; i++) {
        printf "%-7s %-9s %9.3f %10.1f %9.1f %8.2f\n", shape, "tee", wall[1, i], total / wall[1, i] / 1e6, rss[1, i], cpu[1, i]
        printf "%-7s %-9s %9.3f %10.1f %9.1f %8.2f\n", shape, "agentloop", wall[2, i], total / wall[2, i] / 1e6, rss[2, i], cpu[2, i]
        ratio[i] = wall[1, i] / wall[2, i]
        if (rss[2, i] > peak) peak = rss[2, i]
      }
      # median of the ratios
      for (i = 1; i <= rounds; i++) for (j = i + 1; j <= rounds; j++) if (ratio[j] < ratio[i]) { t = ratio[i]; ratio[i] = ratio[j]; ratio[j] = t }
      m = rounds % 2 ? ratio[(rounds + 1) / 2] : (ratio[rounds / 2] + ratio[rounds / 2 + 1]) / 2
      printf "%-7s %d bytes: throughput agentloop/tee median %.2f (target >= 0.50), agentloop peak RSS %.1f MiB (target < 32)\n", shape, total, m, peak
    }' "$dir/tee.txt" "$dir/al.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
