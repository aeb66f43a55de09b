#!/usr/bin/env python3
"""Check a Kaarttafel club evening against its commitment.

Written from docs/events.md ("Fair boards") and docs/fairness.md, with the
Python standard library and tools/verify_deals.py beside it only.

    verify_event.py --url http://127.0.0.1:8080 --token TOKEN --event EVENT_ID [--save FILE]
    verify_event.py --file saved.json
    verify_event.py --draw DRAW_SEED --event EVENT_ID --players N --rounds R [--seeds S1,,S3,...]

Checks that the draw seed (link 1 of the event's chain) hashes to the
commitment; that the schedule is the circle method (pairs) or the draw from
the draw seed and the entries' event seeds (individual); and, in a duplicate
evening, that every table's deal d of round r was dealt from board
(r - 1) * deals + d: the event's link 1 + board, the event's id and the
entries' seeds, so the same at every table. --draw prints an individual
draw. A saved file is {"event": <GET /v1/events/{id}>, "tables":
{game_id: <GET /v1/games/{game_id}>}}. Exits 1 if anything does not match.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_deals import (  # noqa: E402
    Stream, deck_order, hash_steps, klaverjassen_hands, message_prefix, saved_or_fetched,
)

DRAW = 3


def shuffle(stream, items):
    """Fisher-Yates: for i from the last index down to 1, swap i with below(i + 1)."""
    for i in range(len(items) - 1, 0, -1):
        j = stream.below(i + 1)
        items[i], items[j] = items[j], items[i]


def circle(n, ri):
    """Round ri (from 0) of the circle method over 0..n-1, n-1 staying: [(a, b, k)]."""
    m = n - 1
    ri %= m
    return [(n - 1, ri, 0)] + [((ri + k) % m, (ri + m - k) % m, k) for k in range(1, n // 2)]


def pairs_round(pairs, round_number):
    """The tables of a pairs round: (entry in seats 0 and 2, entry in 1 and 3), from 0."""
    tables = []
    for a, b, k in circle(pairs, (round_number - 1) % (pairs - 1)):
        a_first = round_number % 2 == 0 if k == 0 else k % 2 == 1
        tables.append((a, b) if a_first else (b, a))
    return tables


def individual_draw(players, rounds, draw_seed, event_id, seeds):
    """Every round's tables of an individual evening, as seats 0..3 of entries from 0."""
    stream = Stream(draw_seed, message_prefix(DRAW, event_id, 0, seeds))
    order = list(range(players))
    shuffle(stream, order)
    drawn = []
    for ri in range(rounds):
        partnerships = [(order[a], order[b]) for a, b, _ in circle(players, ri)]
        shuffle(stream, partnerships)
        drawn.append([
            [first[0], second[0], first[1], second[1]]
            for first, second in zip(partnerships[0::2], partnerships[1::2])
        ])
    return drawn


def check(event, tables):
    failures = []
    commitment = event["fairness"]["commitment"]
    draw_seed = event["fairness"]["draw_seed"]
    if draw_seed is None:
        return ["the event has not started: no draw seed yet"]
    draw_seed = bytes.fromhex(draw_seed)
    # Link k of the chain hashes k times to the commitment, link 0.
    if hash_steps(draw_seed, 1).hex() != commitment:
        failures.append("the draw seed does not hash to the commitment")
    entries = event["entries"]
    seeds = [e["seed"] for e in entries]
    player_entry = {}
    for e in entries:
        for member, p in enumerate(e["players"]):
            player_entry[p["id"]] = (e["entry"] - 1, member)
    if event["format"] == "pairs":
        expected = [
            [[a, b, a, b] for a, b in pairs_round(len(entries), r)]
            for r in range(1, event["rounds"] + 1)
        ]
    else:
        expected = individual_draw(len(entries), event["rounds"], draw_seed, event["id"], seeds)
    for rnd in event["schedule"]:
        r = rnd["round"]
        for t, table in enumerate(rnd["tables"]):
            seated = [player_entry[s["player"]][0] for s in table["seats"]]
            if seated != expected[r - 1][t]:
                failures.append(f"round {r} table {t + 1}: seats {seated}, the schedule says {expected[r - 1][t]}")
            if not event["duplicate"]:
                continue
            view = tables.get(table["game_id"])
            if view is None:
                failures.append(f"round {r} table {t + 1}: no table view given")
                continue
            for row in view["klaverjassen"]["deals"]:
                board = (r - 1) * event["deals"] + row["number"]
                seed = bytes.fromhex(row["server_seed"])
                problems = []
                # Link 1 + board hashes down `board` steps to link 1, the draw seed.
                if hash_steps(seed, board) != draw_seed:
                    problems.append("server seed is not the event's link of this board")
                if row["seat_seeds"] != seeds:
                    problems.append("seeds mixed in are not the entries' event seeds")
                deck = deck_order(seed, event["id"], board, row["seat_seeds"], "klaverjassen")
                dealt = klaverjassen_hands(deck, row["dealer"])
                if any(sorted(dealt[s]) != sorted(row["hands"][s]) for s in range(4)):
                    problems.append("hands are not the board's deck")
                where = f"round {r} table {t + 1} deal {row['number']} (board {board})"
                if problems:
                    failures.append(where + ": " + "; ".join(problems))
                else:
                    print(f"ok   {where}: deck {' '.join(deck[:8])} ...")
    return failures


def fetch(get, event_id):
    event = get(f"/v1/events/{event_id}")
    tables = {
        t["game_id"]: get(f"/v1/games/{t['game_id']}")
        for rnd in event["schedule"] for t in rnd["tables"]
    }
    return {"event": event, "tables": tables}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file")
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--event")
    parser.add_argument("--save")
    parser.add_argument("--draw")
    parser.add_argument("--players", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--seeds", default="")
    args = parser.parse_args()
    if args.draw:
        seeds = [s or None for s in args.seeds.split(",")] if args.seeds else [None] * args.players
        for r, tables in enumerate(individual_draw(args.players, args.rounds, bytes.fromhex(args.draw), args.event, seeds)):
            shown = "  ".join(f"{t[0] + 1}+{t[2] + 1} v {t[1] + 1}+{t[3] + 1}" for t in tables)
            print(f"round {r + 1}: {shown}")
        return
    saved = saved_or_fetched(parser, args, lambda get: fetch(get, args.event), "event",
                             also=", or --draw")
    try:
        failures = check(saved["event"], saved["tables"])
    except (KeyError, ValueError, TypeError) as error:
        print(f"FAIL unreadable event: {error!r}")
        sys.exit(2)
    for failure in failures:
        print("FAIL " + failure)
    if not failures:
        print("ok   the event's draw seed, schedule and boards match its commitment")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
