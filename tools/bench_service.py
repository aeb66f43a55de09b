#!/usr/bin/env python3
"""The service side by side with pgbench running the service's own SQL.

Started by tools/bench_service.sh (which builds the release server and the
load generator). For each backend (Postgres: a fresh database on the server in
TEST_DATABASE_URL; SQLite: a fresh file) it starts target/release/kaarttafel,
warms up with the load generator (examples/loadgen.rs), then alternates rounds:

  service moves   loadgen, each move = GET view + POST move
  pgbench moves   tools/pgbench/move.sql, the same statements per move
  service reads   loadgen --reads, GET view only
  pgbench reads   tools/pgbench/view.sql

and prints the medians side by side with ratios, and the CPU time of the
service (/proc/<pid>/stat), of Postgres (the sum over the backends connected
to the bench database, sampled from /proc while the round runs) and of the
client (its rusage).

Every round plays the same tables: the warm-up makes them, each service
round continues them (a finished one is replaced), and pgbench runs on the
tables the last service round left, each pgbench client on the games of
one load-generator driver. With --spread K each of the --clients drivers
plays K tables and reads them as any of their four players (reads spread
over K x clients games and 4 x K x clients tokens, as many players at many
tables read); pgbench's clients then move to another of their games every
REPICK transactions (a pick is a statement of its own).

With --ping each kind also gets a round of pgbench whose scripts send a lone
Sync after each request's statements (an empty pipeline), as sqlx's pool
does when a connection is given back to it (its ping): the service's round
trips to Postgres, without the service.

With --split Postgres runs on cores of its own, as on a server of its
own: the postmaster and every process it has started (and so every backend
it starts later) on the first half of the machine's cores, the bench and
everything it starts (the server, the load generator, pgbench) on the
rest; both sides then measure how much of the database's cores a request
takes, not also what the client spends beside it. Postgres must run on this
machine, and the bench may set its processes' affinity (as root or as
their user); it gives Postgres all the cores back on exit.

Everything listens on 127.0.0.1 and is stopped and removed on exit.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")
SERVER = os.environ.get("KAARTTAFEL_BIN", os.path.join(ROOT, "target/release/kaarttafel"))
# LOADGEN_BIN: another build of the load generator (CI's smoke run uses the
# debug one `cargo test` already built, rather than building every
# dev-dependency again in release).
LOADGEN = os.environ.get("LOADGEN_BIN", os.path.join(ROOT, "target/release/examples/loadgen"))
# How many transactions a pgbench client makes on one game with --spread.
REPICK = 16


def cpu_seconds(pid):
    """utime + stime of a live process, in seconds (None once it is gone)."""
    counts = proc_counts(pid)
    return counts[0] if counts else None


def stat_fields(pid):
    """/proc/<pid>/stat's fields after the command's name (field 3 on)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def proc_counts(pid):
    """A live process's CPU seconds (utime + stime), minor page faults and
    context switches (voluntary and not), or None once it is gone."""
    try:
        fields = stat_fields(pid)
        with open(f"/proc/{pid}/status") as f:
            switches = sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)
        return ((int(fields[11]) + int(fields[12])) / TICK, int(fields[7]), switches)
    except (OSError, IndexError, ValueError):
        return None


def parent(pid):
    return int(stat_fields(pid)[1])


def postgres_processes(admin_url):
    """The postmaster of admin_url's server (the parent of its
    checkpointer, which lives as long as it does) and its children."""
    checkpointer = psql(admin_url, "SELECT pid FROM pg_stat_activity "
                        "WHERE backend_type = 'checkpointer'")
    try:
        with open(f"/proc/{checkpointer}/cmdline") as f:
            local = "checkpointer" in f.read()
    except (OSError, ValueError):
        local = False
    if not local:
        sys.exit("--split: Postgres does not run on this machine")
    postmaster = parent(int(checkpointer))
    children = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and parent(entry) == postmaster:
                children.append(int(entry))
        except OSError:
            pass
    return [postmaster] + children


