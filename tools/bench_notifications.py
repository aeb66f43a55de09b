#!/usr/bin/env python3
"""What notifications cost (docs/performance.md, "Notifications").

Starts target/release/kaarttafel on a fresh Postgres database (on the server
in TEST_DATABASE_URL) with a webhook receiver of its own on 127.0.0.1, then:

1. a move's cost with notifications off and on: the load generator
   (examples/loadgen.rs, 4 people a table, GET view + POST move per move)
   plays the same tables in alternating rounds (which goes first
   alternates too), with no player subscribed and with every person
   subscribed to a webhook at the receiver (each move that awaits the next
   person then writes its notification to the outbox in the move's own
   write, and the delivery job drops it, the person being at the game: the
   load generator reads the view before each move; the players of tables
   it makes during a round have no subscription). Prints moves/s and the
   service's and Postgres's CPU ms per move;
2. the outbox's throughput: ROWS notifications for 100 webhook subscribers
   written to the outbox at once, and the time until the last is delivered
   to the receiver (a threaded Python HTTP server, which answers 204).

Usage: python3 tools/bench_notifications.py [--seconds 15] [--rounds 2] [--rows 20000]
Everything listens on 127.0.0.1 and is stopped and removed on exit.
"""

import argparse
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("KAARTTAFEL_BIN", os.path.join(ROOT, "target/release/kaarttafel"))
LOADGEN = os.environ.get("LOADGEN_BIN", os.path.join(ROOT, "target/release/examples/loadgen"))
TICK = os.sysconf("SC_CLK_TCK")
received = [0]
lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        with lock:
            received[0] += 1
        self.send_response(204)
        self.send_header("content-length", "0")
        self.end_headers()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def postgres_cpu(database):
    """CPU seconds of the Postgres backends connected to `database`."""
    total = 0.0
    for pid in psql_rows(f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}'"):
        try:
            total += cpu_seconds(int(pid))
        except (OSError, ValueError):
            pass
    return total


SERVER_URL = os.environ.get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def psql(sql, url=SERVER_URL):
    subprocess.run(["psql", url, "-qAtc", sql], check=True, stdout=subprocess.DEVNULL)


def psql_rows(sql, url=SERVER_URL):
    out = subprocess.run(["psql", url, "-qAtc", sql], check=True, capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--rows", type=int, default=20000)
    args = parser.parse_args()

    database = f"kt_bench_notify_{os.getpid()}"
    psql(f"CREATE DATABASE {database}")
    db_url = SERVER_URL.rsplit("/", 1)[0] + "/" + database
    receiver_port, port = free_port(), free_port()
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", receiver_port), Receiver)
    receiver.daemon_threads = True
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    env = dict(os.environ, DATABASE_URL=db_url, PORT=str(port), METRICS_ADDR="off",
               RATE_LIMITS="off", RUST_LOG="warn", WEBHOOK_ALLOW_PRIVATE="1")
    server = subprocess.Popen([SERVER], env=env)
    work = tempfile.mkdtemp()
    tables = os.path.join(work, "tables")
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/readyz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)

        def round_(seconds):
            cpu0, pg0 = cpu_seconds(server.pid), postgres_cpu(database)
            out = subprocess.run([LOADGEN, "--url", url, "--tables", str(args.clients),
                                  "--seconds", str(seconds), "--deals", "16", "--json",
                                  "--tables-file", tables], check=True, capture_output=True, text=True)
            report = json.loads(out.stdout.strip().splitlines()[-1])
            moves = max(1, report["endpoints"]["POST /v1/games/{id}/moves"]["count"])
            return (report["moves_per_s"], (cpu_seconds(server.pid) - cpu0) * 1000 / moves,
                    (postgres_cpu(database) - pg0) * 1000 / moves)

        def subscribe(everyone):
            """No subscription, or one webhook for every person so far."""
            psql("DELETE FROM push_subscriptions", db_url)
            if everyone:
                psql("INSERT INTO push_subscriptions (id, player_id, kind, url, secret, created_at) "
                     "SELECT gen_random_uuid()::text, id, 'webhook', "
                     f"'http://127.0.0.1:{receiver_port}/hook/' || id, "
                     "'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 0 FROM players WHERE bot_level IS NULL",
                     db_url)

        round_(3)  # warm-up: makes the tables
        results = {"off": [], "on": []}
        for i in range(args.rounds):
            # Which goes first alternates, so a drift in the machine's load
            # does not favour one.
            for mode in ("off", "on") if i % 2 == 0 else ("on", "off"):
                subscribe(mode == "on")
                results[mode].append(round_(args.seconds))
        for mode in ("off", "on"):
            rows = sorted(results[mode])
            mid = rows[len(rows) // 2]
            print(f"notifications {mode}: {mid[0]:.0f} moves/s, service {mid[1]:.3f} CPU ms/move, "
                  f"Postgres {mid[2]:.3f} CPU ms/move (median of {len(rows)} rounds of {args.seconds} s)")

        # The outbox's throughput: ROWS notifications held, then released at once.
        psql("DELETE FROM push_subscriptions", db_url)
        psql("INSERT INTO push_subscriptions (id, player_id, kind, url, secret, created_at) "
             "SELECT gen_random_uuid()::text, id, 'webhook', "
             f"'http://127.0.0.1:{receiver_port}/hook/' || id, "
             "'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 0 "
             "FROM (SELECT id FROM players WHERE bot_level IS NULL LIMIT 100) p", db_url)
        subscribers = int(psql_rows("SELECT COUNT(*) FROM push_subscriptions", db_url)[0])
        per = max(1, args.rows // subscribers)
        now_us = int(time.time() * 1e6)
        psql("INSERT INTO notification_outbox (notification_id, subscription_id, player_id, kind, "
             "payload, created_at, expires_at, next_at, attempts) "
             "SELECT gen_random_uuid()::text, s.id, s.player_id, 'game_finished', "
             "'{\"type\":\"game_finished\"}', "
             f"{now_us}, {now_us + 86_400_000_000}, {now_us + 3_600_000_000}, 0 "
             f"FROM push_subscriptions s, generate_series(1, {per})", db_url)
        total = subscribers * per
        with lock:
            received[0] = 0
        started = time.monotonic()
        cpu0 = cpu_seconds(server.pid)
        psql("UPDATE notification_outbox SET next_at = 0", db_url)
        while True:
            left = int(psql_rows("SELECT COUNT(*) FROM notification_outbox", db_url)[0])
            if left == 0 or time.monotonic() - started > 300:
                break
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        cpu = cpu_seconds(server.pid) - cpu0
        print(f"outbox: {total} notifications to {subscribers} webhooks delivered in {elapsed:.1f} s: "
              f"{received[0] / elapsed:.0f}/s, service {cpu * 1000 / max(1, received[0]):.3f} CPU ms each "
              f"({received[0]} received, {left} left)")
    finally:
        server.terminate()
        server.wait(timeout=30)
        receiver.shutdown()
        psql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


if __name__ == "__main__":
    sys.exit(main())
