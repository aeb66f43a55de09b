#!/usr/bin/env bash
# Writes deploy/pgo/kaarttafel.profdata, the profile tools/release_build.sh
# optimises the release binary with (docs/pgo.md). Builds the server with LLVM's
# counters (in target/pgo, apart from the release build), plays it with the
# load generator on Postgres and then on SQLite (Klaverjassen moves over
# 16-deal matches, reads, Potverteren), and merges what the server counted.
# Run it after changing code on a request's path, and before a release.
#
#   tools/pgo.sh
#
# Needs llvm-profdata of the LLVM rustc is built with (`rustc -vV`: LLVM 22
# for rustc 1.95; Debian's llvm-22 package, or rustup's llvm-tools), and a
# Postgres server in TEST_DATABASE_URL (default the local one; the tool
# creates and drops a database of its own). TRAIN_SECONDS (default 20) is
# how long each backend plays moves. Takes about 8 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
admin=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
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
server=""
database=kt_pgo_$$
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    psql "$admin" -q -c "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# Build scripts run while cargo builds and count too: their files go to
# -Cprofile-generate's folder (one that stays put, so that the flags, and
# with them the build, stay the same from one run to the next). The
# server's go where LLVM_PROFILE_FILE says.
# The same targets as tools/release_build.sh builds: the symbols, and so
# the profile's names for functions, depend on them (see its header).
RUSTFLAGS="-Cprofile-generate=$root/target/pgo/build-scripts" \
    cargo build --release --locked --target-dir target/pgo --bins --examples
bin=target/pgo/release/kaarttafel
loadgen=target/pgo/release/examples/loadgen

# One backend's training: the server started on DATABASE_URL=$1, three kinds
# of play, then stopped with SIGTERM, as an instance is (the counters are
# written when it exits).
train() {
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    LLVM_PROFILE_FILE="$work/server-%m.profraw" DATABASE_URL=$1 PORT=$port RUST_LOG=warn \
        RATE_LIMITS=off "$bin" >"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 120); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.5
    done
    local url=http://127.0.0.1:$port
    LLVM_PROFILE_FILE=$work/loadgen-%p.profraw "$loadgen" --url "$url" --tables 16 --seconds "$seconds" --deals 16 >/dev/null
    LLVM_PROFILE_FILE=$work/loadgen-%p.profraw "$loadgen" --url "$url" --tables 16 --seconds 5 --deals 16 --reads >/dev/null
    LLVM_PROFILE_FILE=$work/loadgen-%p.profraw "$loadgen" --url "$url" --tables 8 --seconds 10 --game potverteren >/dev/null
    kill -TERM "$server"
    wait "$server"
    server=""
}

psql "$admin" -qc "CREATE DATABASE $database"
train "${admin%/*}/$database"
mkdir "$work/sqlite"
train "sqlite:$work/sqlite/pgo.db"

# Sparse: a function the training never ran keeps no entry, so it is
# optimised as without a profile rather than as cold code.
"$profdata" merge --sparse -o deploy/pgo/kaarttafel.profdata "$work"/server-*.profraw
echo "$major" >deploy/pgo/llvm-major
made_from=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src Cargo.toml Cargo.lock || made_from="$made_from with changes"
echo "deploy/pgo/kaarttafel.profdata: $(wc -c <deploy/pgo/kaarttafel.profdata) bytes, LLVM $major, from $made_from"
