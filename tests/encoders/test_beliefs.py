"""``sample_consistent_deal``: its deals keep every known void and hand size, and on positions small
enough to enumerate, its frequencies match the uniform distribution over the consistent deals,
found independently by brute force on the engine (chi-square, fixed seeds)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import LineConfig, LineGame, LineView
from domino_env.rules.texas42 import (
    SEVENS,
    TILES,
    Texas42Config,
    Texas42Game,
    Texas42View,
    declared_scheme,
)
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import rebuild, sample_consistent_deal


def random_position(game, rng: np.random.Generator, moves: int, stop: Callable = lambda g: False):  # noqa: ANN001, ANN201
    """``game`` after up to ``moves`` random moves, stopping before the episode ends or at ``stop``."""
    for _ in range(moves):
        if stop(game):
            break
        trial = game.clone()
        legal = trial.legal_actions()
        trial.apply(legal[rng.integers(len(legal))])
        if trial.is_terminal:
            break
        game = trial
    return game


def current_hands(view: LineView | Texas42View, deal: dict) -> list[int]:
    """Hands at the view's position: the dealt tiles (and draws) less the tiles played since."""
    return [*rebuild(view, deal, np.random.default_rng(0)).hands]


LINE_CONFIGS = [
    LineConfig(variant=v, num_players=n, teams=teams, preset=p, target_score=None)
    for v, (n, teams), p in itertools.product(
        ("block", "draw"), ((2, False), (3, False), (4, True)), ("pagat", "boardpan")
    )
]


@pytest.mark.parametrize("config", LINE_CONFIGS, ids=lambda c: f"{c.variant}-{c.num_players}-{c.preset}")
def test_line_deals_keep_sizes_and_voids(config: LineConfig) -> None:
    rng = np.random.default_rng(3)
    ts = config.tiles
    for _ in range(15):
        game = random_position(LineGame(config, rng), rng, int(rng.integers(5, 60)))
        seat = int(rng.integers(config.num_players))
        view = game.view(seat)
        for _ in range(3):
            rebuilt = rebuild(view, sample_consistent_deal(view, rng), rng)  # raises on an illegal pass/draw
            assert rebuilt.view(seat) == view  # hand sizes, stock, everything public
            assert rebuilt.hands[seat] == view.hand
            for s, (_seat, action, left, right) in enumerate(view.history):
                later_draw = any(a == 2 * ts.num_tiles and x == _seat for x, a, *_ in view.history[s:])
                if action == 2 * ts.num_tiles + 1 and not later_draw:  # a pass binds the hand kept since
                    assert not rebuilt.hands[_seat] & (ts.suit_mask[left] | ts.suit_mask[right])


TEXAS42_CONFIGS = [
    Texas42Config.make(),
    Texas42Config.make(nello="high", plunge=True, sevens=True, forced_bid=True, stop_when_decided=False),
    Texas42Config.make("n42pa"),
]


@pytest.mark.parametrize("config", TEXAS42_CONFIGS, ids=["standard", "all-options", "n42pa"])
def test_texas42_deals_keep_sizes_voids_and_sevens(config: Texas42Config) -> None:
    rng = np.random.default_rng(4)
    for _ in range(40):
        game = random_position(Texas42Game(config, rng), rng, int(rng.integers(0, 40)))
        seat = int(rng.integers(4))
        view = game.view(seat)
        for _ in range(3):
            rebuilt = rebuild(view, sample_consistent_deal(view, rng), rng)
            assert rebuilt.view(seat) == view
            for s, hand in enumerate(rebuilt.hands):
                if view.declaration == SEVENS:
                    played = [abs(TILES.pips[t] - 7) for t in iter_bits(view.played_by[s])]
                    assert all(abs(TILES.pips[t] - 7) >= max(played, default=0) for t in iter_bits(hand))
                elif view.declaration >= 0:
                    scheme = declared_scheme(view.declaration, config)
                    assert not any(hand & scheme.follow[v] for v in iter_bits(view.voids[s]))


