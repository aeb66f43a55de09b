#!/usr/bin/env python3
"""Postgres's CPU for one read of a game, by how the statement is sent.

The same prepared statement (the GET's, the last statement of
tools/pgbench/view.sql with :gid and :pid as $1 and $2), sent in the
extended query protocol:

  libpq      as pgbench -M prepared sends it: Bind (text parameters, text
             results), Describe portal, Execute, Sync;
  sqlx       as sqlx 0.9 sends it: Bind (binary parameters and results),
             Execute, Close portal, Sync;
  sqlx+ping  the same, then a lone Sync, as sqlx's pool sends when a
             connection is given back to it (its ping).

Each style runs for --seconds on --conns connections used in turn (one
request at a time) and is measured by the backends' own CPU time
(/proc/<pid>/stat), after warm-up executions past the custom plans; the
styles alternate for --rounds and the medians are printed. The client is
this script, the same for every style, so the differences are Postgres's.

  tools/pg_protocol_cost.py --url postgres://postgres@127.0.0.1:5432/DB \\
      --game GAME_ID --player PLAYER_ID [--conns 1,16]

Trust authentication only (no password), plain TCP, loopback.
"""

import argparse
import os
import re
import socket
import statistics
import struct
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def message(kind, body):
    return kind + struct.pack("!i", len(body) + 4) + body


def cstr(text):
    return text.encode() + b"\0"


def parse(name, sql, types):
    return message(b"P", cstr(name) + cstr(sql) + struct.pack("!h", len(types))
                   + b"".join(struct.pack("!i", t) for t in types))


def bind(statement, params, param_format, result_format):
    body = cstr("") + cstr(statement)
    body += struct.pack("!h", len(param_format))
    body += b"".join(struct.pack("!h", f) for f in param_format)
    body += struct.pack("!h", len(params))
    for p in params:
        body += struct.pack("!i", len(p)) + p.encode()
    body += struct.pack("!h", len(result_format))
    body += b"".join(struct.pack("!h", f) for f in result_format)
    return message(b"B", body)


SYNC = message(b"S", b"")
EXECUTE = message(b"E", cstr("") + struct.pack("!i", 0))
DESCRIBE_PORTAL = message(b"D", b"P" + cstr(""))
CLOSE_PORTAL = message(b"C", b"P" + cstr(""))
TEXT_OID = 25


class Connection:
    """A protocol-3 connection; `pid` is its backend's."""

    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port or 5432))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        startup = (struct.pack("!i", 196608) + cstr("user") + cstr(u.username or "postgres")
                   + cstr("database") + cstr(u.path.lstrip("/") or "postgres") + b"\0")
        self.sock.sendall(struct.pack("!i", len(startup) + 4) + startup)
        self.buf = b""
        self.pid = None
        while True:
            kind, body = self.receive()
            if kind == b"K":
                self.pid = struct.unpack("!i", body[:4])[0]
            elif kind == b"Z":
                break

    def receive(self):
        while len(self.buf) < 5:
            self.buf += self.sock.recv(65536)
        kind, length = self.buf[:1], struct.unpack("!i", self.buf[1:5])[0]
        while len(self.buf) < 1 + length:
            self.buf += self.sock.recv(65536)
        body, self.buf = self.buf[5:1 + length], self.buf[1 + length:]
        if kind == b"E":
            raise RuntimeError(body.decode(errors="replace"))
        if kind == b"R" and body[:4] != b"\0\0\0\0":
            raise RuntimeError("the server asks for a password: trust authentication only")
        return kind, body

    def exchange(self, messages):
        """Sends `messages` and reads up to ReadyForQuery; returns the rows."""
        self.sock.sendall(messages)
        rows = 0
        while True:
            kind, _ = self.receive()
            rows += kind == b"D"
            if kind == b"Z":
                return rows

    def close(self):
        self.sock.sendall(message(b"X", b""))
        self.sock.close()


def the_get_statement():
    """The GET's statement of tools/pgbench/view.sql, with $1 and $2."""
    lines = open(os.path.join(ROOT, "tools/pgbench/view.sql")).read().splitlines()
    sql = [line for line in lines if line.startswith("SELECT id, kind")][-1].rstrip(";")
    return sql.replace(":gid", "$1").replace(":pid", "$2")


def prepare(conn, style, sql):
    """Prepares `sql` as the style's client does; returns one execution."""
    params = conn.params
    if style == "libpq":
        conn.exchange(parse("P_0", sql, []) + SYNC)
        return bind("P_0", params, [], [0]) + DESCRIBE_PORTAL + EXECUTE + SYNC
    nparams = max(int(n) for n in re.findall(r"\$(\d+)", sql))
    conn.exchange(parse("sqlx_s_1", sql, [TEXT_OID] * nparams)
                  + message(b"D", b"S" + cstr("sqlx_s_1")) + SYNC)
    return bind("sqlx_s_1", params, [1], [1]) + EXECUTE + CLOSE_PORTAL + SYNC


def measure(args, sql, style, count):
    conns = [Connection(args.url) for _ in range(count)]
    for conn in conns:
        conn.params = [args.game, args.player]
        conn.run = prepare(conn, style.removesuffix("+ping"), sql)
        # Postgres plans the first five executions on their own (custom
        # plans), then keeps the generic plan.
        for _ in range(20):
            assert conn.exchange(conn.run) == 1, "the game or player is not there"
    ping = style.endswith("+ping")
    n = 0
    before = sum(cpu_seconds(c.pid) for c in conns)
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        conn = conns[n % count]
        conn.exchange(conn.run)
        if ping:
            conn.exchange(SYNC)
        n += 1
    used = sum(cpu_seconds(c.pid) for c in conns) - before
    for conn in conns:
        conn.close()
    return used / n * 1000, n / args.seconds


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="the database, postgres://user@host:port/db")
    p.add_argument("--game", required=True, help="a game's id")
    p.add_argument("--player", required=True, help="a player's id (the caller)")
    p.add_argument("--seconds", type=float, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--conns", default="16", help="connections used in turn, comma-separated")
    p.add_argument("--styles", default="libpq,sqlx,sqlx+ping")
    args = p.parse_args()
    sql = the_get_statement()
    results = {}
    for r in range(args.rounds):
        for count in [int(c) for c in args.conns.split(",")]:
            for style in args.styles.split(","):
                ms, rate = measure(args, sql, style, count)
                results.setdefault((style, count), []).append(ms)
                print(f"round {r + 1}: {style:9s} on {count:2d} connections: "
                      f"{ms:.4f} ms of Postgres CPU a read ({rate:.0f}/s)", flush=True)
    print(f"\nmedian of {args.rounds} rounds, Postgres CPU ms per read "
          f"(load average {open('/proc/loadavg').read().split()[0]}):")
    for (style, count), values in results.items():
        print(f"  {style:9s} on {count:2d} connections: {statistics.median(values):.4f}")


if __name__ == "__main__":
    main()
