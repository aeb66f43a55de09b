#!/usr/bin/env python3
"""Notifications under faults: started by tests/notifications/run.sh.

PLAYERS players, each with a webhook subscription to the receiver here and
a Klaverjassen table with three `basic` computer players, play one move
each time the receiver is told it is their turn (a `your_turn`), on either
instance. The receiver records every attempt (webhook-id, the status it
answered) and checks every signature.

1. Both instances deliver: no id is acknowledged twice (an id comes again
   only after an attempt that failed).
2. The receiver is down (its port closed) for DOWN_SECONDS with turns
   waiting to be told, then back: every player is told of the turn the
   table waits for, each id acknowledged once.
3. The first instance is stopped (SIGSTOP) and the receiver holds its
   answers, so the second instance's deliveries hang; it is killed with
   SIGKILL; the first, running again, delivers everything once the killed
   instance's hold on its rows runs out: nothing lost.
Exits non-zero on the first failure.
"""
import base64
import hashlib
import hmac
import http.server
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request

URLS = os.environ["INSTANCE_URLS"].split()
KILL_PID = int(os.environ["KILL_PID"])
KEEP_PID = int(os.environ["KEEP_PID"])
RECEIVER_PORT = int(os.environ["RECEIVER_PORT"])
PLAYERS = int(os.environ.get("PLAYERS", "12"))
DOWN_SECONDS = float(os.environ.get("DOWN_SECONDS", "30"))
WAIT = float(os.environ.get("WAIT_SECONDS", "60"))

lock = threading.Lock()
attempts = []            # (webhook-id, status, payload)
secrets = {}             # player id -> secret
hold = threading.Event()  # set: the receiver holds its answers
killed = threading.Event()
stopped = threading.Event()  # set: the first instance is stopped (SIGSTOP)
in_flight = [0]
failures = []
OBSERVER = []            # the onlooker's token