def test_plunge_bidder_is_dealt_four_doubles() -> None:
    rng = np.random.default_rng(5)
    doubles = [TILES.name(t) for t in iter_bits(TILES.doubles_mask)]
    rest = [TILES.name(t) for t in iter_bits(TILES.full_mask & ~TILES.doubles_mask)]
    hands = [doubles[:4] + rest[:3], rest[3:10], doubles[4:] + rest[10:14], rest[14:21]]
    game = Texas42Game(Texas42Config.make(plunge=True), rng, deal={"hands": hands, "shaker": 3})
    game.apply(game.action_from_text("bid plunge 4m"))
    view = game.view(1)
    for _ in range(50):
        dealt = sample_consistent_deal(view, rng)["hands"][0]
        assert sum(TILES.is_double(t) for t in dealt) >= 4


# ----- frequencies against exact enumeration ----------------------------------------------------
def allocations(hidden: int, rooms: list[int]) -> Iterator[list[int]]:
    """Every way to give ``rooms[s]`` tiles of ``hidden`` to seat ``s`` (the rest stays out)."""
    if not rooms:
        yield []
        return
    for combo in itertools.combinations(iter_bits(hidden), rooms[0]):
        mask = sum(1 << t for t in combo)
        for tail in allocations(hidden & ~mask, rooms[1:]):
            yield [mask, *tail]


def line_consistent(view: LineView, hands_now: list[int]) -> bool:
    """Block: the deal ``hands_now`` + tiles played replays to ``view`` with the rules' own first leader."""
    dealt = [h | sum(1 << t for t, s, _ in view.line if s == seat) for seat, h in enumerate(hands_now)]
    deal = {"hands": [list(iter_bits(h)) for h in dealt]}
    if view.config.first_leader == "random":
        deal["leader"] = view.leader
    game = LineGame(view.config, np.random.default_rng(0), deal=deal)
    try:
        for _seat, action, _l, _r in view.history:
            game.apply(action)
    except IllegalActionError:
        return False
    return game.view(view.seat) == view


def texas42_consistent(view: Texas42View, hands_now: list[int]) -> bool:
    deal = {"hands": [list(iter_bits(h | p)) for h, p in zip(hands_now, view.played_by, strict=True)],
            "shaker": view.shaker}
    try:
        return rebuild(view, deal, np.random.default_rng(0)).view(view.seat) == view
    except IllegalActionError:
        return False


def consistent_support(view, consistent: Callable) -> set[tuple[int, ...]]:  # noqa: ANN001
    """Every tuple of current hands consistent with ``view``, by brute force over the hidden tiles."""
    n = len(view.hand_sizes)
    if isinstance(view, LineView):
        hidden = view.config.tiles.full_mask & ~view.hand & ~sum(1 << t for t, _s, _side in view.line)
    else:
        hidden = TILES.full_mask & ~view.hand & ~sum(view.played_by)
    rooms = [0 if s == view.seat else view.hand_sizes[s] for s in range(n)]
    support = set()
    for hands in allocations(hidden, rooms):
        hands[view.seat] = view.hand
        if consistent(view, hands):
            support.add(tuple(hands))
    return support


def assert_uniform(view, support: set, rng: np.random.Generator, per_deal: int = 80) -> None:  # noqa: ANN001
    """Chi-square of the sampler's current hands against uniform over ``support``."""
    draws = per_deal * len(support)
    counts = Counter(tuple(current_hands(view, sample_consistent_deal(view, rng))) for _ in range(draws))
    assert set(counts) == support  # never outside the consistent set, and every consistent deal seen
    expected = draws / len(support)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    dof = len(support) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)


