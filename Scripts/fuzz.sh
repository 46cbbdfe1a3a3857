#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets in Fuzz/ and runs each for FUZZ_SECONDS (default 60),
# seeded with the project's sample captures. Crashes are written to Fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
seconds="${FUZZ_SECONDS:-60}"
swift build -c debug -Xswiftc -sanitize=fuzzer,address 
mkdir -p corpus/readers corpus/decoder artifacts
cp ../Captures/*.btsnoop corpus/readers/ 2>/dev/null || true
for target in FuzzCaptureReaders FuzzPacketDecoder; do
  corpus=corpus/readers; [ "$target" = FuzzPacketDecoder ] && corpus=corpus/decoder
  echo "== $target for ${seconds}s"
  ".build/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=artifacts/ "$corpus"
done
