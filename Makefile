# blereplay — quick start: `make run` then `make test` (README.md).
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= release
BIN := .build/$(CONFIG)/blereplay
# Debian packages the build and the tests need.
DEB_PACKAGES := libsqlite3-dev libpcap-dev libbluetooth-dev zlib1g-dev libzip-dev libssl-dev tshark libpq-dev postgresql
.PHONY: deps build run test bench speed-check fuzz clean samples replay-soak

# Regenerate the sample captures (deterministic; validated with tshark).
samples:
	python3 Scripts/make_sample_captures.py --check

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG) --product blereplay

# The main job: the shipped sample captures -> a report under Reports/.
run: build
	@mkdir -p Reports
	$(BIN) report Captures/ -o Reports
	$(BIN) diagnose Captures/heart-rate-supervision-timeout.btsnoop > Reports/diagnosis.txt
	@echo "open Reports/report.html; per-connection diagnosis in Reports/diagnosis.txt"

# The tests' temporary files go to a scratch $TMPDIR removed after the run (Scripts/run_tests.sh).
test: deps
	$(SWIFT) build --build-tests
	Scripts/run_tests.sh $(SWIFT) test --skip-build

# Replay soak (issue 11, Docs/replay.md "Generated sessions"): N sessions from
# Scripts/blegen/sessions.py, replayed faithfully; each divergence printed with its seed.
SEED ?= 1
N ?= 2000
replay-soak: build
	python3 Scripts/replay_soak.py --seed $(SEED) --count $(N) --bin $(BIN)

bench: deps
	$(SWIFT) build -c release --product blereplay
	python3 Scripts/bench.py --skip replay
	python3 Scripts/bench_replay.py --memory
	python3 Scripts/bench_warehouse.py --bin .build/release/blereplay

# The speed regression check CI runs (README "Speed"): ratios to the SQLite floor and tshark
# measured in one run on small inputs, against wide bounds; a few tens of seconds once built.
speed-check: deps
	$(SWIFT) build -c release --product blereplay
	python3 Scripts/bench.py --check --out bench-out/check

fuzz: deps
	Scripts/fuzz.sh

clean:
	rm -rf .build Reports/*.db
