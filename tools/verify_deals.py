#!/usr/bin/env python3
"""Check every deal of a finished Kaarttafel game against its commitments.

Written from docs/fairness.md alone, with the Python standard library only.

    verify_deals.py --url http://127.0.0.1:8080 --token TOKEN --game GAME_ID [--save FILE]
    verify_deals.py --file saved.json

A saved file is {"view": <GET /v1/games/{id}>, "events": [<every event of
GET /v1/games/{id}/events>]}; --save writes one. Prints one line per deal and
exits 1 if anything does not match (2 on bad input).
"""

import argparse
import hashlib
import hmac
import json
import sys
import urllib.request
import uuid

DOMAIN = b"kaarttafel fair deal v1"
DECK, LOT = 1, 2
SUITS = "CDHS"
KLAVERJASSEN_RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]
POTVERTEREN_RANKS = ["2", "3", "4", "5", "6", "7", "9", "10", "J", "Q", "K", "A"]


def canonical_deck(game):
    """The deck before shuffling, as docs/fairness.md lists it."""
    if game == "klaverjassen":
        return [r + s for s in SUITS for r in KLAVERJASSEN_RANKS]
    return [r + s for s in SUITS for r in POTVERTEREN_RANKS if r != "6" or s == "H"]


def message_prefix(purpose, game_id, deal, seat_seeds):
    out = bytearray(DOMAIN)
    out += bytes([0, purpose])
    out += uuid.UUID(game_id).bytes
    out += deal.to_bytes(4, "big")
    out += bytes([len(seat_seeds)])
    for seed in seat_seeds:
        text = (seed or "").lower().encode("ascii")
        out += bytes([len(text)]) + text
    return bytes(out)


