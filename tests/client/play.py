"""Plays a Klaverjassen deal, a Potverteren round and a private table
of friends (invite code, rematch) through a client that
openapi-python-client generated from openapi/openapi.json, with nothing but
the generated models and calls: no raw HTTP, no hand-built JSON.

Needs KAARTTAFEL_URL (the running service) and the generated package
`kaarttafel_client` on the import path (tests/client/run.sh sets up both).
Prints `N passed, M failed` last and exits non-zero on any failure.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from uuid import UUID

from kaarttafel_client import AuthenticatedClient, Client
from kaarttafel_client.api.friends import accept_invite, rematch, show_invite
from kaarttafel_client.api.games import create_game, deal, get_game, make_move, take_seat
from kaarttafel_client.api.players import create_player, me
from kaarttafel_client.models import (
    Action,
    BidMove,
    BidMoveType,
    BotSeat,
    ChooseTrumpMove,
    CreatedPlayer,
    DealMove,
    Invite,
    HitMove,
    KlaverjassenGameView,
    KlaverjassenOptions,
    KlaverjassenOptionsView,
    Level,
    MoveRequest,
    NewKlaverjassenGame,
    NewKlaverjassenGameGame,
    NewPlayer,
    NewPotverterenGame,
    NewPotverterenGameGame,
    PassMove,
    PlayMove,
    PlayMoveType,
    PotverterenGameView,
    PotverterenOptions,
    PotverterenOptionsView,
    Problem,
    RevokeMode,
    StandMove,
    Status,
    TakeSeat,
    Variant,
)
from kaarttafel_client.types import Unset

# A view is one game's: `game` tells which, and with it the options' shape.
GameView = KlaverjassenGameView | PotverterenGameView

BASE_URL = os.environ["KAARTTAFEL_URL"]
rng = random.Random(int(os.environ.get("PLAY_SEED", "20240601")))


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def expect_view(answer: GameView | Problem | None, what: str) -> GameView:
    check(isinstance(answer, GameView), f"{what}: expected a GameView, got {answer!r}")
    assert isinstance(answer, GameView)
    return answer


class Player:
    """A guest player and the authenticated client that acts for it."""

    def __init__(self, name: str) -> None:
        created = create_player.sync(client=Client(base_url=BASE_URL), body=NewPlayer(name=name))
        check(isinstance(created, CreatedPlayer), f"create_player {name}: {created!r}")
        assert isinstance(created, CreatedPlayer)
        self.id = created.id
        self.name = name
        self.client = AuthenticatedClient(base_url=BASE_URL, token=created.token)
        mine = me.sync(client=self.client)
        check(mine is not None and mine.id == created.id, f"me for {name}: {mine!r}")

    def view(self, game_id: UUID) -> GameView:
        return expect_view(get_game.sync(id=game_id, client=self.client), f"get_game for {self.name}")

    def move(self, view: GameView, move) -> GameView:
        """Makes `move` (a generated move model) at the version of `view`."""
        body = MoveRequest(move=move, expected_version=view.version)
        return expect_view(
            make_move.sync(id=view.id, client=self.client, body=body),
            f"{self.name} {move.to_dict()}",
        )


def seat_everyone(host: Player, others: list[Player], new_game: NewKlaverjassenGame | NewPotverterenGame) -> tuple[GameView, dict[int, Player]]:
    created = create_game.sync(client=host.client, body=new_game)
    view = expect_view(created, "create_game")
    check(view.status == Status.WAITING and view.version == 1, f"new table: {view.status} v{view.version}")
    check(view.you == 0, f"host seat: {view.you}")
    check(view.awaiting is not None and view.awaiting.action == Action.JOIN, "new table awaits joins")
    by_seat = {0: host}
    for player in others:
        view = expect_view(
            take_seat.sync(id=view.id, client=player.client, body=TakeSeat()), f"take_seat {player.name}"
        )
        check(isinstance(view.you, int), f"{player.name} got no seat: {view.you!r}")
        assert isinstance(view.you, int)
        by_seat[view.you] = player
    check(view.status == Status.PLAYING, f"full table status: {view.status}")
    check(view.version == 1 + len(others), f"version after joins: {view.version}")
    return view, by_seat


def refused_moves_are_problems(player: Player, view: GameView) -> None:
    """A stale version is a 409 problem; a card not held is a 422 problem
    with the caller's legal moves, typed as moves."""
    stale = make_move.sync(
        id=view.id,
        client=player.client,
        body=MoveRequest(move=view.legal_moves[0], expected_version=view.version - 1),
    )
    check(isinstance(stale, Problem) and stale.code == "version_conflict" and stale.status == 409,
          f"stale version: {stale!r}")
    assert view.klaverjassen is not None
    held = set(view.klaverjassen.hand)
    missing = next(f"{rank}{suit}" for suit in "CDHS" for rank in ("7", "8", "9", "10", "J", "Q", "K", "A")
                   if f"{rank}{suit}" not in held)
    refused = make_move.sync(id=view.id, client=player.client, body=MoveRequest(move=PlayMove(type_=PlayMoveType.PLAY, card=missing)))
    check(isinstance(refused, Problem), f"card not held: {refused!r}")
    assert isinstance(refused, Problem)
    check(refused.code == "card_not_in_hand" and refused.status == 422, f"card not held: {refused.code}")
    check(not isinstance(refused.legal_moves, Unset) and refused.legal_moves is not None
          and all(isinstance(m, PlayMove) for m in refused.legal_moves)
          and {m.card for m in refused.legal_moves} == {m.card for m in view.legal_moves},
          f"refusal's legal_moves: {refused.legal_moves!r}")


