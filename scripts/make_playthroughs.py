"""Write the golden playthroughs under tests/playthroughs/ (OpenSpiel's ``playthrough`` habit).

    .venv/bin/python scripts/make_playthroughs.py           # rewrite every file
    .venv/bin/python scripts/make_playthroughs.py --check   # exit 1 if a file is out of date

Each file is one seeded episode of a representative configuration, played through ``raw_env`` by
a seeded uniform-random policy. At every decision it records the agent to act, the full-table ansi
render, the legal moves (read from the action mask, in move notation), the observation of the
acting seat (its non-zero entries), the chosen move, the step's rewards and any round/hand result
in the infos. Only behaviour reaches the file, never engine internals, so a faster engine must
reproduce it byte for byte, while any change to rules, observations, masks, rewards or renders
shows up as a diff. ``tests/test_playthroughs.py`` regenerates every file in memory and names the
first differing line; rerun this script when a change is intended, and review the diff.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from domino_env import dominoes_v0, fives_v0, mexican_train_v0, texas42_v0
from domino_env.envs.base import DominoAECEnv

DIRECTORY = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


@dataclass(frozen=True)
class Playthrough:
    """One golden file: ``make(render_mode="ansi")`` built with ``options``, reset with ``seed``."""

    name: str
    make: Callable[..., DominoAECEnv]
    options: dict[str, Any]
    seed: int

    @property
    def path(self) -> Path:
        return DIRECTORY / f"{self.name}.txt"


PLAYTHROUGHS = (
    Playthrough("block_2p_pagat", dominoes_v0.raw_env, {"variant": "block", "num_players": 2}, 1),
    Playthrough(
        "draw_3p_boardpan", dominoes_v0.raw_env,
        {"variant": "draw", "num_players": 3, "preset": "boardpan"}, 2,
    ),
    Playthrough(
        "block_4p_teams_boardpan_match", dominoes_v0.raw_env,
        {"variant": "block", "num_players": 4, "teams": True, "preset": "boardpan",
         "episode": "match", "target_score": 40},
        3,
    ),
    Playthrough("draw_2p_double_nine", dominoes_v0.raw_env, {"variant": "draw", "max_pips": 9}, 4),
    Playthrough("texas42_standard_game", texas42_v0.raw_env, {"episode": "game"}, 5),
    Playthrough(  # seed 18: this game has a Plunge, a Nello and a Sevens hand
        "texas42_nello_plunge_sevens_forced", texas42_v0.raw_env,
        {"nello": "low", "plunge": True, "sevens": True, "forced_bid": True, "episode": "game"},
        18,
    ),
    Playthrough("texas42_n42pa", texas42_v0.raw_env, {"preset": "n42pa"}, 7),
    Playthrough("texas42_three_players", texas42_v0.raw_env, {"num_players": 3, "episode": "game",
                                                             "target_marks": 3}, 8),
    Playthrough("texas88", texas42_v0.raw_env, {"preset": "texas88"}, 9),
    Playthrough("all_fives_2p_standard_match", fives_v0.raw_env, {"num_players": 2}, 12),
    Playthrough(  # seed 12: plays on all four ends of the spinner, draws and a pass
        "all_fives_4p_teams_hand_in_fives", fives_v0.raw_env,
        {"num_players": 4, "episode": "hand", "score_unit": "fives"}, 12,
    ),
    Playthrough(  # every non-default option that needs no other: Muggins (no spinner) and its kin
        "all_fives_3p_muggins_options", fives_v0.raw_env,
        {"num_players": 3, "spinner": "none", "draw_policy": "may_draw", "draw_reserve": 2,
         "lead_rule": "highest_double", "next_leader": "rotate", "double_count": "one_half",
         "hand_rounding": "exact", "blocked_scoring": "others_minus_own", "target_score": 30,
         "target_check": "end_of_hand"},
        11,
    ),
    Playthrough("fives_and_threes_2p_match", fives_v0.raw_env, {"variant": "fives_and_threes"}, 11),
    Playthrough("mexican_train_4p_round", mexican_train_v0.raw_env, {"num_players": 4}, 10),
    Playthrough(  # seed 10: an opening run stopped, plays on the Mexican and on others' trains
        "mexican_train_8p_cardinal_round", mexican_train_v0.raw_env,
        {"num_players": 8, "preset": "cardinal"}, 10,
    ),
)


def _numbers(values: Any) -> str:
    """Rewards and observation entries as short, exact-enough text (``%g``, 6 digits)."""
    return " ".join(f"{float(v):g}" for v in values)


def _nonzeros(vector: np.ndarray) -> str:
    """``index=value`` for every non-zero entry: compact, and a diff points at the slot."""
    return " ".join(f"{i}={float(vector[i]):g}" for i in np.flatnonzero(vector))


def play(spec: Playthrough) -> str:
    """The playthrough text of ``spec``: deterministic for a given engine behaviour."""
    env = spec.make(render_mode="ansi", **spec.options)
    env.reset(seed=spec.seed)
    policy = np.random.default_rng(spec.seed)
    lines = [
        f"# {spec.name}: {env.metadata['name']}.raw_env(**{json.dumps(spec.options, sort_keys=True)})",
        f"# reset(seed={spec.seed}); uniform random policy np.random.default_rng({spec.seed})",
        "# written by scripts/make_playthroughs.py; rerun it after an intended change",
        f"agents: {' '.join(env.possible_agents)}",
        f"num_actions: {env.num_actions}",
        f"observation_shape: {env.observation_space(env.possible_agents[0])['observation'].shape}",
    ]
    returns = np.zeros(len(env.possible_agents))
    infos_seen: dict[str, dict] = {}
    decision = 0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        observation = env.observe(agent)
        legal = np.flatnonzero(observation["action_mask"])
        action = int(policy.choice(legal))
        lines += [
            "",
            f"## decision {decision}: {agent}",
            *env.render().splitlines(),
            f"legal: {' | '.join(env.action_to_text(int(a)) for a in legal)}",
            f"observation: {_nonzeros(observation['observation'])}",
            f"action: {action} ({env.action_to_text(action)})",
        ]
        env.step(action)
        decision += 1
        rewards = [env.rewards[a] for a in env.possible_agents]
        returns += rewards
        if any(rewards):
            lines.append(f"rewards: {_numbers(rewards)}")
        # Only new results: a cleared info (the seat has acted since) is not news.
        news = {a: info for a, info in env.infos.items() if info and info != infos_seen.get(a)}
        if news and len(news) == len(env.infos) and all(i == news[agent] for i in news.values()):
            lines.append(f"infos (every agent): {json.dumps(news[agent], sort_keys=True)}")
        else:
            lines += [f"info {a}: {json.dumps(info, sort_keys=True)}" for a, info in news.items()]
        infos_seen = dict(env.infos)
    lines += [
        "",
        f"## end after {decision} decisions",
        *env.render().splitlines(),
        f"returns: {_numbers(returns)}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on drift")
    args = parser.parse_args(argv)
    stale = []
    for spec in PLAYTHROUGHS:
        text = play(spec)
        if args.check:
            if not spec.path.exists() or spec.path.read_text() != text:
                stale.append(spec.path.name)
            continue
        spec.path.parent.mkdir(parents=True, exist_ok=True)
        spec.path.write_text(text)
        print(f"{spec.path.relative_to(DIRECTORY.parent.parent)}: {len(text):,} bytes")
    if stale:
        print(f"out of date: {', '.join(stale)}; run scripts/make_playthroughs.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
