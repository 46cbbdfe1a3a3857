#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets in Fuzz/ and runs each for FUZZ_SECONDS (default 60),
# seeded with the project's sample captures and the adversarial corpus (Scripts/blegen/adversarial.py,
# issue 17). Crashes are written to Fuzz/artifacts/. Then the whole adversarial corpus at full size
# (64 KiB records, 61,440 links, never-completing reassemblies, extreme timestamps) goes through
# every command of the release build: a crash or an exit code other than 0/1 fails the run, and
# each file's peak memory (must stay under FUZZ_RSS_LIMIT_MB, default 100) and time are printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/Fuzz"
seconds="${FUZZ_SECONDS:-60}"
swift build -c debug -Xswiftc -sanitize=fuzzer,address
mkdir -p corpus/readers corpus/decoder corpus/analysis artifacts
cp ../Captures/*.btsnoop corpus/readers/ 2>/dev/null || true
(cd ../Scripts && python3 -m blegen.adversarial "$root/Fuzz/corpus/readers" >/dev/null)
for target in FuzzCaptureReaders FuzzPacketDecoder FuzzAnalysis; do
  corpus=corpus/readers
  [ "$target" = FuzzPacketDecoder ] && corpus=corpus/decoder
  [ "$target" = FuzzAnalysis ] && corpus=corpus/analysis
  echo "== $target for ${seconds}s"
  ".build/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=artifacts/ "$corpus"
done

echo "== adversarial corpus, full size, through every command"
cd "$root"
swift build -c release --product blereplay
bin="$root/.build/release/blereplay"
limit_kb=$(( ${FUZZ_RSS_LIMIT_MB:-100} * 1024 ))
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd Scripts && python3 -m blegen.adversarial "$work/corpus" --full) > "$work/listing"
failed=0
while read -r file fields; do
  db="$work/t.db"; rm -f "$db"; rm -rf "$work/out"
  for command in "import $file --db $db" "timeline $db" "diagnose $db" "gatt $db" "replay $db" \
                 "report $db -o $work/out" "export $db --format btsnoop -o $work/x.btsnoop"; do
    set +e
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" $command > /dev/null 2> "$work/stderr"
    status=$?
    set -e
    read -r secs kb < <(tail -1 "$work/time")
    name="$(basename "$file") ${command%% *}"
    printf '%-40s exit %3d  %8.2f s  %7d KB  (%s)\n' "$name" "$status" "$secs" "$kb" "$fields"
    if [ "$status" -gt 1 ] || [ "$kb" -gt "$limit_kb" ]; then
      echo "   FAILED: $(tail -3 "$work/stderr")"; failed=1
    fi
  done
done < "$work/listing"
exit "$failed"