def klaverjassen_deal() -> None:
    players = [Player(name) for name in ("Anne", "Bob", "Cor", "Dirk")]
    options = KlaverjassenOptions(deals=1, revoke_mode=RevokeMode.ENFORCED)
    view, by_seat = seat_everyone(players[0], players[1:], NewKlaverjassenGame(game=NewKlaverjassenGameGame.KLAVERJASSEN, options=options))
    check(isinstance(view, KlaverjassenGameView), f"view: {view!r}")
    check(isinstance(view.options, KlaverjassenOptionsView), f"options: {view.options!r}")
    assert isinstance(view.options, KlaverjassenOptionsView)
    check(view.options.deals == 1 and view.options.first_dealer == 3, f"options: {view.options!r}")
    check(not isinstance(view.klaverjassen, Unset) and view.klaverjassen is not None
          and isinstance(view.potverteren, Unset), "a Klaverjassen view")

    counts = {"deal": 0, "choose_trump": 0, "play": 0}
    probed = False
    for _ in range(200):
        table = players[0].view(view.id)
        kj = table.klaverjassen
        assert kj is not None and not isinstance(kj, Unset)
        if kj.deals:
            break
        check(table.awaiting is not None and not isinstance(table.awaiting, Unset), "no one awaited mid-deal")
        assert table.awaiting is not None and not isinstance(table.awaiting, Unset)
        check(len(table.awaiting.seats) == 1, f"awaiting: {table.awaiting!r}")
        seat = table.awaiting.seats[0]
        player = by_seat[seat]
        mine = player.view(view.id)
        check(mine.you == seat and mine.legal_moves, f"seat {seat} has no legal moves")
        kinds = {type(m) for m in mine.legal_moves}
        check(len(kinds) == 1, f"mixed legal moves: {mine.legal_moves!r}")
        if table.awaiting.action == Action.DEAL:
            check(kinds == {DealMove}, f"dealer's moves: {mine.legal_moves!r}")
            # The deal endpoint, not the move: both are in the client.
            expect_view(deal.sync(id=view.id, client=player.client), "deal")
            counts["deal"] += 1
        elif table.awaiting.action == Action.CHOOSE_TRUMP:
            check(kinds == {ChooseTrumpMove} and len(mine.legal_moves) == 4, f"trump: {mine.legal_moves!r}")
            player.move(mine, rng.choice(mine.legal_moves))
            counts["choose_trump"] += 1
        elif table.awaiting.action == Action.PLAY:
            check(kinds == {PlayMove}, f"play: {mine.legal_moves!r}")
            if not probed:
                refused_moves_are_problems(player, mine)
                probed = True
            after = player.move(mine, rng.choice(mine.legal_moves))
            check(after.version == mine.version + 1, "a move adds one version")
            counts["play"] += 1
        else:
            raise AssertionError(f"unexpected action {table.awaiting.action}")

    final = players[0].view(view.id)
    kj = final.klaverjassen
    assert kj is not None and not isinstance(kj, Unset)
    check(len(kj.deals) == 1, f"score sheet rows: {len(kj.deals)}")
    row = kj.deals[0]
    check(counts == {"deal": 1, "choose_trump": 1, "play": 32}, f"moves made: {counts}")
    check(row.card_points.a + row.card_points.b == 162, f"card points add to {row.card_points.a + row.card_points.b}")
    check(len(row.tricks) == 8 and all(len(t.cards) == 4 for t in row.tricks), "8 tricks of 4 cards")
    check(sorted(len(h) for h in row.hands) == [8, 8, 8, 8], "four hands of 8 as dealt")
    check(final.status == Status.FINISHED and final.legal_moves == [], f"after the only deal: {final.status}")
    check(final.awaiting is None, f"finished game awaits {final.awaiting!r}")
    print(f"klaverjassen: trump {row.trump.value}, card points A {row.card_points.a} B {row.card_points.b}, "
          f"score A {row.score.a} B {row.score.b}, {counts['play']} plays, version {final.version}")


