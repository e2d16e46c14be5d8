#!/usr/bin/env bash
# Memory: an agent that prints 1 GiB (by default). agentloop keeps the head and
# tail of the agent's log and parses its output line by line, so its peak RSS must
# stay under 64 MiB whatever the agent prints. peakrss reports the largest RSS of
# agentloop and the processes it waited for (the fake agent streams in 64 KiB
# chunks, so the figure is agentloop's).
#
#   bench/flood.sh [SIZE]     (default 1G; K, M, G suffixes)
set -euo pipefail
size=${1:-1G}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/agentloop" ./cmd/agentloop &&
  go build -o "$tmp/fakeagent" ./internal/fakeagent/cmd/fakeagent &&
  go build -o "$tmp/peakrss" ./bench/peakrss)
printf 'flood %s\n' "$size" >"$tmp/plan.txt"
cd "$tmp"
echo "agent prints $size; agentloop:"
FAKEAGENT_PLAN="$tmp/plan.txt" FAKEAGENT_DIR="$tmp/fa" \
  "$tmp/peakrss" -- "$tmp/agentloop" run --agent-cmd "$tmp/fakeagent" --max-iterations 1 -q
ls -l .agentloop/runs/build/*/iter-001/agent.log | awk '{print "agent.log kept: " $5 " bytes (head and tail)"}'
echo "for comparison, a shell loop keeping the last MiB of the same output (tail -c):"
"$tmp/peakrss" -- sh -c "FAKEAGENT_PLAN='$tmp/plan.txt' FAKEAGENT_DIR='$tmp/fa2' '$tmp/fakeagent' </dev/null | tail -c 1048576 >'$tmp/tail.log'"
