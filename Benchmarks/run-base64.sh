#!/usr/bin/env bash
# Which base64 decoder for photos: petspotd's own (Sources/PetSpotFlow/Base64Decoding.swift),
# FoundationEssentials' and OpenSSL's, best of N rounds on the same 12 MiB of text, -O.
#   Benchmarks/run-base64.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O -module-name Base64Bench -I Sources/CLibCrypto -lcrypto \
  Sources/PetSpotFlow/Base64Decoding.swift Benchmarks/base64/main.swift -o "$out/base64-bench" 2>&1 | grep -v '^$' || true
"$out/base64-bench" "${1:-9}"