def klaverjassen_against_computer() -> None:
    """A person plays a two-deal match against three `basic` computer players."""
    anne = Player("Anne")
    options = KlaverjassenOptions(deals=2, bot_delay_ms=0)
    bots = [BotSeat(level=Level.BASIC, seat=seat) for seat in (1, 2, 3)]
    view = expect_view(
        create_game.sync(client=anne.client, body=NewKlaverjassenGame(game=NewKlaverjassenGameGame.KLAVERJASSEN, options=options, bots=bots)),
        "create_game with bots",
    )
    check(view.status == Status.PLAYING, f"a table of bots starts at once: {view.status}")
    check([s.bot for s in view.seats] == [None, Level.BASIC, Level.BASIC, Level.BASIC],
          f"seats: {[s.bot for s in view.seats]}")
    for _ in range(2000):
        if view.status != Status.PLAYING:
            break
        turn = [m for m in view.legal_moves if isinstance(m, (DealMove, ChooseTrumpMove, PlayMove))]
        if turn:
            view = anne.move(view, rng.choice(turn))
        else:
            view = expect_view(
                get_game.sync(id=view.id, client=anne.client, wait_for_version=view.version, timeout_s=20),
                "long poll for the computer players' moves",
            )
    kj = view.klaverjassen
    assert kj is not None and not isinstance(kj, Unset)
    check(view.status == Status.FINISHED and len(kj.deals) == 2, f"match against bots: {view.status}")
    print(f"klaverjassen against computer players: totals A {kj.totals.a} B {kj.totals.b}, version {view.version}")


def potverteren_round() -> None:
    players = [Player(name) for name in ("Els", "Fred", "Gijs", "Hanna", "Ids")]
    options = PotverterenOptions(seats=5, variant=Variant.AUCTION, starting_chips=100)
    view, by_seat = seat_everyone(players[0], players[1:], NewPotverterenGame(game=NewPotverterenGameGame.POTVERTEREN, options=options))
    check(isinstance(view, PotverterenGameView), f"view: {view!r}")
    check(isinstance(view.options, PotverterenOptionsView), f"options: {view.options!r}")
    assert isinstance(view.options, PotverterenOptionsView)
    check(view.options.seats == 5 and view.options.starting_chips == 100, f"options: {view.options!r}")
    start_total = 5 * 100

    counts = {"bid": 0, "pass": 0, "deal": 0, "hit": 0, "stand": 0}
    for _ in range(200):
        table = players[0].view(view.id)
        pv = table.potverteren
        assert pv is not None and not isinstance(pv, Unset)
        check(sum(pv.balances) + pv.pot == start_total, f"chips: {pv.balances} + pot {pv.pot}")
        if pv.last_round is not None and not isinstance(pv.last_round, Unset):
            break
        awaiting = table.awaiting
        assert awaiting is not None and not isinstance(awaiting, Unset)
        check(len(awaiting.seats) == 1, f"awaiting: {awaiting!r}")
        player = by_seat[awaiting.seats[0]]
        mine = player.view(view.id)
        moves = mine.legal_moves
        if awaiting.action == Action.BID:
            bids = [m for m in moves if isinstance(m, BidMove)]
            passes = [m for m in moves if isinstance(m, PassMove)]
            check(len(bids) == 1 and len(passes) == 1, f"auction moves: {moves!r}")
            auction = mine.potverteren.auction
            nobody_bid = auction is None or isinstance(auction, Unset) or auction.high_bid in (None,) \
                or isinstance(auction.high_bid, Unset)
            # The first bidder opens at the minimum; one seat raises; the rest pass.
            if nobody_bid or counts["bid"] < 2:
                player.move(mine, BidMove(type_=BidMoveType.BID, amount=bids[0].amount))
                counts["bid"] += 1
            else:
                player.move(mine, passes[0])
                counts["pass"] += 1
        elif awaiting.action == Action.DEAL:
            check([type(m) for m in moves] == [DealMove], f"pothouder's moves: {moves!r}")
            player.move(mine, moves[0])
            counts["deal"] += 1
        elif awaiting.action == Action.HIT_OR_STAND:
            hand = mine.potverteren.hands[mine.you]
            total = hand.total if isinstance(hand.total, int) else 0
            hits = [m for m in moves if isinstance(m, HitMove)]
            stands = [m for m in moves if isinstance(m, StandMove)]
            check(len(stands) == 1, f"turn moves: {moves!r}")
            if hits and total < 12:
                player.move(mine, hits[0])
                counts["hit"] += 1
            else:
                player.move(mine, stands[0])
                counts["stand"] += 1
        else:
            raise AssertionError(f"unexpected action {awaiting.action}")

    final = players[0].view(view.id)
    pv = final.potverteren
    assert pv is not None and not isinstance(pv, Unset)
    last = pv.last_round
    check(last is not None and not isinstance(last, Unset), "no last_round")
    assert last is not None and not isinstance(last, Unset)
    check(last.round_ == 1, f"last round {last.round_}")
    check(counts["bid"] >= 1 and counts["deal"] == 1 and counts["stand"] >= 1, f"moves made: {counts}")
    check(sum(last.balance_changes) + (last.pot_after - last.pot_before) == 0,
          f"round not conserved: changes {last.balance_changes}, pot {last.pot_before} -> {last.pot_after}")
    check(sum(pv.balances) + pv.pot == start_total, f"chips after the round: {pv.balances} + {pv.pot}")
    check(last.pothouder is not None and 0 <= last.pothouder < 5, f"pothouder {last.pothouder}")
    check(all(0 <= s < 5 for s in last.winners), f"winners {last.winners}")
    check(all(h.total is not None for h in last.hands), "revealed hands carry totals")
    print(f"potverteren: pothouder {last.pothouder}, winners {last.winners}, pot {last.pot_before} -> "
          f"{last.pot_after}, changes {last.balance_changes}, moves {counts}")


