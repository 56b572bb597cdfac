#!/bin/bash
# The parquet reader's rows/s for url+caption on one core, in a release build of the Parquet
# target alone (a scratch package of symlinks, so nothing else of the project is built).
# Needs the test venv (make test-venv) for pyarrow. Usage: Benchmarks/ParquetRead/run.sh
# `run.sh --build-only` builds the reader and stops (`make bench` does, for its parquet row).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/.build-parquet-bench
mkdir -p "$work/Sources/parquet-read" "$work/data"
for target in Parquet CSnappy CZstd CZlib; do ln -sfn "$root/Sources/$target" "$work/Sources/$target"; done
ln -sfn "$root/Benchmarks/ParquetRead/main.swift" "$work/Sources/parquet-read/main.swift"
cat > "$work/Package.swift" <<'SWIFT'
// swift-tools-version: 6.1
import PackageDescription
let package = Package(name: "parquet-read", targets: [
    .systemLibrary(name: "CSnappy"), .systemLibrary(name: "CZstd"), .systemLibrary(name: "CZlib"),
    .target(name: "Parquet", dependencies: ["CSnappy", "CZstd", "CZlib"]),
    .executableTarget(name: "parquet-read", dependencies: ["Parquet"]),
], swiftLanguageModes: [.v6])
SWIFT
if [ "${1:-}" = --build-only ]; then
  (cd "$work" && swift build -c release --product parquet-read 2>&1 | tail -1)
  exit 0
fi
[ -f "$work/data/laion-none.parquet" ] || "$root/.build-test/venv/bin/python" "$root/Benchmarks/ParquetRead/make_laion.py" "$work/data"
(cd "$work" && swift build -c release --product parquet-read 2>&1 | tail -1)
core=$(( $(nproc) - 1 ))
for codec in snappy zstd none; do
  for mode in bytes strings; do
    taskset -c "$core" "$work/.build/release/parquet-read" "$mode" "$work/data/laion-$codec.parquet" url caption
  done
done
