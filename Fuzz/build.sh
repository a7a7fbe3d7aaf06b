#!/usr/bin/env bash
# Builds the libFuzzer binary: PushMockCore's sources and Fuzz/FuzzRequests.swift as one
# module, with coverage (fuzzer) and the address sanitizer, and the C headers Core imports
# (CPrefetch and CByteScan, found by their module maps). Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/fuzz/fuzz-requests
mkdir -p .build/fuzz
sources=$(find Sources/PushMockCore -name '*.swift' | sort)
headers=(Sources/CPrefetch/include Sources/CByteScan/include)
if [ ! -x "$out" ] || [ -n "$(find $sources "${headers[@]}" Fuzz/FuzzRequests.swift -newer "$out" | head -n1)" ]; then
  swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -use-ld=lld -module-name PushMockCore \
    "${headers[@]/#/-I}" $sources Fuzz/FuzzRequests.swift -o "$out" >&2
fi
echo "$out"