class Stream:
    """HMAC-SHA-256 in counter mode, read as big-endian 32-bit words."""

    def __init__(self, key, prefix):
        self.key, self.prefix, self.counter, self.buffer = key, prefix, 0, b""

    def word(self):
        if not self.buffer:
            message = self.prefix + self.counter.to_bytes(4, "big")
            self.buffer = hmac.new(self.key, message, hashlib.sha256).digest()
            self.counter += 1
        word, self.buffer = self.buffer[:4], self.buffer[4:]
        return int.from_bytes(word, "big")

    def below(self, n):
        limit = 2**32 - (2**32 % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n


def deck_order(server_seed, game_id, deal, seat_seeds, game):
    cards = canonical_deck(game)
    stream = Stream(server_seed, message_prefix(DECK, game_id, deal, seat_seeds))
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def lot(server_seed, game_id, deal, seat_seeds):
    seats = len(seat_seeds)
    return Stream(server_seed, message_prefix(LOT, game_id, deal, seat_seeds)).below(seats)


def hash_steps(seed, steps):
    for _ in range(steps):
        seed = hashlib.sha256(seed).digest()
    return seed


def klaverjassen_hands(deck, dealer):
    """Dealt 3-2-3 from the top, starting with the seat after the dealer."""
    hands = [[] for _ in range(4)]
    position = 0
    for packet in (3, 2, 3):
        for offset in range(1, 5):
            seat = (dealer + offset) % 4
            hands[seat] += deck[position:position + packet]
            position += packet
    return hands


def potverteren_order(pothouder, seats, variant):
    order = [(pothouder + step) % seats for step in range(1, seats + 1)]
    return order if variant == "lot" else order[:-1]


class Checker:
    def __init__(self, view, events):
        self.view, self.events = view, sorted(events, key=lambda e: e["seq"])
        self.game, self.game_id = view["game"], view["id"]
        self.options = view["options"]
        self.failures = 0

    def fail(self, line):
        self.failures += 1
        print("FAIL " + line)

    def commitments(self):
        """Chain commitments in order, each with the seq of the event that published it."""
        created = next((e for e in self.events if e["kind"] == "created"), None)
        if created is None or "fairness" not in created["data"]:
            raise ValueError("the log has no created event with a commitment")
        fairness = created["data"]["fairness"]
        chains = [(fairness["commitment"], created["seq"])]
        for event in self.events:
            for commitment in event["data"].get("committed", []):
                chains.append((commitment, event["seq"]))
        return fairness["chain_length"], chains

    def seeds_in_force(self):
        """The seat seeds in force after each event, by seq."""
        seeds = [None] * len(self.view["seats"])
        after = {0: list(seeds)}
        for event in self.events:
            data = event["data"]
            if event["kind"] == "left":
                seeds[data["seat"]] = None
            elif data.get("type") == "seed":
                seeds[data["seat"]] = data["value"].lower()
            after[event["seq"]] = list(seeds)
        return after

    def run(self):
        length, chains = self.commitments()
        in_force = self.seeds_in_force()
        reveals = [(e["seq"], r) for e in self.events for r in e["data"].get("revealed", [])]
        if self.view["status"] != "finished":
            self.fail("game: not finished")
        previous_seq, expected_deal = 0, 1
        for seq, r in reveals:
            self.check_deal(seq, r, expected_deal, length, chains, in_force, previous_seq)
            previous_seq, expected_deal = seq, r["deal"] + 1
        self.check_view(reveals)
        if not reveals:
            self.fail("game: no deal was revealed")
        return self.failures == 0

    def check_deal(self, seq, r, expected_deal, length, chains, in_force, previous_seq):
        deal, problems = r["deal"], []
        if deal != expected_deal:
            problems.append(f"expected deal {expected_deal} next")
        chain, position = (deal - 1) // length, (deal - 1) % length + 1
        seed = bytes.fromhex(r["server_seed"])
        if position != r["position"]:
            problems.append(f"position {r['position']} should be {position}")
        if chain >= len(chains):
            problems.append(f"chain {chain} was never committed")
        else:
            commitment, published = chains[chain]
            if hash_steps(seed, position).hex() != commitment:
                problems.append("server seed does not hash to the commitment")
            if r["commitment"] != commitment:
                problems.append("record names another commitment")
            # A renewed chain must be public before the round that starts it.
            if chain > 0 and published >= previous_seq:
                problems.append("chain committed too late")
        seat_seeds = r["seat_seeds"]
        moments = [s for s in in_force if previous_seq <= s <= seq]
        if not any(in_force[s] == seat_seeds for s in moments):
            problems.append("seat seeds were not the ones in force")
        deck = deck_order(seed, self.game_id, deal, seat_seeds, self.game)
        if self.game == "klaverjassen":
            dealt = klaverjassen_hands(deck, r["dealer"])
            for seat in range(4):
                if sorted(dealt[seat]) != sorted(r["hands"][seat]):
                    problems.append(f"seat {seat} was not dealt {r['hands'][seat]}")
        else:
            problems += self.check_round(r, deck, seed, deal, seat_seeds)
        what = "deal" if self.game == "klaverjassen" else "round"
        if problems:
            self.fail(f"{what} {deal}: " + "; ".join(problems))
        else:
            print(f"ok   {what} {deal}: chain {chain} position {position}, deck {' '.join(deck[:8])} ...")

    def check_round(self, r, deck, seed, deal, seat_seeds):
        problems = []
        seats, variant = self.options["seats"], self.options["variant"]
        if variant == "lot" and not r["by_lot"]:
            problems.append("the lot variant's pothouder must be drawn by lot")
        if r["by_lot"]:
            drawn = lot(seed, self.game_id, deal, seat_seeds)
            if drawn != r["pothouder"]:
                problems.append(f"lot drew seat {drawn}, not {r['pothouder']}")
        order = potverteren_order(r["pothouder"], seats, variant)
        hands = {h["seat"]: h["cards"] for h in r["hands"]}
        if sorted(hands) != sorted(order):
            problems.append("dealt seats differ from the order of play")
            return problems
        bottom = len(deck) - 1
        for i, seat in enumerate(order):
            cards = hands[seat]
            if cards[0] != deck[i]:
                problems.append(f"seat {seat}'s blind card {cards[0]} should be {deck[i]}")
            for card in cards[1:]:
                if card != deck[bottom]:
                    problems.append(f"seat {seat} asked {card} but the bottom card was {deck[bottom]}")
                bottom -= 1
        return problems

    def check_view(self, reveals):
        by_deal = {r["deal"]: r for _, r in reveals}
        if self.game == "klaverjassen":
            rows = self.view["klaverjassen"]["deals"]
            if len(rows) != len(by_deal):
                self.fail(f"view: {len(rows)} score-sheet rows but {len(by_deal)} deals revealed")
            for row in rows:
                r = by_deal.get(row["number"])
                same = r is not None and all(
                    row[k] == r[k] for k in ("server_seed", "seat_seeds", "dealer")
                ) and all(sorted(a) == sorted(b) for a, b in zip(row["hands"], r["hands"]))
                if not same:
                    self.fail(f"view: score-sheet row {row['number']} differs from the log")
        else:
            last = self.view["potverteren"]["last_round"]
            r = by_deal.get(last["round"]) if last else None
            if last and (r is None or (last["server_seed"], last["seat_seeds"]) != (r["server_seed"], r["seat_seeds"])):
                self.fail(f"view: last_round {last['round']} differs from the log")


def getter(url, token):
    """A function that GETs a path of the API at `url` with `token`, as JSON."""
    def get(path):
        request = urllib.request.Request(url.rstrip("/") + path, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)

    return get


def saved_or_fetched(parser, args, fetch, what, also=""):
    """What --file holds, or else what fetch(get) reads from --url with
    --token, given --{what} too; written to --save when asked."""
    if args.file:
        with open(args.file) as f:
            saved = json.load(f)
    elif args.url and args.token and getattr(args, what):
        saved = fetch(getter(args.url, args.token))
    else:
        parser.error(f"give --file, or --url, --token and --{what}{also}")
    if args.save:
        with open(args.save, "w") as f:
            json.dump(saved, f)
    return saved


def fetch(get, game):
    view, events, after = get(f"/v1/games/{game}"), [], 0
    while True:
        page = get(f"/v1/games/{game}/events?after={after}&limit=500")
        events += page["events"]
        if not page["events"]:
            return {"view": view, "events": events}
        after = page["next_after"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file")
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--game")
    parser.add_argument("--save")
    args = parser.parse_args()
    saved = saved_or_fetched(parser, args, lambda get: fetch(get, args.game), "game")
    try:
        ok = Checker(saved["view"], saved["events"]).run()
    except (KeyError, ValueError, TypeError) as error:
        print(f"FAIL unreadable game: {error!r}")
        sys.exit(2)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
