"""Games saved as animated GIFs: one frame for the deal and one per decision, every frame one size."""

from __future__ import annotations

import importlib
import io
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from domino_env.evaluation import AgentSpec, GameSetup, build_agents, lineups, play_lineup
from domino_env.frontends.recording import CAPTION_HEIGHT, GameRecorder
from domino_env.frontends.terminal import main as play_main


def gif_frames(path: Path) -> tuple[int, tuple[int, int]]:
    with Image.open(path) as gif:
        sizes = set()
        for index in range(gif.n_frames):
            gif.seek(index)
            sizes.add(gif.size)
        assert len(sizes) == 1, sizes
        return gif.n_frames, sizes.pop()


class Counting:
    """Counts the decisions of the agent it wraps."""

    def __init__(self, agent):
        self.agent, self.decisions = agent, 0

    def act(self, view, rng):
        self.decisions += 1
        return self.agent.act(view, rng)


def decisions_of_deals(setup: GameSetup, agents: list[str], deals: int, seed: int) -> int:
    """The decisions of the first lineup's games on ``deals`` deals, played without a recorder."""
    counted = [Counting(agent) for agent in build_agents(setup, [AgentSpec.parse(a) for a in agents])]
    lineup = lineups(len(counted), setup.num_sides)[0]
    for deal in range(deals):
        play_lineup(setup, counted, seed, deal, 0, lineup)
    return sum(agent.decisions for agent in counted)


def evaluate_main(argv: list[str]) -> int:
    return importlib.import_module("domino_env.cli.evaluate").main(argv)


@pytest.mark.parametrize(
    ("game", "options", "agents"),
    [
        ("dominoes", ["--option", "variant=draw"], ["greedy", "random"]),
        ("texas42", [], ["heuristic", "random"]),
    ],
)
def test_evaluation_gif_has_a_frame_for_each_deal_and_decision(tmp_path, game, options, agents):
    path = tmp_path / "games.gif"
    argv = [
        "--game",
        game,
        *options,
        "--agents",
        *agents,
        "--deals",
        "2",
        "--workers",
        "1",
        "--seed",
        "5",
        "--save-gif",
        str(path),
        "--gif-deals",
        "2",
        "--gif-seconds",
        "0.5",
    ]
    assert evaluate_main(argv) == 0
    setup = GameSetup(game, {"variant": "draw"} if options else {})
    frames, (width, height) = gif_frames(path)
    assert frames == decisions_of_deals(setup, agents, 2, seed=5) + 2  # plus each deal's first frame
    engine = setup.new_engine(np.random.default_rng(0))
    picture = setup.record.draw_view(engine.view(0))
    assert (height, width) == (picture.shape[0] + CAPTION_HEIGHT, picture.shape[1])


def test_play_gif_has_a_frame_for_the_deal_and_each_move(tmp_path):
    path = tmp_path / "game.gif"
    out = io.StringIO()
    answers = iter(["1"] * 500)
    status = play_main(
        ["--seed", "4", "--bots", "random", "--one-round", "--save-gif", str(path)],
        read_line=lambda timeout: next(answers),
        out=out,
    )
    assert status == 0
    moves = re.findall(r"seat \d \((?:you|random)\): ", out.getvalue())  # each move is said once
    frames, _size = gif_frames(path)
    assert moves and frames == len(moves) + 1
    assert f"saved {frames} frames to {path}" in out.getvalue()


def test_bad_gif_arguments_stop_before_any_game(tmp_path, capsys):
    with pytest.raises(SystemExit):
        play_main(["--save-gif", str(tmp_path / "missing" / "game.gif")], read_line=lambda t: "1")
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate_main(
            [
                "--agents",
                "greedy",
                "random",
                "--deals",
                "1",
                "--save-gif",
                str(tmp_path / "g.gif"),
                "--gif-deals",
                "2",
            ]
        )
    assert "at most --deals" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no frames"):
        GameRecorder().save_gif(tmp_path / "empty.gif")
