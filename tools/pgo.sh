#!/usr/bin/env bash
# Optional: a release build optimised with a profile of the server at work
# (profile-guided optimisation, docs/pgo.md). Nothing else uses it: the
# Dockerfile, CI and the benchmarks use the plain `cargo build --release`.
#
#   tools/pgo.sh        # prints the path of the optimised binary
#
# 1. Builds the server with LLVM's counters (in target/pgo-train).
# 2. Plays it with the load generator on a fresh Postgres database, then on
#    an SQLite file: Klaverjassen moves, reads, Potverteren. The server is
#    stopped with SIGTERM each time, which writes its counts.
# 3. Merges the counts into target/pgo-train/kaarttafel.profdata and builds
#    the server with them (in target/pgo-release).
#
# Needs llvm-profdata of the LLVM rustc is built with (`rustc -vV`; Debian's
# llvm-N package, or `rustup component add llvm-tools`) and a Postgres
# server in TEST_DATABASE_URL (default the local one; the tool creates and
# drops a database of its own). TRAIN_SECONDS (default 20) is how long each
# backend plays moves.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${TRAIN_SECONDS:-20}

major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=""
for candidate in "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" \
    "llvm-profdata-$major" "/usr/lib/llvm-$major/bin/llvm-profdata" llvm-profdata; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" --version 2>/dev/null | grep -q "LLVM version $major\."; then
        profdata=$candidate
        break
    fi
done
if [ -z "$profdata" ]; then
    echo "no llvm-profdata of LLVM $major (rustc's): apt-get install llvm-$major, or rustup component add llvm-tools" >&2
    exit 1
fi

work=$(mktemp -d)
# The server logs at info, as an instance does by default, so each
# request's log line is trained with the rest.
SERVER_RUST_LOG=info
. "$root/tools/fresh_server.sh"
trap 'stop_server; rm -rf "$work"' EXIT

# The profile names functions by their symbols, which depend on the
# features every dependency is built with: the trained and the optimised
# build must build the same targets (the server alone, not the examples,
# whose dev-dependencies turn on more features). Build scripts write their
# counts to a folder that stays put, so the flags, and with them the
# build, stay the same from one run to the next.
RUSTFLAGS="-Cprofile-generate=$root/target/pgo-train/build-scripts" \
    cargo build --release --locked --target-dir target/pgo-train --bin kaarttafel
cargo build --release --locked --example loadgen
bin=target/pgo-train/release/kaarttafel
loadgen=target/release/examples/loadgen

train() {
    start_server "$bin" env LLVM_PROFILE_FILE="$work/server-%m.profraw"
    local url=http://127.0.0.1:$port
    "$loadgen" --url "$url" --tables 16 --seconds "$seconds" --deals 16 >/dev/null
    "$loadgen" --url "$url" --tables 16 --seconds 5 --deals 16 --reads >/dev/null
    "$loadgen" --url "$url" --tables 8 --seconds 10 --game potverteren >/dev/null
    stop_server
}

train
mkdir "$work/sqlite"
SERVER_DATABASE_URL="sqlite:$work/sqlite/pgo.db" train

# Sparse: a function the training never ran keeps no entry, so it is
# optimised as without a profile rather than as cold code.
profile=$root/target/pgo-train/kaarttafel.profdata
"$profdata" merge --sparse -o "$profile" "$work"/server-*.profraw
RUSTFLAGS="-Cprofile-use=$profile" \
    cargo build --release --locked --target-dir target/pgo-release --bin kaarttafel
echo "$root/target/pgo-release/release/kaarttafel"
