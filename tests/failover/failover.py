#!/usr/bin/env python3
"""Failover under load; started by tests/failover/run.sh, which built the
pg_auto_failover formation, the two instances and nginx.

Load, through nginx:
- TABLES Klaverjassen tables of three `basic` computer players and a
  person, whose seat this script plays: every move with an
  Idempotency-Key and the version it expects, retried with the same key
  until answered (a 503 or a lost connection is retried), each answer
  logged;
- the load generator (examples/loadgen.rs) with `--acked-log`.

Faults: `pg_autoctl perform failover`; then, with the old primary back as
the synchronous standby, the primary node killed with SIGKILL (its
postgres and its pg_autoctl, the whole process group).

Checks: every move the clients logged as acknowledged is in the database
exactly once, at its seq, by its seat, made by a player; no player move of
the person's seat in the database that the person did not get an answer
for (none applied twice); every game's events numbered 1..n without a gap;
no answer 500 or another 5xx than 503, and every 503 a
`database_unavailable` with Retry-After; the instances the same processes
as at the start, both ready. Prints, for each fault, the time without a
primary and the time until moves succeed again. Exits non-zero on failure.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from http_calls import Calls  # noqa: E402

PROXY = os.environ["PROXY_URL"]
DIRECT = os.environ["DIRECT_URLS"].split()
INSTANCE_PIDS = [int(pid) for pid in os.environ["INSTANCE_PIDS"].split()]
NODE_PORTS = [int(port) for port in os.environ["NODE_PORTS"].split()]
NODE_GROUPS = dict(zip(NODE_PORTS, (int(g) for g in os.environ["NODE_GROUPS"].split())))
PG_USER = os.environ["PG_USER"]
MONITOR_URL = os.environ["MONITOR_URL"]
AUTOCTL = os.environ["AUTOCTL"].split()
MONITOR_PGDATA = os.environ["MONITOR_PGDATA"]
LOADGEN = os.environ["LOADGEN"]
WORK = os.environ["WORK"]
TABLES = int(os.environ.get("TABLES", "4"))
STEADY = 4.0           # seconds of load before and after each fault
RECOVER_WITHIN = 60.0  # a fault not recovered from by then fails the run

lock = threading.Lock()
stop = threading.Event()
calls = Calls(PROXY, clock=time.time)   # every answer (http_calls.Answer), at wall times
acked = {}             # (game, seq) -> (seat, wall time)  the person's moves
games = []             # the person's games
client_errors = []
samples = []           # (wall time, {port: "f" takes writes | "t" read-only | None})
failures = []
faults = []            # (name, wall time it began)


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (f"  ({detail})" if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def psql(port, database, sql, timeout=5):
    url = f"postgres://{PG_USER}@127.0.0.1:{port}/{database}?sslmode=disable&connect_timeout=1"
    done = subprocess.run(["psql", url, "-qtAX", "-F", "|", "-c", sql], capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    return done.stdout


# ---- the person at the computer players' tables ----

def until_answered(method, path, token=None, body=None, key=None):
    """The same request (the same Idempotency-Key) until an answer that is
    not a 503 or a lost connection."""
    headers = {"Idempotency-Key": key} if key else None
    return calls.until_answered(method, path, token, body, headers, pause=0.1, give_up_after=120.0,
                                timeout=15)


def new_table():
    status, body = until_answered("POST", "/v1/players", body={"name": "Person"}, key=str(uuid.uuid4()))
    assert status == 201, (status, body)
    token = body["token"]
    status, view = until_answered("POST", "/v1/games", token,
                                  {"game": "klaverjassen", "bots": [{"level": "basic"}] * 3,
                                   "options": {"deals": 2, "bot_delay_ms": 50}},
                                  key=str(uuid.uuid4()))
    assert status == 201, (status, view)
    with lock:
        games.append(view["id"])
    return view["id"], token


def person_move(view):
    for kind in ("deal", "choose_trump", "play"):
        for mv in view.get("legal_moves", []):
            if mv["type"] == kind:
                return mv
    return None


def person(n):
    try:
        gid, token = new_table()
        while not stop.is_set():
            status, view = until_answered("GET", f"/v1/games/{gid}", token)
            assert status == 200, (status, view)
            if view["status"] != "playing":
                gid, token = new_table()
                continue
            mv = person_move(view)
            if mv is None:
                # The computer players' turn: wait for the next version.
                until_answered("GET", f"/v1/games/{gid}?wait_for_version={view['version']}&timeout_s=2", token)
                continue
            expected = view["version"]
            status, answer = until_answered("POST", f"/v1/games/{gid}/moves", token,
                                            {"move": mv, "expected_version": expected},
                                            key=str(uuid.uuid4()))
            if status == 200:
                with lock:
                    acked[(gid, expected + 1)] = (0, time.time())
            elif status != 409:   # 409: a computer player's move came first
                raise AssertionError(f"move answered {status}: {answer}")
    except Exception as err:  # reported at the end
        with lock:
            client_errors.append(f"person {n}: {err!r}")


# ---- the formation, watched ----

def poll_nodes():
    while not stop.is_set():
        seen = {}
        for port in NODE_PORTS:
            try:
                # "f": the node takes writes, as target_session_attrs=read-write
                # asks (a promoted standby is kept read-only until the old
                # primary is known to be demoted).
                writes = psql(port, "postgres", "show transaction_read_only", timeout=2).strip()
                seen[port] = {"off": "f", "on": "t"}.get(writes)
            except Exception:
                seen[port] = None
        with lock:
            samples.append((time.time(), seen))
        time.sleep(0.1)


def primary_now():
    with lock:
        last = samples[-1][1] if samples else {}
    return [port for port, answer in last.items() if answer == "f"]


def wait(what, condition, within=RECOVER_WITHIN):
    deadline = time.time() + within
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    check(what, False, f"not within {within:.0f} s")
    return False


def loadgen_acked():
    acks = {}
    try:
        with open(os.path.join(WORK, "loadgen-acked.log")) as log:
            for line in log:
                parts = line.split()
                if len(parts) == 5:
                    millis, game, seq, seat, kind = parts
                    acks[(game, int(seq))] = (int(seat), int(millis) / 1000, kind)
    except FileNotFoundError:
        pass
    return acks


def ack_times():
    with lock:
        times = [t for _, t in acked.values()]
    return sorted(times + [t for _, t, _ in loadgen_acked().values()])


def formation_settled():
    states = psql_monitor("select reportedstate || '/' || goalstate from pgautofailover.node order by nodeid")
    return sorted(states) == ["primary/primary", "secondary/secondary"]


def psql_monitor(sql):
    done = subprocess.run(["psql", MONITOR_URL, "-qtAX", "-c", sql], capture_output=True, text=True, timeout=5)
    return done.stdout.split()


def measure(name, fault):
    """Runs `fault` (which returns once it is done or under way), waits for
    a new primary and for moves acknowledged after it appeared, and
    prints the figures."""
    before = monitor_primary()
    started = time.time()
    fault()
    ok = wait(f"{name}: a new primary", lambda: primary_now() and primary_now() != before)
    promoted = time.time()
    ok = ok and wait(f"{name}: moves acknowledged again", lambda: any(t > promoted for t in ack_times()))
    time.sleep(STEADY)
    with lock:
        window = [(t, seen) for t, seen in samples if t >= started]
    # Without a primary: from the first sample without one to the first
    # with the new one (0 when no sample fell between).
    gone = next((t for t, seen in window if "f" not in seen.values()), None)
    back = next((t for t, seen in window if gone and t > gone and "f" in seen.values()), None)
    no_primary = (back - gone) if gone and back else 0.0
    # The longest pause in acknowledged moves from the fault on (counted
    # from the fault's start when none came after it at first).
    times = [started] + [t for t in ack_times() if t > started]
    pause_from, pause_to = max(zip(times, times[1:]), key=lambda gap: gap[1] - gap[0], default=(started, started))
    faults.append((name, started))
    figure = {
        "fault": name,
        "primary_before": before,
        "primary_after": primary_now(),
        "no_primary_s": round(no_primary, 2),
        "moves_paused_s": round(pause_to - pause_from, 2),
        "moves_again_after_s": round(pause_to - started, 2),
    }
    print(f"== {name}: no primary for {figure['no_primary_s']:.2f} s; no move acknowledged for "
          f"{figure['moves_paused_s']:.2f} s; moves acknowledged again {figure['moves_again_after_s']:.2f} s "
          f"after the fault began", flush=True)
    return ok, figure


def perform_failover():
    print("== pg_autoctl perform failover", flush=True)
    subprocess.run(AUTOCTL + ["perform", "failover", "--pgdata", MONITOR_PGDATA], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=RECOVER_WITHIN)


def monitor_primary():
    return [int(port) for port in psql_monitor("select nodeport from pgautofailover.node where reportedstate = 'primary'")]


def kill_primary():
    [port] = monitor_primary()
    print(f"== SIGKILL to the primary node on {port} (its postgres and pg_autoctl)", flush=True)
    os.killpg(NODE_GROUPS[port], signal.SIGKILL)


def main():
    began = time.time()
    threads = [threading.Thread(target=poll_nodes, daemon=True)]
    threads += [threading.Thread(target=person, args=(n,), daemon=True) for n in range(TABLES)]
    for t in threads:
        t.start()
    loadgen = subprocess.Popen([LOADGEN, "--url", PROXY, "--tables", "4", "--deals", "2", "--seconds", "600",
                                "--acked-log", os.path.join(WORK, "loadgen-acked.log")],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "loadgen.err"), "w"))
    time.sleep(STEADY)
    check("moves are acknowledged before the faults", len(ack_times()) > 0, f"{len(ack_times())} moves")

    figures = []
    ok, figure = measure("perform failover", perform_failover)
    figures.append(figure)
    if ok and wait("the old primary follows as the synchronous standby", formation_settled):
        ok, figure = measure("primary killed (SIGKILL)", kill_primary)
        figures.append(figure)

    stop.set()
    loadgen.send_signal(signal.SIGTERM)
    loadgen.wait(timeout=10)
    for t in threads[1:]:
        t.join(timeout=30)

    check("the person's client played on without an unexpected answer", not client_errors, client_errors[:3])
    seen = calls.recorded()
    errors = [a for a in seen if a.status >= 500 and a.status != 503]
    check("no answer 500 or another 5xx than 503 (the person's client)", not errors, errors[:3])
    bad = [a for a in seen if a.status == 503 and (a.code != "database_unavailable" or not a.retry_after)]
    check("every 503 is database_unavailable with Retry-After", not bad, bad[:3])
    unavailable = sum(1 for a in seen if a.status == 503)
    with open(os.path.join(WORK, "nginx-access.log")) as log:
        statuses = [line.split('" ', 1)[1].split()[0] for line in log if '" ' in line]
    proxied_errors = [s for s in statuses if s.startswith("5") and s != "503"]
    check("no answer 500 or another 5xx than 503 through nginx (every client)", not proxied_errors,
          f"{len(statuses)} requests, {statuses.count('503')} x 503, others: {sorted(set(proxied_errors))}")

    for pid, url in zip(INSTANCE_PIDS, DIRECT):
        alive = True
        try:
            os.kill(pid, 0)
        except OSError:
            alive = False
        check(f"instance {pid} is the same process as at the start", alive)
        try:
            with urllib.request.urlopen(url + "/readyz", timeout=5) as resp:
                ready = resp.status
        except Exception as err:
            ready = repr(err)
        check(f"instance {pid} ready at the end", ready == 200, str(ready))

    # The clients' logs against the database, read on the primary now.
    [primary] = primary_now() or [None]
    rows = psql(primary, "kaarttafel",
                "select game_id, seq, coalesce(seat, -1), coalesce(actor, ''), kind from game_events", timeout=60)
    events = {}
    for line in rows.splitlines():
        game, seq, seat, actor, kind = line.split("|")
        events[(game, int(seq))] = (int(seat), actor, kind)
    person_acked = dict(acked)
    load_acked = loadgen_acked()
    lost = []
    def when(at):
        """A time as seconds after the last fault that began before it."""
        before = [(name, t) for name, t in faults if t <= at]
        return f"{at - before[-1][1]:+.2f} s after {before[-1][0]}" if before else "before the faults"

    for (game, seq), (seat, at, *_rest) in list(person_acked.items()) + list(load_acked.items()):
        event = events.get((game, seq))
        if event is None or event[0] != seat or event[1] != "" or event[2] in ("created", "joined", "left"):
            last = max((s for g, s in events if g == game), default=0)
            lost.append((game, seq, seat, event, f"acknowledged {when(at)}", f"the game's last seq {last}"))
    total = len(person_acked) + len(load_acked)
    check(f"every acknowledged move is in the database, at its seq, by its seat ({total} moves: "
          f"{len(person_acked)} of the person, {len(load_acked)} of the load generator)", not lost, lost[:5])
    person_games = set(games)
    extra = [(game, seq) for (game, seq), (seat, actor, kind) in events.items()
             if game in person_games and seat == 0 and actor == "" and kind not in ("created", "joined", "left")
             and (game, seq) not in person_acked]
    check("no move of the person in the database without its answer (none applied twice)", not extra, extra[:5])
    holes = []
    by_game = {}
    for game, seq in events:
        by_game.setdefault(game, []).append(seq)
    for game, seqs in by_game.items():
        if sorted(seqs) != list(range(1, len(seqs) + 1)):
            holes.append(game)
    check(f"every game's events are numbered 1..n ({len(by_game)} games)", not holes, holes[:3])
    unanswered = sum(1 for (game, seq), (seat, actor, kind) in events.items()
                     if game not in person_games and actor == "" and kind not in ("created", "joined", "left")
                     and (game, seq) not in load_acked)

    print(f"\nsummary: {total} acknowledged moves, moves lost: {len(lost)}; {unavailable} x 503 to the person; "
          f"{unanswered} load generator moves applied whose answer it did not log (killed at the end, or an "
          f"answer lost in a fault: it does not retry); {time.time() - began:.0f} s")
    for figure in figures:
        print("figures: " + json.dumps(figure))
    print("FAILED: " + ", ".join(failures) if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
