#!/usr/bin/env bash
# CI's own script (.ci/run: install, lint, the README's test command) on a fresh clone of
# this checkout's HEAD, with two CPU-bound processes beside it the whole time: whether the
# default suite holds on a busy machine.
#
#   bash scripts/loaded_suite.sh [RUNS]     # RUNS in a row (default 1); stops at a failure
#
# Each run's log is /tmp/boardq-loaded-N.log; a line a run goes to standard output.
# .ci/run installs the clone in editable mode: this checkout is installed again at the end.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-1}
loops=()
stop_loops() {
    [ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null
    loops=()
}
trap 'stop_loops; python3 -m pip install --quiet --no-deps --editable "$repo"' EXIT
for _ in 1 2; do
    python3 -c 'while True: pass' &
    loops+=($!)
done
clone=$(mktemp -d /tmp/boardq-loaded.XXXXXX)
status=0
for n in $(seq 1 "$runs"); do
    rm -rf "$clone" && git clone --quiet "$repo" "$clone"
    start=$(date +%s)
    (cd "$clone" && CI=true bash .ci/run) > "/tmp/boardq-loaded-$n.log" 2>&1
    status=$?
    echo "run $n at $(git -C "$clone" log --oneline -1 | cut -c1-7): exit $status," \
        "$(($(date +%s) - start)) s: $(tail -n 1 "/tmp/boardq-loaded-$n.log")"
    [ $status -eq 0 ] || break
done
rm -rf "$clone"
exit $status
