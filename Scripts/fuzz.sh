#!/usr/bin/env bash
# `make fuzz`, in two stages (issue 17).
#
# 1. Builds the libFuzzer targets in Fuzz/ and runs each for FUZZ_SECONDS (default 60), seeded
#    with the sample captures, the adversarial corpus (Scripts/blegen/adversarial.py) and the
#    containers it lacks (Scripts/blegen/format_seeds.py: pcapng of several interfaces and
#    sections, PacketLogger, btmon, pcap; gzipped, cut, bit-flipped).
#    Crashes are written to Fuzz/artifacts/. FUZZ_STAGES=2 skips this stage.
# 2. Every input through every command line of Fuzz/commands.txt on the release build
#    (Scripts/fuzz_commands.py): the full-size adversarial corpus (64 KiB records, 61,440 links,
#    never-completing reassemblies, extreme timestamps), each run's peak RSS held under
#    FUZZ_RSS_LIMIT_MB (default 100); then the fuzzers' findings (Fuzz/artifacts/), up to
#    FUZZ_CORPUS_INPUTS (default 300) of the reader fuzzer's corpus and the sample captures.
#    A crash, a trap or backtrace, an exit code outside 0/1/65, a hang or a leftover temporary
#    file fails the run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${FUZZ_STAGES:-1,2}" != 2 ]; then
cd "$root/Fuzz"
seconds="${FUZZ_SECONDS:-60}"
swift build -c debug -Xswiftc -sanitize=fuzzer,address
mkdir -p corpus/readers corpus/decoder corpus/analysis artifacts
cp ../Captures/*.btsnoop corpus/readers/ 2>/dev/null || true
(cd ../Scripts && python3 -m blegen.adversarial "$root/Fuzz/corpus/readers" >/dev/null)
seeds="$(mktemp -d)"
(cd ../Scripts && python3 -m blegen.format_seeds "$seeds" >/dev/null)
find "$seeds" -maxdepth 1 -type f -exec cp {} corpus/readers/ \;
rm -rf "$seeds"
for target in FuzzCaptureReaders FuzzPacketDecoder FuzzAnalysis; do
  corpus=corpus/readers
  [ "$target" = FuzzPacketDecoder ] && corpus=corpus/decoder
  [ "$target" = FuzzAnalysis ] && corpus=corpus/analysis
  echo "== $target for ${seconds}s"
  ".build/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=artifacts/ "$corpus"
done
fi

echo "== stage 2: every input through every command (Fuzz/commands.txt)"
cd "$root"
swift build -c release --product blereplay
bin="$root/.build/release/blereplay"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd Scripts && python3 -m blegen.adversarial "$work/adversarial" --full) > /dev/null
(cd Scripts && python3 -m blegen.format_seeds "$work/formats") > /dev/null
mv "$work/formats/zips" "$work/zips"
mkdir -p "$work/found"
cp Fuzz/artifacts/* "$work/found/" 2>/dev/null || true
# A deterministic spread of the reader fuzzer's corpus (every k-th file by name).
if [ -d Fuzz/corpus/readers ]; then
  python3 - "$work/found" "${FUZZ_CORPUS_INPUTS:-300}" <<'PY'
import shutil, sys
from pathlib import Path
files = sorted(p for p in Path("Fuzz/corpus/readers").iterdir() if p.is_file())
step = max(1, len(files) // max(1, int(sys.argv[2])))
for p in files[::step][: int(sys.argv[2])]:
    shutil.copy(p, Path(sys.argv[1]) / ("corpus-" + p.name))
PY
fi
failed=0
python3 Scripts/fuzz_commands.py --bin "$bin" --rss-limit-mb "${FUZZ_RSS_LIMIT_MB:-100}" --verbose "$work/adversarial" || failed=1
python3 Scripts/fuzz_commands.py --bin "$bin" "$work/found" Captures || failed=1
python3 Scripts/fuzz_commands.py --bin "$bin" "$work/formats" || failed=1
# A bugreport's logs are captures of one timeline: `export` of it asks which (exit 2, by design).
python3 Scripts/fuzz_commands.py --bin "$bin" --skip export "$work/zips" || failed=1
exit "$failed"