def set_affinity(pids, cores):
    for pid in pids:
        try:
            os.sched_setaffinity(pid, cores)
        except ProcessLookupError:
            pass


def split_cores(admin_url):
    """--split: Postgres on the first half of this process's cores (at
    least one), this process and all it starts on the rest. Returns what
    undoes it."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("--split needs two cores or more")
    ours, theirs = set(cores[len(cores) // 2:]), set(cores[:len(cores) // 2])
    try:
        set_affinity(postgres_processes(admin_url), theirs)
    except PermissionError:
        sys.exit("--split: may not set the affinity of Postgres's processes (run as root "
                 "or as their user)")
    os.sched_setaffinity(0, ours)
    print(f"Postgres on cores {sorted(theirs)}, the rest on {sorted(ours)}", file=sys.stderr)

    def undo():
        set_affinity(postgres_processes(admin_url), set(cores))
        os.sched_setaffinity(0, set(cores))
    return undo


def psql(url, sql):
    return subprocess.run(
        ["psql", url, "-qtAX", "-c", sql], check=True, capture_output=True, text=True
    ).stdout.strip()


# What sqlx's pool sends when a connection is given back to it: a Sync alone,
# answered by ReadyForQuery. pgbench sends exactly that for an empty pipeline.
PING = "\\startpipeline\n\\endpipeline\n"


def with_pings(pgbench_dir, workdir):
    """A copy of pgbench_dir's scripts with the pool's ping after each
    request: view.sql's one statement; move.sql's GET (before the line
    `-- POST move`) and POST (at the end). Returns the copy's directory."""
    out = os.path.join(workdir, "pgbench-ping")
    os.makedirs(out, exist_ok=True)
    for script in ("move.sql", "view.sql"):
        text = open(os.path.join(pgbench_dir, script)).read()
        if script == "move.sql":
            if text.count("-- POST move") != 1:
                sys.exit(f"{script}: no single '-- POST move' line to put the GET's ping before")
            text = text.replace("-- POST move", PING + "-- POST move")
        with open(os.path.join(out, script), "w") as f:
            f.write(text.rstrip("\n") + "\n" + PING)
    return out


def settle(url):
    """Leaves no work of the round before to the next: the dead row versions
    a moves round leaves are pruned by whoever reads their pages next, and
    autovacuum and checkpoints land on whichever round runs when they are
    due, so with a fixed order of rounds one side would always pay for the
    other's writes. Vacuumed and checkpointed, every round starts alike."""
    for sql in ("VACUUM games, game_seats, players, game_deals", "CHECKPOINT"):
        psql(url, sql)


class BackendCpu:
    """CPU of the Postgres backends connected to one database during a round.

    Polls pg_stat_activity's pids every 0.1 s: a backend seen before the round
    counts from its CPU then, a new one from zero; each counts up to the last
    time it was seen (a backend ending between two polls loses at most 0.1 s).
    """

    def __init__(self, admin_url, database):
        self.admin_url, self.database = admin_url, database
        self.stop = threading.Event()

    def pids(self):
        out = psql(
            self.admin_url,
            f"SELECT pid FROM pg_stat_activity WHERE datname = '{self.database}'",
        )
        return [int(p) for p in out.split()]

    def __enter__(self):
        self.start = {p: proc_counts(p) or (0.0, 0, 0) for p in self.pids()}
        self.last = dict(self.start)
        self.thread = threading.Thread(target=self.poll, daemon=True)
        self.thread.start()
        return self

    def poll(self):
        while not self.stop.wait(0.1):
            self.sample()

    def sample(self):
        try:
            pids = self.pids()
        except subprocess.CalledProcessError:
            return
        for p in pids:
            c = proc_counts(p)
            if c is not None:
                self.last[p] = c

    def __exit__(self, *exc):
        self.sample()
        self.stop.set()
        self.thread.join()

    def total(self, i):
        """The backends' growth in proc_counts' field i over the round."""
        return sum(c[i] - self.start.get(p, (0.0, 0, 0))[i] for p, c in self.last.items())

    def counts(self):
        """The round's Postgres figures for the rows: CPU seconds, minor
        page faults and context switches of the backends."""
        return dict(pg=self.total(0), pg_faults=self.total(1), pg_switches=self.total(2))


