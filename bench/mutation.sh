#!/usr/bin/env bash
# Mutation testing: the share of small deliberate bugs the test suite catches,
# per package, for the packages that decide, run and record a loop. Each mutant
# is one `go test` run of its package with the mutated file swapped in through
# -overlay (the tree is never written), so a full run is slow: it samples N
# mutants per package (the same ones for the same seed) and bounds each run.
# Prints the surviving mutants and a table; TESTING.md keeps the figures.
#
#   bench/mutation.sh [N] [PKGDIR...]    N per package (default 25; 0: all)
#   bench/mutation.sh known [PKGDIR...]  the known mutants (bench/mutate/known.txtar):
#                                        bugs that once survived, each with its test
#                                        since; fails when one lives
#
# MUTATION_SEED picks another sample; MUTATION_WORKERS runs mutants in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = known ]; then
  shift
  exec go run ./bench/mutate -known bench/mutate/known.txtar -workers "${MUTATION_WORKERS:-1}" "$@"
fi
n=${1:-25}
shift || true
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(internal/decide internal/gate internal/state internal/budget internal/proc internal/loop internal/agent)
fi
exec go run ./bench/mutate -n "$n" -seed "${MUTATION_SEED:-1}" -workers "${MUTATION_WORKERS:-1}" "${pkgs[@]}"
