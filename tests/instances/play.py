#!/usr/bin/env python3
"""Exactly once across instances: two release instances on one Postgres.

Started by tests/instances/run.sh, which passes the instances' URLs and the
second one's pid. Two phases, each on TABLES fresh Klaverjassen tables (one
person in seat 0, three `basic` computer players, `bot_delay_ms: 0`, DEALS
deals, enforced revokes):

1. both instances serve: the person's moves and reads alternate between
   them, while both schedulers make the computer players' moves;
2. the same, and once KILL_AFTER person moves are made the second instance
   gets SIGKILL: the survivor must finish every table.

After each phase every table must be finished, and its event log complete:
seq 1..version with no gap and no duplicate, every deal dealt once, trump
named once per deal, 32 cards per deal, 8 from each seat, no card twice, and
every move of a computer-player seat made `by: bot` (each automatic move
once). No request may get a 5xx. Prints a summary; exits non-zero on the
first failure.
"""
import http.client
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from http_calls import request  # noqa: E402

URLS = os.environ["INSTANCE_URLS"].split()
KILL_PID = int(os.environ["KILL_PID"])
TABLES = int(os.environ.get("TABLES", "40"))
DEALS = int(os.environ.get("DEALS", "2"))
KILL_AFTER = int(os.environ.get("KILL_AFTER", "150"))
PHASE_SECONDS = float(os.environ.get("PHASE_SECONDS", "150"))

lock = threading.Lock()
stats = {"requests": [0] * len(URLS), "server_errors": [], "person_moves": 0,
         "conflicts": 0, "lost_to_kill": 0}
killed = threading.Event()


class Dead(Exception):
    """The instance asked is the one killed: ask the survivor."""


def call(index, method, path, token=None, body=None, headers=None, timeout=30):
    req = request(URLS[index] + path, method, token, body, headers)
    with lock:
        stats["requests"][index] += 1
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
        if index == 1 and killed.is_set():
            with lock:
                stats["lost_to_kill"] += 1
            raise Dead() from err
        raise
    if status >= 500:
        with lock:
            stats["server_errors"].append(f"{method} {path} on instance {index}: {status} {raw[:200]!r}")
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw


def on_any(order, method, path, *args, **kwargs):
    """Asks the instances in `order`, skipping the killed one."""
    for index in order:
        if index == 1 and killed.is_set():
            continue
        try:
            return call(index, method, path, *args, **kwargs)
        except Dead:
            continue
    raise RuntimeError("no instance answered")


def new_table(n, phase):
    status, body = call(0, "POST", "/v1/players", body={"name": f"Anne {phase}-{n}"})
    assert status == 201, body
    token = body["token"]
    bots = [{"level": "basic"}] * 3
    status, view = call(n % 2, "POST", "/v1/games", token,
                        {"game": "klaverjassen", "bots": bots,
                         "options": {"deals": DEALS, "bot_delay_ms": 0, "revoke_mode": "enforced"}})
    assert status == 201 and view["status"] == "playing", (status, view)
    return view["id"], token


def person_move(view):
    moves = view["legal_moves"]
    for kind in ("deal", "choose_trump", "play"):
        for mv in moves:
            if mv["type"] == kind:
                return mv
    return None


def play_table(n, gid, token, kill, deadline):
    """Plays the person's moves, alternating instances, until the table is
    finished; the move that makes the person moves `kill` kills the second
    instance."""
    turn = n
    status, view = on_any([0, 1], "GET", f"/v1/games/{gid}", token)
    assert status == 200, view
    while view["status"] == "playing":
        if time.monotonic() > deadline:
            raise AssertionError(f"table {gid} still playing at version {view['version']}")
        turn += 1
        order = [turn % 2, (turn + 1) % 2]
        mv = person_move(view)
        if mv is None:
            status, fresh = on_any(order, "GET", f"/v1/games/{gid}?wait_for_version={view['version']}&timeout_s=5",
                                   token, timeout=15)
            assert status == 200, fresh
            view = fresh
            continue
        key = {"Idempotency-Key": f"{gid}-{view['version']}"}
        status, answer = on_any(order, "POST", f"/v1/games/{gid}/moves", token,
                                {"move": mv, "expected_version": view["version"]}, key)
        if status == 200:
            with lock:
                stats["person_moves"] += 1
                moved = stats["person_moves"]
            if kill is not None and moved == kill:
                killed.set()
                os.kill(KILL_PID, signal.SIGKILL)
                print(f"   SIGKILL to the second instance at person move {moved}", flush=True)
            view = answer
        elif status == 409:
            with lock:
                stats["conflicts"] += 1
            status, view = on_any(order, "GET", f"/v1/games/{gid}", token)
            assert status == 200, view
        else:
            raise AssertionError(f"move {mv} on {gid}: {status} {answer}")
    return view


