#!/usr/bin/env bash
# `make test`: runs the command it is given (the test suite) with $TMPDIR set to a scratch
# directory of this run's own, and removes it afterwards, whatever the outcome. The tests make
# thousands of temporary directories (timelines, captures, CLI runs), not all of which a test
# removes itself; before, each `make test` left gigabytes of them in /tmp.
#
# A run that is killed cannot remove its directory: the next run does. Each run holds an
# exclusive flock(1) on `DIR/.lock` while it lives; a directory whose lock can be taken belongs
# to a run that is gone.
set -uo pipefail
base="${TMPDIR:-/tmp}"
for old in "$base"/blereplay-tests.*; do
    [ -e "$old/.lock" ] || continue
    if flock -n "$old/.lock" true 2>/dev/null; then rm -rf "$old"; fi
done
scratch=$(mktemp -d "$base/blereplay-tests.XXXXXX") || exit 1
# As /tmp is: some tests run the tool as another user (nobody) on files under it.
chmod 1777 "$scratch"
exec 9>"$scratch/.lock"
flock 9
TMPDIR="$scratch" "$@"
status=$?
rm -rf "$scratch"
exit "$status"
