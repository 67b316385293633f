"""Games saved as animated GIFs of ``rgb_array`` frames (``domino-play --save-gif``,
``domino-evaluate --save-gif``).

A ``GameRecorder`` draws one seat's view (``Game.draw_view``: nothing that seat may not see) when a
game starts and after every decision, with a caption strip under the table naming the move. The
caption carries the frame's number, so no two frames are alike: GIF writers drop a frame equal to
the one before it, which would leave fewer frames than decisions. Every frame of one game has the
same size (the renderer's promise), so several games of one config fit one GIF.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from domino_env.frontends.render import FELT, MARGIN, TEXT, _font
from domino_env.games import game_of_config

CAPTION_HEIGHT = 30


class GameRecorder:
    """Frames of ``seat``'s view of the games it is shown, for one GIF."""

    def __init__(self, seat: int = 0, names: Sequence[str] = ()):
        self.seat = seat
        self.names = names
        """``names[seat]`` labels the movers in the captions (default ``seat N``)"""
        self.frames: list[Image.Image] = []

    def start(self, engine: Any) -> None:
        """A new game: the frame of the deal."""
        self.capture(engine, "the deal")

    def move(self, engine: Any, seat: int, move: str) -> None:
        """The table after ``seat`` played ``move`` (its text, read before the engine applied it)."""
        self.capture(engine, f"{self.names[seat] if self.names else f'seat {seat}'}: {move}")

    def capture(self, engine: Any, caption: str) -> None:
        """Draw ``engine`` as ``self.seat`` sees it, ``caption`` underneath."""
        picture = game_of_config(engine.config).draw_view(engine.view(self.seat))
        height, width, _ = picture.shape
        frame = Image.new("RGB", (width, height + CAPTION_HEIGHT), FELT)
        frame.paste(Image.fromarray(picture), (0, 0))
        text = f"{len(self.frames) + 1}. {caption}"
        ImageDraw.Draw(frame).text((MARGIN, height + 6), text, fill=TEXT, font=_font(16))
        self.frames.append(frame)

    def save_gif(self, path: str | Path, seconds_per_frame: float = 1.0) -> int:
        """Write the frames as an animated GIF looping forever; returns the number of frames."""
        if not self.frames:
            raise ValueError("no frames to save: capture a game first")
        if not np.isfinite(seconds_per_frame) or seconds_per_frame <= 0:
            raise ValueError(f"seconds_per_frame must be a positive number, got {seconds_per_frame!r}")
        first, *rest = self.frames
        first.save(
            Path(path),
            format="GIF",
            save_all=True,
            append_images=rest,
            duration=round(seconds_per_frame * 1000),
            loop=0,
        )
        return len(self.frames)