def fail(message):
    print("FAIL", message, flush=True)
    failures.append(message)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        player = self.path.rsplit("/", 1)[-1]
        msg_id = self.headers["webhook-id"]
        ts = self.headers["webhook-timestamp"]
        key = base64.b64decode(secrets[player].removeprefix("whsec_"))
        expected = "v1," + base64.b64encode(
            hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
        if expected not in self.headers["webhook-signature"].split(" "):
            fail(f"bad signature on {msg_id}")
        held = hold.is_set()
        with lock:
            in_flight[0] += 1
        while hold.is_set():
            time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        payload = json.loads(body)
        payload["player"] = player
        with lock:
            # A held request's sender may be gone by the answer: not counted
            # as acknowledged (status 0).
            attempts.append((msg_id, 0 if held else 204, payload))
        self.send_response(204)
        self.send_header("content-length", "0")
        self.end_headers()


class Receiver:
    def __init__(self):
        self.server = None

    def up(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", RECEIVER_PORT), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def down(self):
        self.server.shutdown()
        self.server.server_close()


def call(index, method, path, token=None, body=None):
    if index == 1 and killed.is_set():
        index = 0
    if index == 0 and stopped.is_set():
        index = 1
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URLS[index] + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    if status >= 500:
        fail(f"{method} {path}: {status} {raw[:200]!r}")
    return status, json.loads(raw) if raw else None


class Player:
    def __init__(self, n):
        status, body = call(n % 2, "POST", "/v1/players", body={"name": f"Player {n}"})
        assert status == 201, body
        self.id, self.token, self.n = body["id"], body["token"], n
        status, hook = call(n % 2, "POST", "/v1/players/me/subscriptions", self.token,
                            {"kind": "webhook", "url": f"http://127.0.0.1:{RECEIVER_PORT}/hook/{self.id}"})
        assert status == 201, hook
        secrets[self.id] = hook["secret"]
        status, view = call(n % 2, "POST", "/v1/games", self.token,
                            {"game": "klaverjassen", "bots": [{"level": "basic"}] * 3,
                             "options": {"deals": 2, "bot_delay_ms": 0, "first_dealer": 3}})
        assert status == 201, view
        self.game = view["id"]

    def move(self):
        """Plays the moves the table waits for from this player; the view."""
        status, view = call(self.n % 2, "GET", f"/v1/games/{self.game}", self.token)
        while view["status"] == "playing" and 0 in view["awaiting"]["seats"]:
            mv = next(m for m in view["legal_moves"] if m["type"] in ("deal", "choose_trump", "play"))
            status, view = call((self.n + 1) % 2, "POST", f"/v1/games/{self.game}/moves", self.token,
                                {"move": mv})
            assert status == 200, view
        return view

    def awaited_version(self):
        """The version at which the table waits for this player; None while
        the computer players move; "over" once the match is."""
        # Read by an onlooker: the player's own read would count as being at
        # the game, and its notification would rightly not be sent.
        status, view = call(0, "GET", f"/v1/games/{self.game}", OBSERVER[0])
        if view["status"] != "playing":
            return "over"
        if 0 in view["awaiting"]["seats"]:
            return view["version"]
        return None


def told(player, version):
    with lock:
        return any(p["player"] == player.id and p["type"] == "your_turn" and p["version"] == version
                   and status == 204 for _, status, p in attempts)


def wait_until_told(players, label):
    """Waits until every player is told of the turn its table waits for."""
    deadline = time.monotonic() + WAIT
    waiting = list(players)
    while waiting and time.monotonic() < deadline:
        waiting = [p for p in waiting
                   if (v := p.awaited_version()) != "over" and (v is None or not told(p, v))]
        time.sleep(0.2)
    for p in waiting:
        fail(f"{label}: player {p.n} never told of its turn at version {p.awaited_version()}")


def check_acknowledged_once(label):
    with lock:
        seen = {}
        for msg_id, status, _ in attempts:
            if 200 <= status < 300:
                seen[msg_id] = seen.get(msg_id, 0) + 1
    twice = [i for i, c in seen.items() if c > 1]
    if twice and label:
        fail(f"{label}: {len(twice)} ids acknowledged more than once, such as {twice[0]}")
    return seen


def main():
    receiver = Receiver()
    receiver.up()
    status, onlooker = call(0, "POST", "/v1/players", body={"name": "Onlooker"})
    assert status == 201, onlooker
    OBSERVER.append(onlooker["token"])
    players = [Player(n) for n in range(PLAYERS)]
    print(f"{PLAYERS} players at tables with three computer players", flush=True)

    # 1. Both instances deliver; each turn's notification is acknowledged once.
    wait_until_told(players, "phase 1")
    for _ in range(3):
        for p in players:
            p.move()
        wait_until_told(players, "phase 1")
    check_acknowledged_once("phase 1 (two instances)")
    print(f"phase 1: {len(attempts)} notifications, none sent by both instances", flush=True)

    # 2. The receiver is down with turns to tell.
    receiver.down()
    down_at = time.monotonic()
    for p in players:
        p.move()
    time.sleep(max(0.0, DOWN_SECONDS - (time.monotonic() - down_at)))
    receiver.up()
    wait_until_told(players, "phase 2 (receiver down, then back)")
    check_acknowledged_once("phase 2 (receiver down, then back)")
    print(f"phase 2: receiver down {DOWN_SECONDS:.0f} s; every turn told once it was back", flush=True)

    # 3. The first instance is stopped, so that the second takes every
    # delivery; the deliveries hang at the receiver; the second instance is
    # killed; the first, running again, delivers them once their hold runs out.
    os.kill(KEEP_PID, signal.SIGSTOP)
    stopped.set()
    hold.set()
    for p in players:
        p.move()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and in_flight[0] < PLAYERS:
        time.sleep(0.05)
    hanging = in_flight[0]
    killed.set()
    os.kill(KILL_PID, signal.SIGKILL)
    os.kill(KEEP_PID, signal.SIGCONT)
    stopped.clear()
    hold.clear()
    if hanging == 0:
        fail("phase 3: no delivery was in flight when the instance was killed")
    wait_until_told(players, "phase 3 (SIGKILL mid-delivery)")
    seen = check_acknowledged_once("phase 3 (SIGKILL mid-delivery)")
    print(f"phase 3: SIGKILL with {hanging} deliveries in flight; the survivor delivered them "
          f"once the killed instance's hold ran out: nothing lost", flush=True)
    if failures:
        sys.exit(1)
    print(f"ok: {len(seen)} notifications, each acknowledged, none sent by both instances")


if __name__ == "__main__":
    main()