def events_of(gid, token):
    events, after = [], 0
    while True:
        status, page = on_any([0, 1], "GET", f"/v1/games/{gid}/events?after={after}&limit=500", token)
        assert status == 200, page
        if not page["events"]:
            return events
        events.extend(page["events"])
        after = page["next_after"]


def check_log(gid, token):
    """None when the table's event log is complete, else what is wrong."""
    status, view = on_any([0, 1], "GET", f"/v1/games/{gid}", token)
    if view["status"] != "finished" or len(view["klaverjassen"]["deals"]) != DEALS:
        return f"{gid} not finished: {view['status']}"
    events = events_of(gid, token)
    seqs = [e["seq"] for e in events]
    if seqs != list(range(1, view["version"] + 1)):
        return f"{gid}: seq {seqs[:5]}... is not 1..{view['version']}"
    deals, trumps, automatic = 0, 0, 0
    plays = []
    for e in events:
        kind = e["data"].get("type")
        if e["seat"] in (1, 2, 3) and kind in ("deal", "choose_trump", "play"):
            if e["by"] != "bot":
                return f"{gid}: seat {e['seat']}'s {kind} made by {e['by']}"
            automatic += 1
        if e["seat"] == 0 and e["by"] != "player":
            return f"{gid}: the person's {kind} made by {e['by']}"
        if kind == "deal":
            deals += 1
            plays.append([])
        elif kind == "choose_trump":
            trumps += 1
        elif kind == "play":
            if not plays:
                return f"{gid}: a card played before any deal"
            plays[-1].append((e["seat"], e["data"]["card"]))
    if deals != DEALS or trumps != DEALS:
        return f"{gid}: {deals} deals and {trumps} trump choices for {DEALS} deals"
    for number, deal in enumerate(plays, start=1):
        cards = [card for _, card in deal]
        per_seat = [sum(1 for s, _ in deal if s == seat) for seat in range(4)]
        if len(cards) != 32 or len(set(cards)) != 32 or per_seat != [8] * 4:
            return f"{gid} deal {number}: {len(cards)} cards, {len(set(cards))} distinct, per seat {per_seat}"
    return automatic


def phase(name, number, kill):
    started = time.monotonic()
    deadline = started + PHASE_SECONDS
    kill = stats["person_moves"] + KILL_AFTER if kill else None
    with ThreadPoolExecutor(max_workers=16) as pool:
        tables = list(pool.map(lambda n: new_table(n, number), range(TABLES)))
        results = list(pool.map(lambda a: play_table(a[0], a[1][0], a[1][1], kill, deadline),
                                enumerate(tables)))
        checks = list(pool.map(lambda t: check_log(*t), tables))
    problems = [c for c in checks if isinstance(c, str)]
    automatic = sum(c for c in checks if not isinstance(c, str))
    elapsed = time.monotonic() - started
    finished = sum(1 for v in results if v["status"] == "finished")
    print(f"{name}: {finished}/{TABLES} tables finished ({DEALS} deals each) in {elapsed:.1f} s; "
          f"{automatic} automatic moves each once; person moves so far {stats['person_moves']}, "
          f"conflicts {stats['conflicts']}", flush=True)
    return problems


def main():
    failures = []
    failures += phase("phase 1 (both instances)", 1, kill=False)
    failures += phase("phase 2 (SIGKILL to one instance mid-run)", 2, kill=True)
    if not killed.is_set():
        failures.append(f"the second instance was never killed (KILL_AFTER={KILL_AFTER} person moves not reached)")
    failures += stats["server_errors"]
    print(f"requests per instance {stats['requests']}, lost to the kill {stats['lost_to_kill']}, "
          f"5xx answers {len(stats['server_errors'])}")
    for failure in failures[:20]:
        print("FAIL", failure)
    if failures:
        sys.exit(1)
    print("ok: every table finished with a complete event log, every automatic move once, no 5xx")


if __name__ == "__main__":
    main()