def run_client(argv, env=None):
    """Runs a client to the end; returns its stdout and its own CPU seconds.

    The CPU is the client's own rusage (wait4 on its pid): RUSAGE_CHILDREN
    would also count the psql processes that BackendCpu's thread runs
    while the round goes on.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed ({proc.returncode}):\n{errors}")
    return text, usage.ru_utime + usage.ru_stime


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_server(database_url, workdir, workers):
    port = free_port()
    env = dict(os.environ, RATE_LIMITS="off", METRICS_ADDR="off", DATABASE_URL=database_url, PORT=str(port),
               RUST_LOG="warn", JWT_SECRET="bench-secret-0123456789abcdef0123456789")
    if workers:
        env["WORKERS"] = str(workers)
    log = open(os.path.join(workdir, f"server-{port}.log"), "w")
    proc = subprocess.Popen([SERVER], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/readyz", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    sys.exit(f"the server did not become ready; see {log.name}")


def loadgen(url, args, seconds, tables_file, reads=False, check=True):
    argv = [LOADGEN, "--url", url, "--tables", str(args.clients), "--seconds", str(seconds),
            "--deals", str(args.deals), "--spread", str(args.spread),
            "--tables-file", tables_file, "--json"]
    if reads:
        argv.append("--reads")
    out, cpu = run_client(argv)
    report = json.loads(out.strip().splitlines()[-1])
    # A measured round with failed requests, or none at all, measures
    # nothing: fail (CI's smoke run relies on this).
    failed = {e: v["errors"] for e, v in report["endpoints"].items() if v["errors"]}
    played = report["gets_per_s"] if reads else report["moves_per_s"]
    if check and (failed or not played):
        sys.exit(f"the load generator's round failed: errors {failed}, {played:.0f}/s")
    return report, cpu


def pick_tables(database_url, tables_file):
    """bench_pick, the games pgbench plays: the tables the load generator
    played last, table t's seat s at n = 4 t + s (an empty line, a table
    the load generator did not make, repeats the one before). Returns the
    count of tables."""
    games = []
    for line in open(tables_file).read().splitlines():
        fields = line.split()
        if fields:
            games.append(fields[0])
        elif games:
            games.append(games[-1])
    values = ", ".join(f"({t}, '{g}')" for t, g in enumerate(games))
    psql(database_url, "DROP TABLE IF EXISTS bench_pick; CREATE TABLE bench_pick AS "
         "SELECT 4 * t.t + s.seat AS n, t.game_id, s.player_id "
         f"FROM (VALUES {values}) AS t (t, game_id) "
         "JOIN game_seats s ON s.game_id = t.game_id AND s.seat < 4; "
         "CREATE UNIQUE INDEX ON bench_pick (n)")
    return len(games)


def pgbench(db_url, script, args, ngames, scripts_dir):
    repick = 0 if args.spread == 1 else REPICK
    argv = ["pgbench", "-n", "-M", "prepared", "-c", str(args.clients), "-j", "2",
            "-T", str(args.seconds), "-D", f"ngames={ngames}", "-D", f"clients={args.clients}",
            "-D", f"repick={repick}", "-D", "picked=0", "-D", "done=0",
            "-f", os.path.join(scripts_dir, script), db_url]
    # The service connects without TLS (sqlx is built without it); libpq
    # would negotiate TLS with a server that has `ssl = on` (Debian's
    # default), so pgbench is told not to, and both pay the same.
    env = dict(os.environ, PGSSLMODE="disable")
    out, cpu = run_client(argv, env)
    tps = next(float(line.split("=")[1].split()[0]) for line in out.splitlines()
               if line.startswith("tps"))
    return tps, cpu


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def bench_backend(name, database_url, admin_url, dbname, args, workdir):
    server, url = start_server(database_url, workdir, args.workers)
    rows = {k: [] for k in ("svc_moves", "pg_moves", "ping_moves", "svc_reads", "pg_reads",
                            "ping_reads")}
    # Each pgbench round of a kind: its rows' prefix, its name, its scripts.
    pgbench_sides = [("pg", "pgbench", args.pgbench_dir)]
    if args.ping and admin_url:
        pgbench_sides.append(("ping", "pgbench with pings", with_pings(args.pgbench_dir, workdir)))
    try:
        print(f"[{name}] warm-up {args.warmup} s", file=sys.stderr)
        tables_file = os.path.join(workdir, f"tables-{name}.txt")
        loadgen(url, args, args.warmup, tables_file, check=False)
        ngames = 0
        if admin_url:
            ngames = pick_tables(database_url, tables_file)
            # The tables were filled seconds ago and never analysed, so the
            # planner still sizes them from their pages: the service's
            # connections, which prepared their statements while the tables
            # were nearly empty, kept plans that scan `players` whole, while
            # pgbench, preparing later, got index plans. A database in use
            # is analysed by autovacuum (which also makes every connection
            # plan again); so is this one now, for both sides alike.
            psql(database_url, "ANALYZE")
        for r in range(args.rounds):
            for kind in ("moves", "reads"):
                if admin_url:
                    settle(database_url)
                load = loadavg()
                before = cpu_seconds(server.pid)
                pg = BackendCpu(admin_url, dbname) if admin_url else None
                if pg:
                    pg.__enter__()
                report, client = loadgen(url, args, args.seconds, tables_file,
                                         reads=(kind == "reads"))
                if pg:
                    pg.__exit__()
                svc = cpu_seconds(server.pid) - before
                count = report["moves_per_s"] if kind == "moves" else report["gets_per_s"]
                count *= report["seconds"]
                rows["svc_" + kind].append(dict(
                    rate=count / report["seconds"], svc=svc, client=client, n=count, load=load,
                    report=report, **(pg.counts() if pg else dict(pg=None))))
                print(f"[{name}] round {r + 1} service {kind}: {count / report['seconds']:.0f}/s "
                      f"(load {load})", file=sys.stderr)
                if not admin_url or ngames == 0:
                    continue
                ngames = pick_tables(database_url, tables_file)
                script = "move.sql" if kind == "moves" else "view.sql"
                for side, what, scripts_dir in pgbench_sides:
                    settle(database_url)
                    load = loadavg()
                    with BackendCpu(admin_url, dbname) as pg:
                        tps, client = pgbench(database_url, script, args, ngames, scripts_dir)
                    rows[f"{side}_{kind}"].append(dict(rate=tps, svc=None, client=client,
                                                       n=tps * args.seconds, load=load,
                                                       **pg.counts()))
                    print(f"[{name}] round {r + 1} {what} {kind}: {tps:.0f}/s (load {load})",
                          file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return rows


def med(rows, key, per=None):
    """The median over rounds of rows' key; per=1000: in thousandths of it
    per request (CPU seconds to ms), per=1: per request."""
    vals = [(r[key] / r["n"] * per if per else r[key]) for r in rows
            if r.get(key) is not None and r["n"]]
    return statistics.median(vals) if vals else None


def fmt(v, digits=0):
    return "-" if v is None else f"{v:,.{digits}f}"


def table(name, rows, args):
    spread = (f", {args.spread} tables a client" if args.spread > 1 else "")
    if args.split and name == "postgres":
        spread += ", Postgres on cores of its own"
    sides = ["pg", "ping"] if rows["ping_moves"] or rows["ping_reads"] else ["pg"]
    header = "| | service | pgbench, the service's statements | ratio |"
    if "ping" in sides:
        header += " pgbench with the pool's pings | ratio |"
    out = [f"\n### {name}: {args.clients} clients{spread}, {args.rounds} x {args.seconds} s rounds, "
           f"median of rounds (load average per round: "
           f"{', '.join(r['load'] for k in rows for r in rows[k])})\n",
           header, "|" + "---|" * (header.count("|") - 1)]
    for kind, label in (("moves", "moves/s (GET view + POST move)"), ("reads", "GET view/s")):
        s = med(rows["svc_" + kind], "rate")
        cells = [fmt(s)]
        for side in sides:
            p = med(rows[f"{side}_{kind}"], "rate")
            cells += [fmt(p), f"{s / p:.2f}" if s and p else "-"]
        out.append(f"| {label} | {' | '.join(cells)} |")
        figures = [("svc", "CPU ms per {}: service", 1000, 3), ("pg", "CPU ms per {}: Postgres", 1000, 3),
                   ("client", "CPU ms per {}: client", 1000, 3),
                   ("pg_faults", "Postgres page faults per {}", 1, 1),
                   ("pg_switches", "Postgres context switches per {}", 1, 1)]
        for key, what, per, digits in figures:
            values = [med(rows["svc_" + kind], key, per=per)]
            values += [med(rows[f"{side}_{kind}"], key, per=per) for side in sides]
            if all(v is None for v in values):
                continue
            cells = [fmt(values[0], digits)]
            for v in values[1:]:
                cells += [fmt(v, digits), ""]
            out.append(f"| &nbsp; {what.format(kind[:-1])} | {' | '.join(cells)} |")
    for kind in ("moves", "reads"):
        reports = [r["report"] for r in rows["svc_" + kind]]
        if not reports:
            continue
        mid = reports[len(reports) // 2]
        out.append(f"\nservice {kind}, latency of the median round (ms):\n")
        out.append("| endpoint | count | errors | p50 | p99 | p999 |")
        out.append("|---|---|---|---|---|---|")
        for ep, e in mid["endpoints"].items():
            out.append(f"| {ep} | {e['count']} | {e['errors']} | {e['p50_ms']:.2f} | "
                       f"{e['p99_ms']:.2f} | {e['p999_ms']:.2f} |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--deals", type=int, default=16)
    p.add_argument("--workers", type=int, default=0, help="WORKERS for the server (default: its own)")
    p.add_argument("--backends", default="postgres,sqlite")
    p.add_argument("--spread", type=int, default=1,
                   help="tables per client, read as any of their players (default 1: one "
                        "table a client, read as its awaited seat)")
    p.add_argument("--pgbench-dir", default=os.path.join(ROOT, "tools/pgbench"),
                   help="where move.sql and view.sql are (another build's statements)")
    p.add_argument("--json-out", help="also write every round's figures here, as JSON")
    p.add_argument("--split", action="store_true",
                   help="Postgres on half the cores, everything else on the other half "
                        "(Postgres only; see above)")
    p.add_argument("--ping", action="store_true",
                   help="also run pgbench with the lone Sync sqlx's pool sends on giving a "
                        "connection back, after each request (Postgres only)")
    args = p.parse_args()
    server_url = os.environ.get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    work = tempfile.mkdtemp(prefix="kt-bench-")
    print(f"load average at start: {open('/proc/loadavg').read().strip()}", file=sys.stderr)
    results = []
    raw = {}
    try:
        for backend in args.backends.split(","):
            if backend == "postgres":
                dbname = f"kt_bench_{int(time.time())}_{os.getpid()}"
                psql(server_url, f"CREATE DATABASE {dbname}")
                db_url = server_url.rsplit("/", 1)[0] + "/" + dbname
                undo = split_cores(server_url) if args.split else None
                try:
                    rows = bench_backend("postgres", db_url, server_url, dbname, args, work)
                finally:
                    if undo:
                        undo()
                    psql(server_url, f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)")
            elif backend == "sqlite":
                rows = bench_backend("sqlite", f"sqlite:{work}/bench.db", None, None, args, work)
            else:
                sys.exit(f"unknown backend {backend}")
            results.append(table(backend, rows, args))
            raw[backend] = rows
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(dict(args=vars(args), server=SERVER, rounds=raw), f)
    print("\n".join(results))
    print(f"\nload average at end: {open('/proc/loadavg').read().strip()} "
          f"({os.cpu_count()} cores; figures on a loaded machine are noisy)")


if __name__ == "__main__":
    main()
