"""Rules written once in the engines and called by the batched engines, the belief sampler and the
environments ("every rule in exactly one place"): each rule is tested where it lives, and
each of its other users is shown to call it rather than a copy."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from texas42_moves import DEAL_P, DEAL_X, play

from domino_env.rules import texas42 as t42
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import LineConfig, LineGame, highest_double_holder, lead_rank
from domino_env.rules.texas42 import RenegeError, Texas42Config, Texas42Game, contract_outcome, variant
from domino_env.rules.tiles import tile_set
from domino_env.search import beliefs
from domino_env.vector import VectorLineGame, VectorTexas42Game, sample_legal
from domino_env.vector import texas42 as vector_texas42


def texas42(hands: list[list[str]], **options) -> Texas42Game:
    """Shaker 3, so seat 0 bids first."""
    config = Texas42Config.make(**options)
    return Texas42Game(config, np.random.default_rng(0), deal={"hands": hands, "shaker": 3})


# ----- who leads first (docs/rules.md 2.1): rules.line.lead_rank / highest_double_holder --------------
def test_lead_rank_puts_doubles_first_then_pips_then_the_higher_half() -> None:
    ts = tile_set(6)
    order = sorted(range(ts.num_tiles), key=lambda t: lead_rank(ts, t), reverse=True)
    names = [ts.name(t) for t in order]
    assert names[:9] == ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0", "6-5", "6-4"]
    assert names.index("6-3") < names.index("5-4")  # nine pips each: the higher half first
    for max_pips in range(2, 13):
        ts = tile_set(max_pips)
        assert len({lead_rank(ts, t) for t in range(ts.num_tiles)}) == ts.num_tiles  # one top tile


def test_highest_double_holder_names_the_seat_with_the_top_tile() -> None:
    ts = tile_set(6)

    def hand(*names: str) -> int:
        return sum(1 << ts.parse(n) for n in names)

    assert highest_double_holder(ts, [hand("6-5", "6-4"), hand("0-0"), hand("5-5", "1-0")]) == 2
    assert highest_double_holder(ts, [hand("5-4"), hand("6-3"), hand("6-2")]) == 1  # no double


@pytest.mark.parametrize(("max_pips", "players"), [(6, 2), (9, 4)])
def test_the_engine_and_the_batched_engine_lead_as_highest_double_holder(max_pips: int, players: int) -> None:
    options = dict(variant="block", num_players=players, preset="boardpan", max_pips=max_pips)
    config = LineConfig(**options, target_score=None)
    ts, size = config.tiles, config.hand_size
    rng = np.random.default_rng(4)
    deals = np.stack([rng.permutation(ts.num_tiles) for _ in range(40)])
    batch = VectorLineGame(len(deals), seed=0, **options).reset(deals=deals)
    for g, deal in enumerate(deals):
        hands = [deal[s * size : (s + 1) * size].tolist() for s in range(players)]
        expected = highest_double_holder(ts, [sum(1 << t for t in h) for h in hands])
        assert LineGame(config, rng, deal={"hands": hands}).leader == expected
        assert batch.seat[g] == expected


def test_the_belief_sampler_checks_the_leader_with_highest_double_holder() -> None:
    config = LineConfig(variant="block", num_players=3, preset="boardpan", target_score=None)
    rng = np.random.default_rng(5)
    game = LineGame(config, rng)
    game.apply(game.legal_actions()[0])
    calls = []

    def spy(tiles, hands):  # noqa: ANN001, ANN202
        calls.append(hands)
        return highest_double_holder(tiles, hands)

    with mock.patch.object(beliefs, "highest_double_holder", spy):
        deal = beliefs.sample_consistent_deal(game.view(1), rng)
    assert calls, "the sampler did not ask highest_double_holder who leads"
    dealt = [sum(1 << t for t in h) for h in deal["hands"]]
    assert highest_double_holder(config.tiles, dealt) == game.leader


# ----- Plunge needs PLUNGE_DOUBLES doubles (docs/rules.md 3.6) ------------------------------------------
def test_plunge_follows_plunge_doubles_in_the_engine_and_the_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    game = play(texas42(DEAL_P, plunge=True), "pass")
    assert game.action_from_text("bid plunge 4m") in game.legal_actions()  # seat 1: four doubles
    monkeypatch.setattr(t42, "PLUNGE_DOUBLES", 5)
    assert game.action_from_text("bid plunge 4m") not in game.legal_actions()
    monkeypatch.setattr(t42, "PLUNGE_DOUBLES", 4)
    play(game, "bid plunge 4m")
    monkeypatch.setattr(t42, "PLUNGE_DOUBLES", 6)  # the sampler now owes the Plunge bidder six
    rng = np.random.default_rng(0)
    doubles = game.variant.doubles_mask
    for _ in range(20):
        deal = beliefs.sample_consistent_deal(game.view(0), rng)
        assert (sum(1 << t for t in deal["hands"][1]) & doubles).bit_count() >= 6


# ----- the contract decided after a trick (docs/rules.md 3.5): rules.texas42.contract_outcome -----------
@pytest.mark.parametrize(
    ("bid", "nello", "points", "tricks", "early", "expected"),
    [
        ("bid 30", False, (30, 0), (3, 0), True, (True, True)),  # reached: made at once
        ("bid 30", False, (30, 0), (3, 0), False, (False, True)),  # ... or after the last trick
        ("bid 30", False, (17, 13), (3, 2), True, (True, False)),  # 13 > 42 - 30: set at once
        ("bid 30", False, (17, 12), (3, 2), True, (False, False)),
        ("bid 30", False, (29, 13), (5, 2), False, (True, False)),  # every trick played
        ("bid 2m", False, (40, 1), (6, 1), True, (True, False)),  # a mark bid loses on one trick
        ("bid 2m", False, (41, 0), (6, 0), True, (False, True)),
        ("bid 2m", False, (42, 0), (7, 0), False, (True, True)),
        ("bid 1m", True, (1, 0), (1, 0), True, (True, False)),  # Nello loses on a trick of its own
        ("bid 1m", True, (0, 42), (0, 7), False, (True, True)),
    ],
)
def test_contract_outcome(bid: str, nello: bool, points, tricks, early: bool, expected) -> None:  # noqa: ANN001
    v = variant(4)
    action = v.action_from_text(bid)
    assert contract_outcome(v, action, v.bid_value(action), nello, points, tricks, early) == expected


def test_contract_outcome_of_a_batch_equals_one_hand_at_a_time() -> None:
    """The batched engine passes arrays: every element must match the one-hand answer."""
    v = variant(4)
    cases = [
        (bid, nello, (ours, 42 - ours - rest), (won, played - won), early)
        for bid in (1, 5, 12, 13, 16, 20, 23)
        for nello, early in itertools.product((False, True), repeat=2)
        for ours, rest in itertools.product(range(0, 43, 3), (0, 7))
        for played in range(1, 8)
        for won in range(played + 1)
        if ours + rest <= 42
    ]
    one = [contract_outcome(v, b, v.bid_value(b), n, p, t, e) for b, n, p, t, e in cases]
    for early in (False, True):
        rows = [c for c in cases if c[4] == early]
        bid = np.array([c[0] for c in rows])
        decided, made = contract_outcome(
            v,
            bid,
            np.array([v.bid_value(b) for b in bid]),
            np.array([c[1] for c in rows]),
            tuple(np.array([c[2][k] for c in rows]) for k in range(2)),
            tuple(np.array([c[3][k] for c in rows]) for k in range(2)),
            early,
        )
        want = [o for o, c in zip(one, cases, strict=True) if c[4] == early]
        assert decided.tolist() == [d for d, _ in want]
        assert [m for d, m in zip(decided, made, strict=True) if d] == [m for d, m in want if d]


def test_both_engines_decide_contracts_with_contract_outcome() -> None:
    spies = {
        "engine": mock.patch.object(t42, "contract_outcome", wraps=t42.contract_outcome),
        "batched": mock.patch.object(vector_texas42, "contract_outcome", wraps=t42.contract_outcome),
    }
    with spies["engine"] as engine, spies["batched"] as batched:
        rng = np.random.default_rng(1)
        game = Texas42Game(Texas42Config(), rng)
        while not game.is_terminal:
            game.apply(int(rng.choice(game.legal_actions())))
        vec = VectorTexas42Game(8, seed=1)
        batch = vec.reset()
        for _ in range(40):
            batch = vec.step(sample_legal(batch.mask, rng))
    assert engine.called and batched.called


def test_the_batched_engine_pays_rewards_through_zero_sum() -> None:
    with mock.patch.object(vector_texas42, "zero_sum", wraps=vector_texas42.zero_sum) as zero_sum:
        rng = np.random.default_rng(2)
        vec = VectorTexas42Game(8, seed=2)
        batch, paid = vec.reset(), 0.0
        for _ in range(60):
            batch = vec.step(sample_legal(batch.mask, rng))
            paid += np.abs(batch.rewards).sum()
    assert paid > 0 and zero_sum.called


# ----- the n42pa renege (docs/decisions.md): Texas42Game raises RenegeError -----------------------
# Seat 0 bids 2 marks, calls ones and leads 5-4; seat 1 follows; seat 2, holding fives, is to play.
TO_THE_RENEGE = ("bid 2m", "pass", "pass", "pass", "trump 1", "play 5-4", "play 5-3")


def test_an_n42pa_renege_raises_renege_error_with_the_forfeited_hand_and_changes_nothing() -> None:
    game = play(texas42(DEAL_X, preset="n42pa"), *TO_THE_RENEGE)
    before = game.to_json()
    with pytest.raises(RenegeError, match="illegal move 'play 3-3'") as caught:
        game.apply(game.action_from_text("play 3-3"))  # seat 2 holds fives
    assert (caught.value.offender, caught.value.hand_marks) == (2, [0, 2, 0, 2])
    assert isinstance(caught.value, IllegalActionError) and game.to_json() == before
    with pytest.raises(IllegalActionError) as caught:
        game.apply(game.action_from_text("play 6-6"))  # not in seat 2's hand: no renege
    assert type(caught.value) is IllegalActionError
    with pytest.raises(IllegalActionError) as caught:
        game.apply(np.int64(game.action_from_text("play 3-3")) + 100)  # not an action id at all
    assert type(caught.value) is IllegalActionError


def test_a_renege_outside_n42pa_is_an_ordinary_illegal_move() -> None:
    game = play(texas42(DEAL_X), *TO_THE_RENEGE)
    with pytest.raises(IllegalActionError) as caught:
        game.apply(game.action_from_text("play 3-3"))
    assert type(caught.value) is IllegalActionError
    assert not game.config.renege_loses_hand and Texas42Config.make("n42pa").renege_loses_hand


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937, np.random.Philox,
                                           np.random.SFC64])
def test_copied_generators_continue_the_stream_independently(bit_generator: type) -> None:
    from domino_env.rules.conventions import copy_generator

    rng = np.random.Generator(bit_generator(7))
    rng.random(3)
    copy = copy_generator(rng)
    witness = copy_generator(rng)
    assert copy.random(5).tolist() == rng.random(5).tolist()  # the same stream from the same point
    copy.random(2)  # drawing from a copy leaves the original where it was
    witness.random(5)
    assert rng.random() == witness.random()
