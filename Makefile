# pushmock: `make run` starts a server with zero configuration; `make test` runs the whole suite.
SHELL := /bin/bash
.DEFAULT_GOAL := run

# Debian packages the build and the tests need (wrk, h2load, nghttpd and valgrind only for
# `make bench` and `make bench-instructions`).
# The tests run the official SDKs in a private network namespace (`ip`, `unshare`) and the
# dashboard in headless Chromium, a real Firefox ESR receives Web Pushes; Node.js runs the dashboard scripts' unit tests and checks
# their syntax, tidy checks its HTML.
BUILD_PACKAGES := libevent-dev libssl-dev libnghttp2-dev libsqlite3-dev zlib1g-dev libmimalloc-dev pkg-config libjs-chart.js
TEST_PACKAGES := curl iproute2 util-linux chromium chromium-driver firefox-esr nodejs tidy
BENCH_PACKAGES := wrk nghttp2-client nghttp2-server nginx valgrind
VENV := .venv
ARGS ?=
PREFIX ?= /usr/local

.PHONY: run install build release check lint format test test-asan fuzz-smoke fuzz probe deps test-deps bench-deps venv bench bench-instructions image-check clean

# Installs whichever of the given packages are missing, when root; otherwise prints the line.
define install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "pushmock needs these Debian packages; run:"; \
	    echo "  sudo apt-get install -y $$missing"; \
	    exit 1; \
	  fi; \
	fi
endef

deps:
	$(call install,$(BUILD_PACKAGES))

# A python3 with venv is enough (Debian's python3-venv only when there is none).
test-deps: deps
	$(call install,$(TEST_PACKAGES))
	@python3 -c "import ensurepip, venv" 2>/dev/null || $(MAKE) --no-print-directory python-venv

.PHONY: python-venv
python-venv:
	$(call install,python3-venv)

bench-deps: deps
	$(call install,$(BENCH_PACKAGES))

build: deps
	swift build

# The first release build compiles everything with optimization: about 2 to 3 minutes on two
# cores, quiet while the compiler works; later builds take seconds. Say so before it starts.
# Swift's own libraries are linked in, as in the Docker image (docker/Dockerfile): the binary
# runs without the toolchain's, and `make bench` measures the build the image ships.
release: deps
	@[ -x "$$(swift build -c release --show-bin-path 2>/dev/null)/pushmock" ] || \
	  echo "pushmock: building the release binary for the first time (about 2-3 minutes on 2 cores; later builds recompile only what changed)..."
	swift build -c release --static-swift-stdlib --product pushmock

## run: build (release) and start pushmock on http://127.0.0.1:4010 (pass flags with ARGS="...")
run: release
	"$$(swift build -c release --show-bin-path)/pushmock" $(ARGS)

## install: build (release) and copy pushmock to $(PREFIX)/bin (PREFIX=~/.local needs no root)
install: release
	install -D -m 755 "$$(swift build -c release --show-bin-path)/pushmock" "$(PREFIX)/bin/pushmock"

$(VENV)/.installed: Tests/clients/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/clients/requirements.txt
	touch $@

venv: test-deps $(VENV)/.installed

## test: the whole suite: Core tests, server tests on loopback, real clients (curl, Python);
## then the server tests again against an address-sanitized pushmock, and a minute of fuzzing
test: test-deps venv lint
	swift build --build-tests
	swift test --skip-build
	$(MAKE) --no-print-directory test-asan fuzz-smoke

## lint: the house style (.swift-format), checked; `make format` rewrites files to it
SWIFT_SOURCES := Sources Tests Fuzz Package.swift
## and the dashboard's sources: each script parses (node --check), the page is valid HTML (tidy)
lint:
	swift format lint --strict --recursive $(SWIFT_SOURCES)
	@for f in dashboard/js/*.js Tests/dashboard/*.mjs; do node --check "$$f" || exit 1; done
	tidy -errors -quiet --drop-empty-elements no dashboard/index.html

format:
	swift format format --in-place --recursive $(SWIFT_SOURCES)

## check: the inner loop: build, the Core tests and the server tests that need no Python
## venv nor browser (no sanitizer, no fuzzing); `make test` is the whole suite
CHECK_SUITES := PushMockCoreTests|PushMockServerTests\.(ServerTests|DeviceJourneyTests|ExposureTests|FixtureTests)/
check: deps
	swift build --build-tests
	swift test --skip-build --filter '$(CHECK_SUITES)'

# The server tests against pushmock built with the address sanitizer (the C boundary:
# libevent, nghttp2, OpenSSL, SQLite), leak checks on (Tests/sanitizers/lsan.supp explains
# the one suppression).
ASAN_BIN := .build/asan/debug/pushmock
test-asan: test-deps venv
	swift build --sanitize=address --build-path .build/asan --product pushmock -Xswiftc -use-ld=lld
	swift build --build-tests
	PUSHMOCK_BIN=$(CURDIR)/$(ASAN_BIN) LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/sanitizers/lsan.supp \
	  swift test --skip-build --filter PushMockServerTests

# libFuzzer over the request decoders and routes (Fuzz/): new inputs go to .build/fuzz/corpus,
# seeded from the corpus kept in Fuzz/corpus; a crash fails the target and leaves its input
# in .build/fuzz/. Swift's crash backtracer is off there: under the address sanitizer it can
# hang instead of reporting (libFuzzer reports the crash and keeps its input itself).
FUZZ_SECONDS ?= 600
FUZZ_FLAGS = -timeout=10 -rss_limit_mb=3072 -detect_leaks=0 -artifact_prefix=.build/fuzz/ -print_final_stats=1
fuzz-smoke: deps
	@bin=$$(Fuzz/build.sh) && mkdir -p .build/fuzz/corpus && \
	  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $$bin -max_total_time=60 $(FUZZ_FLAGS) .build/fuzz/corpus Fuzz/corpus 2>&1 | grep -E "^#[0-9]+ +DONE|stat::|ERROR|Fatal error|SUMMARY|crash-|Test unit" ; \
	  exit $${PIPESTATUS[0]}

## fuzz: FUZZ_SECONDS (600) of fuzzing; what found new coverage is merged into Fuzz/corpus
fuzz: deps
	@bin=$$(Fuzz/build.sh) && mkdir -p .build/fuzz/corpus && \
	  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $$bin -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) .build/fuzz/corpus Fuzz/corpus && \
	  ASAN_OPTIONS=detect_leaks=0 $$bin -merge=1 $(FUZZ_FLAGS) Fuzz/corpus .build/fuzz/corpus

## probe: the hostile-clients probe of docs/hardening.md against the release build: each
## attack class's memory growth, a well-behaved client's p99, and what the attacker got
probe: release venv
	.venv/bin/python Tests/clients/probe.py "$$(swift build -c release --show-bin-path)/pushmock" "$${TMPDIR:-/tmp}/pushmock-probe-certs"

## bench: pushmock against a bare libevent server, same request, same run
bench: bench-deps venv
	bench/run.sh

## bench-instructions: instructions per request under callgrind (the same in every run,
## unlike this machine's wall-clock rates), pushmock and its floors
bench-instructions: bench-deps venv
	bench/instructions.sh

## image-check: the Docker image's runtime root file system made with debootstrap, pushmock
## run in it with chroot as its non-root user, and a smoke test (no Docker engine needed)
image-check: deps
	$(call install,debootstrap curl)
	docker/image-check.sh

clean:
	rm -rf .build $(VENV) bench/floor