def private_table_among_friends() -> None:
    """Anne creates a private table, invites three friends by its code, and
    they play its one deal; then Bob asks for the rematch."""
    anne, *friends = [Player(name) for name in ("Anne", "Bob", "Cor", "Dirk")]
    options = KlaverjassenOptions(deals=1, private=True)
    view = expect_view(
        create_game.sync(client=anne.client, body=NewKlaverjassenGame(game=NewKlaverjassenGameGame.KLAVERJASSEN, options=options)),
        "create a private table",
    )
    code = view.invite_code
    check(isinstance(code, str) and len(code) == 10, f"invite code: {code!r}")
    assert isinstance(code, str)
    for friend in friends:
        shown = show_invite.sync(code=code, client=friend.client)
        check(isinstance(shown, Invite), f"show_invite: {shown!r}")
        assert isinstance(shown, Invite)
        check(shown.host_name == "Anne" and shown.table.id == view.id, f"invite: {shown!r}")
        seated = expect_view(
            accept_invite.sync(code=code, client=friend.client, body=TakeSeat()), f"accept_invite {friend.name}"
        )
        check(seated.invite_code == code, "a seated friend sees the code")
    missing = show_invite.sync(code="ABCDEFGHJK", client=anne.client)
    check(isinstance(missing, Problem) and missing.code == "not_found", f"wrong code: {missing!r}")
    players = [anne, *friends]
    table = anne.view(view.id)
    check(table.status == Status.PLAYING, f"full private table: {table.status}")
    for _ in range(400):
        if table.status != Status.PLAYING:
            break
        for player in players:
            mine = player.view(view.id)
            if mine.legal_moves:
                table = player.move(mine, rng.choice(mine.legal_moves))
                break
    check(table.status == Status.FINISHED, f"the private deal ended: {table.status}")
    nxt = expect_view(rematch.sync(id=view.id, client=friends[0].client), "rematch")
    check(nxt.status == Status.WAITING and nxt.you is not None, f"rematch: {nxt.status}")
    check(len(nxt.reserved_seats) == 3, f"reserved seats: {nxt.reserved_seats!r}")
    check(anne.view(view.id).rematch == nxt.id, "the finished table names its rematch")
    print(f"private table: code {code}, played to the end, rematch {nxt.id}")


def main() -> int:
    passed = failed = 0
    for test in (klaverjassen_deal, klaverjassen_against_computer, potverteren_round,
                 private_table_among_friends):
        try:
            test()
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc()
        else:
            passed += 1
            print(f"ok   {test.__name__}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