def small_positions(
    make: Callable[[], object], consistent: Callable, rng: np.random.Generator, count: int, moves: int,
    stop: Callable = lambda g: False, interesting: Callable = lambda v: True,
) -> Iterator[tuple[object, set]]:
    """``count`` random views (after ``moves`` moves or at ``stop``) that are ``interesting`` (hold
    a void) and have 2 to 40 consistent deals: few enough to enumerate and to sample each often."""
    found = 0
    for _ in range(2000):
        game = random_position(make(), rng, moves, stop)
        view = game.view(int(rng.integers(len(game.hands))))
        if not interesting(view):
            continue
        support = consistent_support(view, consistent)
        if 2 <= len(support) <= 40:
            yield view, support
            found += 1
            if found == count:
                return
    raise AssertionError("too few small positions")


@pytest.mark.parametrize("preset", ["pagat", "boardpan"])
def test_line_block_frequencies_match_enumeration(preset: str) -> None:
    config = LineConfig(
        variant="block", num_players=3, preset=preset, max_pips=3, hand_size=3, target_score=None
    )
    rng = np.random.default_rng(6)

    def passed(view: LineView) -> bool:
        return any(a == 2 * config.tiles.num_tiles + 1 for _s, a, *_ in view.history)

    positions = small_positions(lambda: LineGame(config, rng), line_consistent, rng, 3, 4, interesting=passed)
    for view, support in positions:
        assert_uniform(view, support, rng)


def test_texas42_frequencies_match_enumeration() -> None:
    config = Texas42Config.make(stop_when_decided=False)
    rng = np.random.default_rng(7)

    def late(game: Texas42Game) -> bool:  # two tricks to go, some of the next one played
        return len(game.tricks) == 5 and len(game.trick) >= 2

    def void(view: Texas42View) -> bool:
        return any(view.voids) and len(view.tricks) == 5

    positions = small_positions(
        lambda: Texas42Game(config, rng), texas42_consistent, rng, 2, 60, stop=late, interesting=void
    )
    for view, support in positions:
        assert_uniform(view, support, rng)


def draw_consistent(view: LineView, hands_now: list[int]) -> bool:
    """Draw: some dealing and order of draws (brute force over the tile each draw brought, from the
    drawing seat's tiles) replays to ``view`` and leaves ``hands_now``."""
    ts, draw_action = view.config.tiles, 2 * view.config.tiles.num_tiles
    owned = [h | sum(1 << t for t, s, _ in view.line if s == seat) for seat, h in enumerate(hands_now)]
    drawers = [seat for seat, action, _l, _r in view.history if action == draw_action]
    leftover = [t for t in iter_bits(ts.full_mask & ~sum(owned))]
    for drawn in itertools.product(*(list(iter_bits(owned[s])) for s in drawers)):
        if len(set(drawn)) < len(drawn):
            continue
        dealt = [h & ~sum(1 << t for t in drawn) for h in owned]
        hands = [list(iter_bits(h)) for h in dealt]
        deal = {"hands": hands, "stock": [*drawn, *leftover], "leader": view.leader}
        try:
            game = rebuild(view, deal, np.random.default_rng(0))
        except (IllegalActionError, ValueError):
            continue
        if game.view(view.seat) == view and game.hands == hands_now:
            return True
    return False


def test_line_draw_when_stuck_frequencies_match_enumeration() -> None:
    """Draw ``when_stuck``: uniform over the current hands that some history of draws explains."""
    config = LineConfig(
        variant="draw", num_players=2, preset="boardpan", first_leader="random", max_pips=3, hand_size=3,
        target_score=None,
    )
    rng = np.random.default_rng(8)

    def other_drew(view: LineView) -> bool:
        return any(s != view.seat and a == 2 * config.tiles.num_tiles for s, a, *_ in view.history)

    positions = small_positions(
        lambda: LineGame(config, rng), draw_consistent, rng, 3, 8, interesting=other_drew
    )
    for view, support in positions:
        assert_uniform(view, support, rng)
