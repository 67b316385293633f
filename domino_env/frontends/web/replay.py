"""Game records for the replay viewer: export, import, and the frames of a replay.

A **game record** (what a finished table exports and the viewer imports) is::

    {"format": "domino-env/web-game", "version": 1, "game": "dominoes" | "texas42",
     "seats": [names], "start": <the engine's save at the first move>, "actions": [action ids]}

The start is the engine's own versioned save (``to_json``), which holds the deal and the
generator state, so replaying the actions deals every later round exactly as it was dealt. Two
other sources become a game record: an evaluation's ``results.json`` with a record number (the
game is played again with the harness's seeding, ``evaluation.play_lineup``, and must reproduce the
recorded points), and a golden playthrough (``tests/playthroughs/*.txt``: its env options, seed
and actions). Every input is untrusted: a malformed one raises ``ValueError`` saying what is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from domino_env.evaluation import AgentSpec, GameSetup, build_agents, deal_generator, lineups, play_lineup
from domino_env.frontends.web.protocol import RoundKeeper, full_frame
from domino_env.games import available_games, get_game
from domino_env.rules.errors import IllegalActionError

RECORD_FORMAT = "domino-env/web-game"
RECORD_VERSIONS = (1,)
MAX_REPLAY_MOVES = 20_000  # far above any match (a 100-point Block match takes a few hundred)


def make_record(game: str, seats: Sequence[str], start: str, actions: Sequence[int]) -> dict[str, Any]:
    """A game record from the engine's save at the start and the moves since."""
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSIONS[-1],
        "game": game,
        "seats": list(seats),
        "start": start,
        "actions": [int(a) for a in actions],
    }


def replay(record: Any) -> list[dict[str, Any]]:
    """The frames of a game record: the start, then one per move (``move``: who played what),
    every hand shown. Raises ``ValueError`` for anything that is not a playable record."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f'not a game record: a JSON object with "format": "{RECORD_FORMAT}"')
    if record.get("version") not in RECORD_VERSIONS:
        raise ValueError(f"game record version {record.get('version')!r} is not one of {RECORD_VERSIONS}")
    if record.get("game") not in available_games():
        raise ValueError(f"'game' must be one of {available_games()}, got {record.get('game')!r}")
    if not isinstance(record.get("start"), str):
        raise ValueError("'start' must be the engine's save as JSON text (engine.to_json())")
    engine = get_game(record["game"]).engine.from_json(record["start"])
    actions, seats = record.get("actions"), record.get("seats")
    if not isinstance(actions, list) or len(actions) > MAX_REPLAY_MOVES:
        raise ValueError(f"'actions' must be a list of at most {MAX_REPLAY_MOVES} action ids")
    if not (
        isinstance(seats, list)
        and len(seats) == engine.num_players
        and all(isinstance(s, str) for s in seats)
    ):
        raise ValueError(f"'seats' must list {engine.num_players} seat names")
    keeper = RoundKeeper(engine)
    frames = [full_frame(engine, keeper)]
    for i, action in enumerate(actions):
        seat = engine.current_player
        try:
            text = engine.action_to_text(action)  # before the move: Mexican Train names the actor's trains
            keeper.apply(action)
        except (IllegalActionError, ValueError) as err:
            raise ValueError(f"move {i} of the record is not legal: {err}") from None
        frame = full_frame(engine, keeper)
        frame["move"] = {"number": i + 1, "seat": seat, "text": text}
        frames.append(frame)
    return frames


# ----- evaluation records ----------------------------------------------------------------------------
class _Recorder:
    """An agent that notes every action it returns (the moves of a game played by ``play_lineup``)."""

    def __init__(self, agent: Any, actions: list[int]):
        self.agent, self.actions = agent, actions

    def act(self, view: Any, rng: np.random.Generator) -> int:
        action = int(self.agent.act(view, rng))
        self.actions.append(action)
        return action


def record_from_evaluation(results: Any, index: Any) -> dict[str, Any]:
    """Game record number ``index`` of an evaluation's ``results.json``, played again with its
    agents and seeds; ``ValueError`` if it cannot be built or does not reproduce the recorded points."""
    try:
        setup = GameSetup(results["game"], dict(results["options"]), match=bool(results["match"]))
        specs = [AgentSpec(**a) for a in results["agents"]]
        seed, records = int(results["seed"]), results["records"]
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(
            f"not an evaluation's results.json (game, options, match, agents, seed, records): {err}"
        ) from None
    if type(index) is not int or not 0 <= index < len(records):
        raise ValueError(f"record number must be 0..{len(records) - 1}, got {index!r}")
    record = records[index]
    order = lineups(len(specs), setup.num_sides)
    lineup = tuple(record.get("lineup", ()))
    if lineup not in order:
        raise ValueError(f"record {index} has lineup {list(lineup)}, not one of this evaluation's lineups")
    agents = build_agents(setup, specs)
    actions: list[int] = []
    recorders = [_Recorder(a, actions) for a in agents]
    deal = int(record["deal"])
    start = setup.new_engine(deal_generator(seed, deal)).to_json()
    engine = play_lineup(setup, recorders, seed, deal, order.index(lineup), lineup)
    points, _rounds, _winner = setup.outcome(engine)
    if points != record["points"]:
        raise ValueError(
            f"playing record {index} again gives points {points}, not the recorded "
            f"{record['points']}: the agents or the rules changed since the evaluation"
        )
    seats = [specs[lineup[setup.side_of(s)]].label for s in range(setup.num_players)]
    return make_record(setup.game, seats, start, actions)


# ----- golden playthroughs ------------------------------------------------------------------------------
_HEADER = re.compile(r"^# [\w.-]+: (\w+)\.raw_env\(\*\*(\{.*\})\)$", re.MULTILINE)
_SEED = re.compile(r"^# reset\(seed=(\d+)\)", re.MULTILINE)
_ACTION = re.compile(r"^action: (\d+)", re.MULTILINE)


def record_from_playthrough(text: str) -> dict[str, Any]:
    """The game of a golden playthrough file (``scripts/make_playthroughs.py``) as a game record."""
    header, seed = _HEADER.search(text), _SEED.search(text)
    if header is None or seed is None:
        raise ValueError(
            "not a playthrough: its first lines name 'module.raw_env(**{options})' and 'reset(seed=N)'"
        )
    module = f"domino_env.{header.group(1)}"
    games = [name for name in available_games() if get_game(name).env_module == module]
    if not games:
        raise ValueError(f"the playthrough's environment {header.group(1)!r} is not a registered game's")
    record = get_game(games[0])
    env = record.raw_env(**json.loads(header.group(2)))
    env.reset(seed=int(seed.group(1)))
    engine = env.game
    start = engine.to_json()
    seats = [f"seat {s}" for s in range(engine.num_players)]
    return make_record(record.name, seats, start, [int(a) for a in _ACTION.findall(text)])
