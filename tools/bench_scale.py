#!/usr/bin/env python3
"""Per-move cost against the number of stored games (docs/performance.md).

For each size in --sizes (games; events per game --events): creates a fresh
Postgres database on the server in TEST_DATABASE_URL, starts the release
server on it (which applies the migrations), plays a few seconds with the
load generator so real rows exist, fills the database with tools/scale_fill.sql
(finished games cloned from those rows: seats, events, game_deals, players;
keys, indexes and foreign keys rebuilt after the insert, see that file),
then runs the load generator on fresh games and reports moves/s, the
service's and Postgres' CPU per move (utime+stime from /proc; the service's
Postgres backends are its pool's kept connections, read before and after),
and the p50/p99 of GET view and POST move. At the largest size it prints
EXPLAIN of the hot statements. Each database is dropped at the end.

  python3 tools/bench_scale.py --sizes 1000,1000000 --events 10 --seconds 20

Needs psql and the release build (tools/bench_service.sh builds it).
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("KAARTTAFEL_BIN", os.path.join(ROOT, "target/release/kaarttafel"))
LOADGEN = os.environ.get("LOADGEN_BIN", os.path.join(ROOT, "target/release/examples/loadgen"))
TICK = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        return 0.0


def psql(url, *sql, quiet=True):
    argv = ["psql", url, "-v", "ON_ERROR_STOP=1", "-X"] + (["-qtA"] if quiet else [])
    for s in sql:
        argv += ["-c", s]
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()


def backends(admin, db):
    return [int(p) for p in psql(admin, f"SELECT pid FROM pg_stat_activity WHERE datname = '{db}'").split()]


def loadgen(url, seconds, tables, deals):
    out = subprocess.run([LOADGEN, "--url", url, "--tables", str(tables), "--seconds", str(seconds),
                          "--deals", str(deals), "--json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


HOT = [
    ("token check", "SELECT token_generation, last_seen_at FROM players WHERE id = '{pid}'"),
    ("game row", "SELECT id, kind, status, version, state, deals_stored FROM games WHERE id = '{gid}' FOR UPDATE"),
    ("seats", "SELECT s.seat, p.id, p.name, p.bot_level FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = '{gid}' ORDER BY s.seat"),
    ("finished deals", "SELECT record FROM game_deals WHERE game_id = '{gid}' AND number <= 3 ORDER BY number"),
    ("event insert", "INSERT INTO game_events (game_id, seq, player_id, seat, kind, payload, created_at, actor) VALUES ('{gid}', 1000000, '{pid}', 0, 'move', '{{}}', 0, 'player')"),
    ("update", "UPDATE games SET version = version WHERE id = '{gid}'"),
]


def run_size(args, admin, games):
    db = f"kt_scale_{games}_{os.getpid()}"
    url = admin.rsplit("/", 1)[0] + "/" + db
    psql(admin, f"DROP DATABASE IF EXISTS {db}", f"CREATE DATABASE {db}")
    port = 18200 + games % 97
    # TOKEN_TTL of a year: the filled players, last seen within the past
    # year, are not idle guests for the hourly cleanup (tools/scale_fill.sql
    # drops the foreign keys that would otherwise stop it deleting them).
    env = dict(os.environ, RATE_LIMITS="off", METRICS_ADDR="off", DATABASE_URL=url, PORT=str(port), RUST_LOG="warn",
               JWT_SECRET="bench-secret-0123456789abcdef0123456789", TOKEN_TTL="31536000")
    server = subprocess.Popen([SERVER], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/readyz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        loadgen(base, 4, 4, 2)  # real rows to clone: 2-deal matches, one deal finished
        t0 = time.time()
        fill = subprocess.run(["psql", url, "-X", "-q", "-v", f"games={games}", "-v",
                               f"events={args.events}", "-f",
                               os.path.join(ROOT, "tools/scale_fill.sql")],
                              capture_output=True, text=True)
        if fill.returncode != 0:
            sys.exit(f"scale_fill.sql failed:\n{fill.stderr}")
        fill = fill.stdout
        filled = time.time() - t0
        print(f"[{games}] filled in {filled:.0f} s:\n{fill.strip()}", file=sys.stderr)
        loadgen(base, 3, args.clients, args.deals)  # warm-up
        load = open("/proc/loadavg").read().split()[:3]
        pids = backends(admin, db)
        s0, p0 = cpu(server.pid), {p: cpu(p) for p in pids}
        report = loadgen(base, args.seconds, args.clients, args.deals)
        s1 = cpu(server.pid)
        pg = sum(cpu(p) - p0.get(p, 0.0) for p in backends(admin, db))
        moves = report["moves_per_s"] * report["seconds"]
        ep = report["endpoints"]
        row = dict(games=games, events=int(psql(url, "SELECT count(*) FROM game_events")),
                   moves_per_s=report["moves_per_s"], svc_ms=(s1 - s0) / moves * 1000,
                   pg_ms=pg / moves * 1000, get_p50=ep["GET /v1/games/{id}"]["p50_ms"],
                   get_p99=ep["GET /v1/games/{id}"]["p99_ms"],
                   move_p50=ep["POST /v1/games/{id}/moves"]["p50_ms"],
                   move_p99=ep["POST /v1/games/{id}/moves"]["p99_ms"], load=" ".join(load),
                   load_end=" ".join(open("/proc/loadavg").read().split()[:3]),
                   fill_s=round(filled), size=psql(url, "SELECT pg_size_pretty(pg_database_size(current_database()))"))
        if args.explain and games == max(args.sizes):
            gid = psql(url, "SELECT id FROM games WHERE status = 'playing' AND deals_stored > 0 LIMIT 1")
            pid = psql(url, f"SELECT player_id FROM game_seats WHERE game_id = '{gid}' AND seat = 0")
            for name, sql in HOT:
                plan = psql(url, "BEGIN", "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "
                            + sql.format(gid=gid, pid=pid), "ROLLBACK", quiet=False)
                print(f"\n-- {name}\n{plan}")
        return row
    finally:
        server.terminate()
        server.wait(timeout=30)
        psql(admin, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1000,1000000", type=lambda s: [int(x) for x in s.split(",")])
    p.add_argument("--events", type=int, default=10, help="events per filled game")
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--deals", type=int, default=16)
    p.add_argument("--no-explain", dest="explain", action="store_false")
    args = p.parse_args()
    admin = os.environ.get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    rows = [run_size(args, admin, n) for n in args.sizes]
    print("\n| stored games | events | db size | fill s | moves/s | service CPU ms/move | Postgres CPU ms/move "
          "| GET p50 / p99 ms | POST move p50 / p99 ms | load average (start; end) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['games']:,} | {r['events']:,} | {r['size']} | {r['fill_s']} | {r['moves_per_s']:.0f} | "
              f"{r['svc_ms']:.3f} | {r['pg_ms']:.3f} | {r['get_p50']:.1f} / {r['get_p99']:.1f} | "
              f"{r['move_p50']:.1f} / {r['move_p99']:.1f} | {r['load']}; {r['load_end']} |")


if __name__ == "__main__":
    main()
