"""The fives encoders: no hidden tile reaches an observation (RULES-new-games.md 5), the default slots
of worked example A1, the history tokens and their bound.

Leak test: random positions through ``fives_v0``; everything the observing seat cannot see is redealt
consistently (``search.beliefs.determinize``), the rebuilt engine goes into a fresh env, and the seat's
observation and action mask must be bit-identical, for every registered fives encoder. An encoder that
peeks at the engine must fail it.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from domino_env.encoders.base import available_encoders, get_encoder
from domino_env.envs.fives_v0 import raw_env
from domino_env.search.beliefs import determinize

VARIANTS = [
    {},
    {"num_players": 3, "preset": "classic", "draw_policy": "may_draw", "draw_reserve": 2,
     "lead_rule": "highest_double"},
    {"num_players": 4},
    {"num_players": 4, "teams": False, "spinner": "none", "score_unit": "fives", "target_score": 20},
    {"variant": "fives_and_threes"},
    {"variant": "fives_and_threes", "num_players": 4, "open_hands": True},
]
CASES = [
    pytest.param(partial(raw_env, observation_encoder=name, **options), id=f"{name}-{i}")
    for i, options in enumerate(VARIANTS)
    for name in available_encoders("fives")
]


def leaks(make_env, seed: int, positions: int) -> list[str]:
    """Positions where a seat's observation or mask changed when its hidden tiles were redealt."""
    rng = np.random.default_rng(seed)
    env, other = make_env(), make_env()
    found = []
    for position in range(positions):
        env.reset(seed=seed * 100 + position)
        for _ in range(int(rng.integers(1, 40))):
            if env.game.is_terminal:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        if env.game.is_terminal:  # the end of a hand makes the hands public: nothing to hide
            continue
        for seat in range(len(env.possible_agents)):
            other.reset(seed=0)
            other.game = determinize(env.game.view(seat), rng)
            mine, theirs = env.observe(f"player_{seat}"), other.observe(f"player_{seat}")
            for key in ("observation", "action_mask"):
                if not np.array_equal(mine[key], theirs[key]):
                    found.append(f"position {position}, seat {seat}: {key} differs")
    return found


@pytest.mark.parametrize("make_env", CASES)
def test_no_encoder_shows_a_hidden_tile(make_env):
    assert leaks(make_env, seed=1, positions=12) == []


class _LeakyEnv(raw_env):
    """A deliberately leaking env: the observation's hand slot shows the next seat's hand."""

    def _observe(self, seat):
        observation, mask = super()._observe(seat)
        nxt = self.game.hands[(seat + 1) % len(self.possible_agents)]
        observation[:28] = [nxt >> t & 1 for t in range(28)]
        return observation, mask


def test_the_harness_catches_a_leak():
    assert leaks(_LeakyEnv, seed=1, positions=4)


def _play(env, moves):
    for move in moves:
        env.step(env.action_from_text(move))


