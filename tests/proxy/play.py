#!/usr/bin/env python3
"""Plays through nginx in front of two instances sharing one Postgres.

Started by tests/proxy/run.sh, which starts the pieces and passes their
addresses. Checks: a whole Klaverjassen match and Potverteren rounds through
the proxy with requests spread over both instances; parallel moves on one
game through both instances (exactly one applies per version); the API,
/openapi.json and Swagger UI under the path prefix; SIGTERM to one instance
mid-play loses no acknowledged move and play goes on; /metrics parses as
Prometheus text. Exits non-zero on the first failure and prints
'N passed, N failed'.
"""
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.error
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from http_calls import request  # noqa: E402

PROXY = os.environ["PROXY_URL"]          # e.g. http://127.0.0.1:18090/cards
DIRECT = os.environ["DIRECT_URLS"].split()  # the two instances, with the prefix
METRICS = os.environ["METRICS_URLS"].split()  # their METRICS_ADDR, in the same order
PIDS = [int(p) for p in os.environ["INSTANCE_PIDS"].split()]

passed = 0
failed = 0


def call(base, method, path, token=None, body=None, headers=None):
    req = request(base + path, method, token, body, headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, lower(resp.headers), (json.loads(raw) if raw and resp.headers.get_content_type().endswith("json") else raw)
    except urllib.error.HTTPError as err:
        raw = err.read()
        try:
            return err.code, lower(err.headers), json.loads(raw)
        except ValueError:
            return err.code, lower(err.headers), raw


def lower(headers):
    """Header names in lower case (HTTP names are case-insensitive)."""
    return {name.lower(): value for name, value in headers.items()}


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")
        print(f"{passed} passed, {failed} failed")
        sys.exit(1)


def player(name, base=PROXY):
    status, _, body = call(base, "POST", "/v1/players", body={"name": name})
    assert status == 201, body
    return body["token"]


def full_table(game, options, seats, base=PROXY):
    tokens = [player(f"p{i}", base) for i in range(seats)]
    status, headers, view = call(base, "POST", "/v1/games", tokens[0], {"game": game, "options": options})
    assert status == 201, view
    assert headers.get("location") == f"/cards/v1/games/{view['id']}", headers
    gid = view["id"]
    for i, token in enumerate(tokens[1:], start=1):
        status, _, view = call(base, "POST", f"/v1/games/{gid}/seats", token, {"seat": i})
        assert status == 200, view
    return gid, tokens


def step(gid, tokens, rng, base=PROXY, skip=("report_revoke", "take_back", "end_table")):
    """Makes one random legal move of the seat the table waits for; returns the answer."""
    status, _, view = call(base, "GET", f"/v1/games/{gid}", tokens[0])
    assert status == 200, view
    if view["status"] == "finished":
        return None
    seat = view["awaiting"]["seats"][0]
    status, _, own = call(base, "GET", f"/v1/games/{gid}", tokens[seat])
    assert status == 200, own
    moves = [m for m in own["legal_moves"] if m["type"] not in skip]
    passes = [m for m in moves if m["type"] == "pass"]
    mv = passes[0] if passes and rng.random() < 0.6 else rng.choice(moves)
    status, _, answer = call(base, "POST", f"/v1/games/{gid}/moves", tokens[seat],
                             {"move": mv, "expected_version": own["version"]})
    assert status == 200, (mv, answer)
    return answer


def requests_served(metrics):
    """Requests an instance has answered, from its own /metrics (at `metrics`)."""
    status, _, text = call(metrics, "GET", "/metrics")
    families = list(text_string_to_metric_families(text.decode()))
    return sum(s.value for f in families if f.name == "kaarttafel_http_requests" for s in f.samples
               if s.name.endswith("_total")), families


def main():
    rng = random.Random(2026)
    before = [requests_served(metrics)[0] for metrics in METRICS]

    # Prefix: API, document and Swagger UI through nginx.
    status, _, doc = call(PROXY, "GET", "/openapi.json")
    check("openapi.json through nginx under the prefix", status == 200 and doc.get("openapi") == "3.1.0", status)
    check("its servers entry names the prefix", doc.get("servers") == [{"url": "/cards"}], doc.get("servers"))
    status, _, page = call(PROXY, "GET", "/docs/")
    check("Swagger UI through nginx under the prefix", status == 200 and b"swagger" in page.lower(), status)
    status, _, init = call(PROXY, "GET", "/docs/swagger-initializer.js")
    check("Swagger UI loads the prefixed document", status == 200 and b"/cards/openapi.json" in init, init[:300])

    # A whole Klaverjassen match through the proxy.
    gid, tokens = full_table("klaverjassen", {"auto_deal": True}, 4)
    moves = 0
    while step(gid, tokens, rng) is not None:
        moves += 1
    status, _, view = call(PROXY, "GET", f"/v1/games/{gid}", tokens[0])
    sheet = view["klaverjassen"]["deals"]
    check("a 16-deal Klaverjassen match is played through nginx",
          view["status"] == "finished" and len(sheet) == 16 and all(
              d["card_points"]["A"] + d["card_points"]["B"] == 162 for d in sheet), f"{moves} moves")

    # Potverteren rounds, both variants.
    for variant in ("auction", "lot"):
        gid, tokens = full_table("potverteren", {"seats": 6, "variant": variant}, 6)
        while True:
            _, _, view = call(PROXY, "GET", f"/v1/games/{gid}", tokens[0])
            last = view["potverteren"]["last_round"]
            if last and last["round"] >= 3:
                break
            step(gid, tokens, rng)
        chips = sum(view["potverteren"]["balances"]) + view["potverteren"]["pot"]
        check(f"three Potverteren rounds ({variant}) through nginx, chips conserved", chips == 600, chips)

    # An invite code seats a friend through nginx; the code is kept for the
    # access-log check in run.sh (INVITE_CODE_FILE).
    host = player("Host")
    status, _, private = call(PROXY, "POST", "/v1/games", host, {"game": "klaverjassen",
                                                                 "options": {"private": True}})
    code = private.get("invite_code")
    friend = player("Friend")
    shown, _, _ = call(PROXY, "GET", f"/v1/invites/{code}", friend)
    seated, _, seat_view = call(PROXY, "POST", f"/v1/invites/{code.lower()}", friend, {"seat": 2})
    check("an invite code seats a friend through nginx",
          status == 201 and shown == 200 and seated == 200 and seat_view.get("you") == 2,
          (status, shown, seated))
    if os.environ.get("INVITE_CODE_FILE"):
        with open(os.environ["INVITE_CODE_FILE"], "w") as out:
            out.write(code)

    after = [requests_served(metrics)[0] for metrics in METRICS]
    spread = [a - b for a, b in zip(after, before)]
    check("requests were spread over both instances", all(n > 50 for n in spread), spread)

    # Parallel moves on one version through both instances.
    gid, tokens = full_table("klaverjassen", {"auto_deal": True}, 4)
    _, _, view = call(PROXY, "GET", f"/v1/games/{gid}", tokens[0])
    chooser, version = view["awaiting"]["seats"][0], view["version"]
    results = []

    def attempt(i):
        base = DIRECT[i % 2]
        suit = "CDHS"[i % 4]
        status, _, _ = call(base, "POST", f"/v1/games/{gid}/moves", tokens[chooser],
                            {"move": {"type": "choose_trump", "suit": suit}, "expected_version": version})
        results.append(status)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("16 parallel moves through both instances: exactly one applies",
          results.count(200) == 1 and results.count(409) == 15, sorted(results))
    _, _, view = call(PROXY, "GET", f"/v1/games/{gid}", tokens[0])
    check("the version moved by exactly one", view["version"] == version + 1, view["version"])

    # SIGTERM to one instance in the middle of play.
    gid, tokens = full_table("klaverjassen", {"auto_deal": True}, 4)
    acknowledged = []
    stop = threading.Event()
    errors = []

    def play():
        local = random.Random(7)
        while not stop.is_set():
            try:
                answer = step(gid, tokens, local)
            except AssertionError as err:  # a refused or failed request: note it, go on
                errors.append(repr(err.args))
                time.sleep(0.05)
                continue
            except OSError as err:
                errors.append(str(err))
                time.sleep(0.05)
                continue
            if answer is None:
                return
            acknowledged.append(answer["version"])
            time.sleep(0.01)  # a human pace, so the match outlasts this part

    player_thread = threading.Thread(target=play)
    player_thread.start()
    time.sleep(1.0)
    at_kill = len(acknowledged)
    os.kill(PIDS[0], signal.SIGTERM)
    time.sleep(2.0)
    stop.set()
    player_thread.join()
    check("no request failed with a server error", not any(" 50" in e for e in errors), errors)
    check("moves were acknowledged before and after SIGTERM",
          at_kill > 5 and len(acknowledged) > at_kill + 5, (at_kill, len(acknowledged)))
    survivor = DIRECT[1]
    seqs, after = set(), 0
    while True:
        status, _, page = call(survivor, "GET", f"/v1/games/{gid}/events?after={after}&limit=500", tokens[0])
        if not page["events"]:
            break
        seqs |= {e["seq"] for e in page["events"]}
        after = page["next_after"]
    lost = [v for v in acknowledged if v not in seqs]
    check("every acknowledged move is in the database", not lost, lost)
    status, _, view = call(survivor, "GET", f"/v1/games/{gid}", tokens[0])
    check("the game is at the last acknowledged version or later",
          view["version"] >= max(acknowledged), (view["version"], max(acknowledged)))
    continued = [step(gid, tokens, rng) for _ in range(5)]
    check("play continues on the other instance",
          all(a is not None for a in continued) and continued[-1]["version"] == view["version"] + 5,
          [a and a["version"] for a in continued])

    # /metrics is on METRICS_ADDR only: not on the API's port, not through nginx.
    hidden = [call(DIRECT[1], "GET", "/metrics")[0], call(DIRECT[1].removesuffix("/cards"), "GET", "/metrics")[0],
              call(PROXY, "GET", "/metrics")[0], call(PROXY.removesuffix("/cards"), "GET", "/metrics")[0]]
    check("/metrics is not on the API's port nor through nginx", hidden == [404] * 4, hidden)
    # /metrics parses as Prometheus text and counts moves by game.
    _, families = requests_served(METRICS[1])
    names = {f.name for f in families}
    check("/metrics parses", {"kaarttafel_http_requests", "kaarttafel_http_request_duration_seconds",
                              "kaarttafel_moves", "kaarttafel_db_pool_connections"} <= names, names)
    games = {s.labels.get("game") for f in families if f.name == "kaarttafel_moves" for s in f.samples}
    check("moves are counted by game", {"klaverjassen", "potverteren"} <= games, games)
    routes = {s.labels.get("route") for f in families if f.name == "kaarttafel_http_requests" for s in f.samples}
    check("routes are patterns, never raw paths", "/cards/v1/games/{id}/moves" in routes and not any(
        r and "-" in r.split("/")[-1] and len(r.split("/")[-1]) == 36 for r in routes), routes)

    print(f"{passed} passed, {failed} failed")


if __name__ == "__main__":
    main()
