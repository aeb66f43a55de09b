#!/usr/bin/env python3
"""Plays a whole Klaverjassen match and Potverteren rounds (both variants,
with seat seeds, across a chain renewal) against a running server, then
checks every deal with tools/verify_deals.py, and proves the verifier fails
on a copy of a log with one card swapped. Standard library only.

    play.py BASE_URL WORK_DIR SERVER_LOG
"""

import copy
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

BASE, WORK, SERVER_LOG = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
VERIFY = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "verify_deals.py")


def call(method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def ok(method, path, token=None, body=None):
    status, answer = call(method, path, token, body)
    assert status in (200, 201), f"{method} {path} {body}: {status} {answer}"
    return answer


def table(game, options, seats):
    tokens = [ok("POST", "/v1/players", body={"name": f"p{i}"})["token"] for i in range(seats)]
    game_id = ok("POST", "/v1/games", tokens[0], {"game": game, "options": options})["id"]
    for seat in range(1, seats):
        ok("POST", f"/v1/games/{game_id}/seats", tokens[seat], {"seat": seat})
    return game_id, tokens


def seed(game_id, token, value):
    ok("POST", f"/v1/games/{game_id}/moves", token, {"move": {"type": "seed", "value": value}})


def move(game_id, token, mv):
    return ok("POST", f"/v1/games/{game_id}/moves", token, {"move": mv})


def klaverjassen_match():
    game_id, tokens = table("klaverjassen", {"auto_deal": True}, 4)
    for seat, token in enumerate(tokens):
        seed(game_id, token, os.urandom(8 + seat).hex())
    view = ok("GET", f"/v1/games/{game_id}", tokens[0])
    while view["status"] != "finished":
        seat = view["awaiting"]["seats"][0]
        mine = ok("GET", f"/v1/games/{game_id}", tokens[seat])
        view = move(game_id, tokens[seat], mine["legal_moves"][0])
        if view["klaverjassen"]["deal_number"] == 9 and view["fairness"]["seat_seeds"][2] != "9999":
            seed(game_id, tokens[2], "9999")
            view = ok("GET", f"/v1/games/{game_id}", tokens[0])
    return game_id, tokens[0]


def potverteren(variant, seats, rounds, auto_deal):
    game_id, tokens = table(
        "potverteren", {"seats": seats, "variant": variant, "auto_deal": auto_deal}, seats
    )
    for seat in (1, seats - 1):
        seed(game_id, tokens[seat], os.urandom(4).hex())
    while True:
        view = ok("GET", f"/v1/games/{game_id}", tokens[0])
        table_view = view["potverteren"]
        settled = (table_view["last_round"] or {}).get("round", 0)
        if settled == rounds // 2 and view["fairness"]["seat_seeds"][0] is None:
            seed(game_id, tokens[0], "ab" * 32)
            continue
        if settled >= rounds and {"type": "end_table"} in view["legal_moves"]:
            move(game_id, tokens[0], {"type": "end_table"})
            return game_id, tokens[0]
        seat = view["awaiting"]["seats"][0]
        moves = ok("GET", f"/v1/games/{game_id}", tokens[seat])["legal_moves"]
        types = [m["type"] for m in moves]
        if "bid" in types and table_view["auction"]["high_bid"] is None:
            mv = moves[types.index("bid")]
        elif "hit" in types and not table_view["hands"][seat]["open_cards"]:
            mv = {"type": "hit"}
        else:
            mv = next(m for m in moves if m["type"] in ("pass", "stand", "deal"))
        move(game_id, tokens[seat], mv)


def verify(name, game_id, token):
    saved = os.path.join(WORK, f"{name}.json")
    result = subprocess.run(
        [sys.executable, VERIFY, "--url", BASE, "--token", token, "--game", game_id, "--save", saved],
        capture_output=True, text=True,
    )
    lines = result.stdout.splitlines()
    print(f"{name}: verify_deals.py exit {result.returncode}, {len(lines)} lines; last: {lines[-1] if lines else ''}")
    if result.returncode != 0:
        print(result.stdout + result.stderr)
        sys.exit(f"{name}: the verifier rejected an honest game")
    return saved


def must_fail(name, saved, tamper):
    with open(saved) as f:
        log = json.load(f)
    bad = copy.deepcopy(log)
    tamper(bad)
    path = saved.replace(".json", "-tampered.json")
    with open(path, "w") as f:
        json.dump(bad, f)
    result = subprocess.run([sys.executable, VERIFY, "--file", path], capture_output=True, text=True)
    failures = [l for l in result.stdout.splitlines() if l.startswith("FAIL")]
    print(f"{name} with one card swapped: exit {result.returncode}; {failures[:1]}")
    if result.returncode != 1 or not failures:
        sys.exit(f"{name}: the verifier accepted a tampered log")


def first_reveal(log):
    return next(r for e in log["events"] for r in e["data"].get("revealed", []))


def swap_klaverjassen_card(log):
    hands = first_reveal(log)["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


def swap_potverteren_card(log):
    hands = first_reveal(log)["hands"]
    hands[0]["cards"][0], hands[1]["cards"][0] = hands[1]["cards"][0], hands[0]["cards"][0]


def main():
    games = {
        "klaverjassen": klaverjassen_match(),
        "potverteren-auction": potverteren("auction", 5, 4, False),
        # 66 rounds: past the first 64-round chain, into a renewed one.
        "potverteren-lot": potverteren("lot", 6, 66, True),
    }
    saved = {name: verify(name, *game) for name, game in games.items()}
    must_fail("klaverjassen", saved["klaverjassen"], swap_klaverjassen_card)
    must_fail("potverteren-lot", saved["potverteren-lot"], swap_potverteren_card)
    # No server seed in the server's log lines, ever.
    with open(SERVER_LOG) as f:
        server_log = f.read()
    for path in saved.values():
        with open(path) as f:
            log = json.load(f)
        for event in log["events"]:
            for r in event["data"].get("revealed", []):
                if r["server_seed"] in server_log:
                    sys.exit("a server seed appears in the server's log")
    print("fair deals: every deal checked; a swapped card is caught; no seed in the server log")


if __name__ == "__main__":
    main()