def test_default_slots_of_worked_example_a1():
    env = raw_env(episode="hand")
    env.reset(options={"deal": {"hands": [["5-5", "5-4", "5-0", "6-6"], ["5-3", "3-6", "4-4", "1-2"]],
                                "leader": 0}})
    encoder = get_encoder("fives", "default")
    slots = {s.name: s for s in encoder.slots(env.config)}

    def part(obs, name):
        s = slots[name]
        return obs[s.start : s.start + s.length]

    _play(env, ["play 5-5 west", "play 5-3 east"])
    obs = env.observe("player_0")["observation"]
    assert np.flatnonzero(part(obs, "count")).tolist() == [13]  # spinner 2x5 + E 3
    assert np.flatnonzero(part(obs, "spinner_sides")).tolist() == [1]
    ends = part(obs, "open_ends").reshape(4, 7)
    assert [np.flatnonzero(row).tolist() for row in ends] == [[5], [3], [], []]  # N, S not open yet
    _play(env, ["play 5-4 west"])
    obs = env.observe("player_1")["observation"]  # seat 1's view: seat 0 is relative seat 1
    np.testing.assert_array_equal(encoder.encode(env.game.view(1)), obs)  # encode = the env's fused path
    ends = part(obs, "open_ends").reshape(4, 7)
    assert [np.flatnonzero(row).tolist() for row in ends] == [[4], [3], [5], [5]]
    assert np.flatnonzero(part(obs, "spinner_sides")).tolist() == [2]
    played = part(obs, "played_by").reshape(2, 28)
    assert sorted(np.flatnonzero(played[1]).tolist()) == [23, 25]  # 4-5 and 5-5 by seat 0
    assert np.flatnonzero(played[0]).tolist() == [20]  # my 3-5
    assert np.flatnonzero(part(obs, "centre")).tolist() == [25]
    scores = part(obs, "scores")
    assert scores.tolist() == [0.0, np.float32(0.1)]  # seat 0 has 10 of 100 (the usual target)
    assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_history_tokens_and_bound():
    encoder = get_encoder("fives", "history")
    env = raw_env(episode="hand", observation_encoder="history")
    env.reset(options={"deal": {"hands": [["5-5", "1-2"], ["5-0", "3-4"]], "leader": 0}})
    _play(env, ["play 5-5 west", "play 0-5 east", "pass"])
    slots = {s.name: s for s in encoder.token_slots(env.config)}
    width = sum(s.length for s in slots.values())
    tokens = env.observe("player_1")["observation"].reshape(encoder.max_tokens(env.config), width)
    assert tokens[:, 0].tolist()[:4] == [1, 1, 1, 0]
    lead, reply, knock = tokens[:3]

    def hot(token, name):
        s = slots[name]
        return np.flatnonzero(token[s.start : s.start + s.length]).tolist()

    assert hot(lead, "seat") == [1] and hot(lead, "tile") == [25] and hot(lead, "points") == [2]  # 10 / 5
    assert hot(reply, "seat") == [0] and hot(reply, "end") == [1] and hot(reply, "ends_before") == [5, 7 + 5]
    assert hot(knock, "kind") == [2] and hot(knock, "tile") == []


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_random_hands_stay_within_the_history_bound(options):
    env = raw_env(episode="hand", **options)
    encoder = get_encoder("fives", "history")
    rng = np.random.default_rng(3)
    for seed in range(20):
        env.reset(seed=seed)
        events = 0
        while not env.game.is_terminal:
            events = len(env.game.history)
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        assert events < encoder.max_tokens(env.config)


@pytest.mark.parametrize("options", VARIANTS, ids=[str(i) for i in range(len(VARIANTS))])
def test_look_ahead_points_are_what_the_engine_scores(options):
    """The compact look-ahead slots against the engine itself: each legal play applied to a clone
    scores ``play_points``; ``reply_points`` is the best count any unknown tile makes when the engine
    lays it next on any end it fits (``_place`` on a clone: the engine's own layout code)."""
    from domino_env.encoders.fives_compact import encode_compact, look_ahead_points, slot_slices
    from domino_env.rules.fives import END_STRIDE, count_points
    from domino_env.rules.tiles import DOUBLE_SIX, iter_bits

    env, rng = raw_env(observation_encoder="compact", **options), np.random.default_rng(7)
    checked = scoring = 0
    for position in range(60):
        env.reset(seed=300 + position)
        for _ in range(int(rng.integers(0, 25))):
            if env.game.is_terminal:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        game = env.game
        if game.is_terminal:
            continue
        seat, cfg = game.current_player, game.config
        view = game.view(seat)
        seen = view.hand | game.table
        if cfg.open_hands:
            for hand in game.hands:
                seen |= hand
        unknown = DOUBLE_SIX.full_mask & ~seen
        play, reply = look_ahead_points(view, unknown)
        stride = END_STRIDE[cfg.variant]
        assert set(play) == {a for a in game.legal_actions() if a < stride * DOUBLE_SIX.num_tiles}
        for a in play:
            after = game.clone()
            after._place(a // stride, a % stride, seat)
            assert play[a] == count_points(cfg, after._layout_count()), (position, a)
            best = 0
            for u in iter_bits(unknown):
                for e, v in enumerate(after.open_ends()):
                    if v >= 0 and DOUBLE_SIX.suit_mask[v] >> u & 1:
                        nxt = after.clone()
                        nxt._place(u, e, (seat + 1) % cfg.num_players)
                        best = max(best, count_points(cfg, nxt._layout_count()))
            assert reply[a] == best, (position, a)
            checked += 1
            scoring += play[a] > 0
        lay = slot_slices(cfg)
        obs = encode_compact(view)
        assert np.flatnonzero(obs[lay["play_points"]]).tolist() == sorted(a for a in play if play[a])
    assert checked >= 80 and scoring >= 10, (checked, scoring)
