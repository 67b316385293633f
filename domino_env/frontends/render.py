"""Pictures of the table for ``render_mode="rgb_array"``: one seat's view drawn as an RGB frame.

``draw_view(view)`` draws what the seat of ``view`` may know (docs/rules.md 4) and nothing else: its own
hand face up, every other hand face down as a row of tile backs (face up only with ``open_hands``,
when the view holds every hand), the table, the scores. It reads only the view, so a frame cannot
show a hidden tile. Each game's record (``domino_env.games``) names its drawing function
(``Game.renderer``); ``Game.draw_view(view)`` draws any game's view.

- Line games: the line of play in table order, laid out as a snake that fits the table (tiles shrink
  as the line grows), doubles crosswise; the open ends, stock, scores and round.
- All Fives and Fives and Threes: the centre (the spinner, drawn crosswise) and its four arms W, E,
  N, S as a cross (two arms in Fives and Threes), the open ends, the count, stock and scores.
- Mexican Train: the engine double in the hub, then one row per train (every seat's, then the
  Mexican) with its marker and its tiles from the hub outwards, the open doubles ringed; the
  boneyard, the round and the scores.
- Texas 42 and its variants: the trick in progress (or the last trick and who took it), the bids,
  the contract and the points of the hand, marks, the Texas 88 kitty or discards (face down unless
  the seat is the bid winner).

A frame's size depends only on the game's config, so every frame of an episode has one shape (video
writers need it). Drawn with Pillow: a few milliseconds a frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from domino_env.rules.fives import TILE_HIGH, TILE_LOW, FivesView
from domino_env.rules.line import LineView, line_in_table_order
from domino_env.rules.mexican_train import MexicanTrainView, tile_text
from domino_env.rules.texas42 import BID, DONE, PHASE_NAMES, Texas42View
from domino_env.rules.tiles import iter_bits

WIDTH = 960
MARGIN = 12
LABEL_WIDTH = 230  # the seat labels left of each hand
ROW_HEIGHT = 46  # one seat's row: label and hand
HEADER_HEIGHT = 58  # two lines of text
FELT = (21, 88, 52)
FACE = (250, 247, 236)
EDGE = (40, 40, 40)
PIP = (25, 25, 25)
BACK = (44, 62, 128)
TEXT = (240, 240, 235)
DIM = (170, 200, 180)
TO_ACT = (255, 210, 60)

_L, _C, _R = 0.24, 0.5, 0.76
_PIPS: tuple[tuple[tuple[float, float], ...], ...] = (
    (),
    ((_C, _C),),
    ((_L, _L), (_R, _R)),
    ((_L, _L), (_C, _C), (_R, _R)),
    ((_L, _L), (_R, _L), (_L, _R), (_R, _R)),
    ((_L, _L), (_R, _L), (_C, _C), (_L, _R), (_R, _R)),
    ((_L, _L), (_L, _C), (_L, _R), (_R, _L), (_R, _C), (_R, _R)),
    ((_L, _L), (_L, _C), (_L, _R), (_C, _C), (_R, _L), (_R, _C), (_R, _R)),
    ((_L, _L), (_L, _C), (_L, _R), (_C, _L), (_C, _R), (_R, _L), (_R, _C), (_R, _R)),
    tuple((x, y) for x in (_L, _C, _R) for y in (_L, _C, _R)),
    (*((x, y) for x in (_L, _R) for y in (0.2, 0.4, 0.6, 0.8)), (_C, 0.3), (_C, 0.7)),
    (*((x, y) for x in (_L, _R) for y in (0.2, 0.4, 0.6, 0.8)), (_C, 0.2), (_C, _C), (_C, 0.8)),
    tuple((x, y) for x in (_L, _C, _R) for y in (0.2, 0.4, 0.6, 0.8)),
)
"""Pip centres of each number 0-12 in a unit square (double-12 sets use the 3 x 4 grid)."""


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@dataclass(frozen=True)
class SeatRow:
    """One seat's row: its label, what is known of its hand, and whether it is to act."""

    label: str
    faces: Sequence[tuple[int, int]] | None  # the tiles as (left/top half, right/bottom half), if seen
    count: int  # tiles held (drawn face down when ``faces`` is None)
    to_act: bool = False


class Picture:
    """A frame being drawn: text, tiles face up or down, seat rows, a snake of tiles."""

    def __init__(self, height: int):
        self.image = Image.new("RGB", (WIDTH, height), FELT)
        self.draw = ImageDraw.Draw(self.image)

    def array(self) -> np.ndarray:
        """The frame as an ``H x W x 3`` uint8 array."""
        return np.asarray(self.image, dtype=np.uint8)

    def text(self, x: float, y: float, text: str, size: int = 15, fill: tuple[int, int, int] = TEXT) -> None:
        self.draw.text((x, y), text, fill=fill, font=_font(size))

    def tile(self, x: float, y: float, half: float, a: int, b: int, vertical: bool = False) -> None:
        """Tile ``a|b`` with its top-left corner at ``(x, y)``, each half a square of side ``half``
        (``a`` left or on top). Whole pixels: the lowest supported Pillow draws integer boxes only."""
        x, y, half = round(x), round(y), round(half)
        w, h = (half, 2 * half) if vertical else (2 * half, half)
        radius = max(1, int(half / 6))
        self.draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius=radius, fill=FACE, outline=EDGE)
        if vertical:
            self.draw.line((x + 2, y + half, x + w - 3, y + half), fill=EDGE)
            self._pips(x, y, half, a)
            self._pips(x, y + half, half, b)
        else:
            self.draw.line((x + half, y + 2, x + half, y + h - 3), fill=EDGE)
            self._pips(x, y, half, a)
            self._pips(x + half, y, half, b)

    def _pips(self, x: float, y: float, side: float, value: int) -> None:
        r = max(1.0, side * (0.07 if value > 9 else 0.09))
        for px, py in _PIPS[value]:
            cx, cy = x + px * side, y + py * side
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PIP)

    def back(self, x: float, y: float, half: float) -> None:
        """A tile face down, upright (as held in a hand)."""
        radius = max(1, int(half / 6))
        box = (x, y, x + half - 1, y + 2 * half - 1)
        self.draw.rounded_rectangle(box, radius=radius, fill=BACK, outline=EDGE)

    def hand(self, x: float, y: float, width: float, height: float, row: SeatRow) -> None:
        """A hand in a box: upright tiles, face up or down, shrunk to fit the width."""
        if row.count == 0:
            return
        gap = 3
        half = min(height / 2, (width + gap) / row.count - gap)
        for i in range(row.count):
            tx = x + i * (half + gap)
            if row.faces is None:
                self.back(tx, y, half)
            else:
                a, b = row.faces[i]
                self.tile(tx, y, half, a, b, vertical=True)

    def seat_rows(self, y: float, rows: Sequence[SeatRow]) -> float:
        """One row per seat from ``y`` down; returns the ``y`` below them."""
        for row in rows:
            marker = "> " if row.to_act else "  "
            self.text(MARGIN, y + ROW_HEIGHT / 2 - 9, marker + row.label, fill=TO_ACT if row.to_act else TEXT)
            self.hand(MARGIN + LABEL_WIDTH, y + 3, WIDTH - LABEL_WIDTH - 2 * MARGIN, ROW_HEIGHT - 6, row)
            y += ROW_HEIGHT
        return y

    def snake(self, x: float, y: float, width: float, height: float, line: Sequence[tuple[int, int]]) -> None:
        """The line of play in table order, left to right then back, doubles crosswise, with the
        largest tiles that fit the box."""
        for half in range(30, 3, -1):
            rows = _snake_rows(line, half, width)
            if len(rows) * (2 * half + 8) <= height:
                break
        top = y + (height - len(rows) * (2 * half + 8)) / 2
        widths = [sum(_length(a, b, half) for a, b in row) for row in rows]
        left = x + (width - max(widths)) / 2
        for r, row in enumerate(rows):
            ry = top + r * (2 * half + 8)
            tx = left if r % 2 == 0 else left + max(widths) - widths[r]  # the turn stays at the edge
            pieces = row if r % 2 == 0 else [(b, a) for a, b in reversed(row)]  # back the other way
            for a, b in pieces:
                if a == b:
                    self.tile(tx, ry, half, a, b, vertical=True)
                else:
                    self.tile(tx, ry + half / 2, half, a, b)
                tx += _length(a, b, half)


def _length(a: int, b: int, half: float) -> float:
    """Room a tile takes along the line: a double stands crosswise."""
    return half if a == b else 2 * half


def _snake_rows(line: Sequence[tuple[int, int]], half: float, width: float) -> list[list[tuple[int, int]]]:
    rows: list[list[tuple[int, int]]] = [[]]
    used = 0.0
    for a, b in line:
        length = _length(a, b, half)
        if used + length > width and rows[-1]:
            rows.append([])
            used = 0.0
        rows[-1].append((a, b))
        used += length
    return rows


def _seat_label(seat: int, notes: Sequence[str], tail: str) -> str:
    """``seat 2 (team 0, you): 7 tiles``."""
    label = f"seat {seat} ({', '.join(notes)})" if notes else f"seat {seat}"
    return f"{label}: {tail}" if tail else label


# ----- line games ---------------------------------------------------------------------------------------
LINE_TABLE_HEIGHT = 330


def line_frame_height(num_players: int) -> int:
    return HEADER_HEIGHT + num_players * ROW_HEIGHT + LINE_TABLE_HEIGHT + MARGIN


def draw_line_view(view: LineView) -> np.ndarray:
    """A line game seen by ``view.seat``: header, the line of play, every seat's hand."""
    config = view.config
    tiles = config.tiles
    picture = Picture(line_frame_height(config.num_players))
    target = f" (target {config.target_score})" if config.target_score else ""
    picture.text(MARGIN, 8, f"{config.preset} {config.variant}, round {view.round_index + 1}, "
                 f"scores {list(view.scores)}{target}", size=17)
    ends = f"open ends {view.left_end} | {view.right_end}   " if view.left_end >= 0 else ""
    status = "round over" if view.current_player is None else f"seat {view.current_player} to act"
    picture.text(MARGIN, 32, f"{ends}stock {view.stock_size} (drawable {view.drawable}), "
                 f"out of play {view.out_of_play}   {status}   view of seat {view.seat}", fill=DIM)
    line = [(a, b) for _tile, a, b in line_in_table_order(tiles, view.line)]
    picture.snake(MARGIN, HEADER_HEIGHT, WIDTH - 2 * MARGIN, LINE_TABLE_HEIGHT, line)
    rows = []
    for seat, size in enumerate(view.hand_sizes):
        hand = view.hands[seat] if view.hands is not None else view.hand if seat == view.seat else None
        faces = None if hand is None else [(tiles.high[t], tiles.low[t]) for t in iter_bits(hand)]
        notes = [f"team {config.side_of(seat)}"] if config.teams else []
        notes += ["you"] if seat == view.seat else []
        label = _seat_label(seat, notes, f"{size} tiles")
        rows.append(SeatRow(label, faces, size, seat == view.current_player))
    picture.seat_rows(HEADER_HEIGHT + LINE_TABLE_HEIGHT, rows)
    return picture.array()


# ----- Texas 42 ---------------------------------------------------------------------------------------
TRICK_HEIGHT = 150


def texas42_frame_height(num_players: int) -> int:
    return 2 * HEADER_HEIGHT + TRICK_HEIGHT + num_players * ROW_HEIGHT + MARGIN


def draw_texas42_view(view: Texas42View) -> np.ndarray:
    """Texas 42 (any variant) seen by ``view.seat``: marks, bids and contract, the trick, the hands."""
    config = view.config
    v = config.variant
    n = config.num_players
    picture = Picture(texas42_frame_height(n))
    if v.lone_bidder:
        marks = ", ".join(f"seat {s} {m}" for s, m in enumerate(view.marks))
    else:
        marks = f"team 0 {view.marks[0]}, team 1 {view.marks[1]}"
    title = f"{v.name} ({config.preset})   marks: {marks}   shaker: seat {view.shaker}"
    picture.text(MARGIN, 8, title, size=17)
    status = "over" if view.phase == DONE else f"seat {view.current_player} to {PHASE_NAMES[view.phase]}"
    picture.text(MARGIN, 32, f"{status}   view of seat {view.seat}", fill=DIM)
    picture.text(MARGIN, HEADER_HEIGHT + 4, _contract_text(view), size=16)
    picture.text(MARGIN, HEADER_HEIGHT + 28, _hidden_text(view), fill=DIM)
    _draw_trick(picture, view, 2 * HEADER_HEIGHT)
    rows = []
    for seat in range(n):
        hand = view.hands[seat] if view.hands is not None else view.hand if seat == view.seat else None
        faces = None if hand is None else [(v.high[t], v.low[t]) for t in iter_bits(hand)]
        bid = view.bids[seat]
        notes = [f"team {config.side_of(seat)}"] if not v.lone_bidder else []
        notes += ["you"] if seat == view.seat else []
        notes += ["sits out"] if seat == view.sitting_out else []
        label = _seat_label(seat, notes, v.action_text[bid] if bid >= 0 else "")
        rows.append(SeatRow(label, faces, view.hand_sizes[seat], seat == view.current_player))
    picture.seat_rows(2 * HEADER_HEIGHT + TRICK_HEIGHT, rows)
    return picture.array()


def _contract_text(view: Texas42View) -> str:
    v = view.config.variant
    if view.declaration >= 0:
        return (f"contract: seat {view.bidder} {v.action_text[view.bid]}, {v.action_text[view.declaration]}"
                f"   points this hand {view.points[0]} : {view.points[1]}   tricks {len(view.tricks)}")
    if view.bidder >= 0:
        return f"high bid: seat {view.bidder} {v.action_text[view.bid]}"
    return "bidding: no bid yet"


def _hidden_text(view: Texas42View) -> str:
    """The Texas 88 kitty or discards, named only to the bid winner (who took the kitty)."""
    v = view.config.variant
    if not v.kitty_size:
        return ""
    if view.phase == BID:
        return f"kitty: {v.kitty_size} tiles face down"
    if any(t >= 0 for t in view.discards):
        return "discards: " + " ".join(v.names[t] for t in view.discards)
    return f"discards: {len(view.discards)} tiles face down" if view.discards else ""


def _draw_trick(picture: Picture, view: Texas42View, y: float) -> None:
    """The trick in progress, or (between tricks) the last one and who took it."""
    v = view.config.variant
    trick, caption = view.trick, f"trick {len(view.tricks) + 1}"
    if not trick and view.tricks:
        trick = view.tricks[-1]
        caption = f"trick {len(view.tricks)} taken by seat {view.trick_winners[-1]}"
    picture.text(MARGIN, y + 4, caption if trick else "", fill=DIM)
    half = 40
    slot = (WIDTH - 2 * MARGIN - 140) / max(1, view.config.num_players)
    for i, (seat, tile) in enumerate(trick):
        x = MARGIN + 140 + i * slot + (slot - half) / 2
        picture.tile(x, y + 14, half, v.high[tile], v.low[tile], vertical=True)
        picture.text(x - 4, y + 14 + 2 * half + 4, f"seat {seat}", size=13)


# ----- All Fives and Fives and Threes -------------------------------------------------------------------
FIVES_TABLE_HEIGHT = 360
_ARM_DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # W, E, N, S: the way each arm grows on screen


def fives_frame_height(num_players: int) -> int:
    return HEADER_HEIGHT + num_players * ROW_HEIGHT + FIVES_TABLE_HEIGHT + MARGIN


def draw_fives_view(view: FivesView) -> np.ndarray:
    """All Fives or Fives and Threes seen by ``view.seat``: header with the count and scores, the
    layout as a cross around its centre, every seat's hand."""
    config = view.config
    picture = Picture(fives_frame_height(config.num_players))
    game = "All Fives" if config.is_all_fives else "Fives and Threes"
    exactly = "exactly " if config.exact_target else ""
    target = f" (target {exactly}{config.target_score})" if config.target_score else ""
    title = f"{game} ({config.preset}), hand {view.hand_index + 1}"
    picture.text(MARGIN, 8, f"{title}, scores {list(view.scores)}{target}", size=17)
    names = ("W", "E", "N", "S") if config.is_all_fives else ("left", "right")
    ends = ", ".join(f"{name} {v}" for name, v in zip(names, view.open_ends, strict=False) if v >= 0)
    table = f"open ends {ends}   count {view.count}   " if view.centre is not None else ""
    stock = (f"stock {view.stock_size} (drawable {view.drawable})" if config.is_all_fives
             else f"out of play {view.out_of_play}")
    status = "over" if view.current_player is None else f"seat {view.current_player} to act"
    picture.text(MARGIN, 32, f"{table}{stock}   {status}   view of seat {view.seat}", fill=DIM)
    if view.centre is not None:
        _draw_cross(picture, view, HEADER_HEIGHT, WIDTH - 2 * MARGIN, FIVES_TABLE_HEIGHT)
    rows = []
    for seat, size in enumerate(view.hand_sizes):
        hand = view.hands[seat] if view.hands is not None else view.hand if seat == view.seat else None
        faces = None if hand is None else [(int(TILE_HIGH[t]), int(TILE_LOW[t])) for t in iter_bits(hand)]
        notes = [f"team {config.side_of(seat)}"] if config.teams else []
        notes += ["you"] if seat == view.seat else []
        label = _seat_label(seat, notes, f"{size} tiles")
        rows.append(SeatRow(label, faces, size, seat == view.current_player))
    picture.seat_rows(HEADER_HEIGHT + FIVES_TABLE_HEIGHT, rows)
    return picture.array()


def _draw_cross(picture: Picture, view: FivesView, top: float, width: float, height: float) -> None:
    """The centre tile (the spinner or a double crosswise) and the arms growing out of it, with the
    largest tiles that fit the box; a double in an arm stands crosswise."""
    _tile, _seat, _when, west, east = view.centre
    crosswise = view.spinner >= 0 or west == east

    def along(arm: tuple, e: int) -> float:
        """Room an arm takes along its direction, per unit of ``half``."""
        return sum(1 if inner == outer else 2 for _t, _s, _w, inner, outer in arm) + 0.2 * len(arm)

    centre_w, centre_h = (1, 2) if crosswise else (2, 1)
    spans = [along(arm, e) for e, arm in enumerate(view.arms)]
    across = 2 * max(spans[0], spans[1]) + centre_w  # symmetric, so the centre stays in the middle
    down = 2 * max(spans[2], spans[3]) + centre_h
    half = max(4.0, min(24.0, width / across, (height - 8) / down))
    cx, cy = MARGIN + width / 2, top + height / 2
    picture.tile(cx - centre_w * half / 2, cy - centre_h * half / 2, half, west, east, vertical=crosswise)
    for (dx, dy), arm, (cw, ch) in zip(
        _ARM_DIRECTIONS, view.arms, ((centre_w, 0), (centre_w, 0), (0, centre_h), (0, centre_h)), strict=True
    ):
        # the distance from the centre point to the arm's next free edge, along the arm
        reach = (cw if dx else ch) * half / 2 + 0.2 * half
        for _t, _s, _w, inner, outer in arm:
            double = inner == outer
            length = half if double else 2 * half
            if dx:  # a horizontal arm: doubles stand upright
                x = cx + reach if dx > 0 else cx - reach - length
                a, b = (inner, outer) if dx > 0 else (outer, inner)
                y = cy - (half if double else half / 2)
                picture.tile(x, y, half, a, b, vertical=double)
            else:  # a vertical arm: doubles lie across it
                y = cy + reach if dy > 0 else cy - reach - length
                a, b = (inner, outer) if dy > 0 else (outer, inner)
                x = cx - (half if double else half / 2)
                picture.tile(x, y, half, a, b, vertical=not double)
            reach += length + 0.2 * half


# ----- Mexican Train ------------------------------------------------------------------------------------
TRAIN_ROW_HEIGHT = 44
HUB_WIDTH = 64  # the engine double's column, left of the trains
MARKER = (214, 48, 49)


def mexican_train_frame_height(num_players: int) -> int:
    return HEADER_HEIGHT + (num_players + 1) * TRAIN_ROW_HEIGHT + num_players * ROW_HEIGHT + MARGIN


def draw_mexican_train_view(view: MexicanTrainView) -> np.ndarray:
    """Mexican Train seen by ``view.seat``: header, the hub and every train with its marker and open
    double, every seat's hand."""
    config = view.config
    n = config.num_players
    picture = Picture(mexican_train_frame_height(n))
    last = config.last_round(view.round_index)
    title = f"Mexican Train ({config.preset}), round {view.round_index + 1}/{last}"
    scores = f"engine {view.engine}-{view.engine}, scores {list(view.scores)}"
    picture.text(MARGIN, 8, f"{title}, {scores}", size=17)
    doubles = ", ".join(f"{v}-{v} on {'mexican' if tr == n else f'seat {tr}'}" for tr, v in view.open_doubles)
    status = "over" if view.current_player is None else f"seat {view.current_player} to act"
    picture.text(MARGIN, 32, f"open doubles: {doubles or 'none'}   boneyard {view.boneyard_size}   {status}"
                 f"   view of seat {view.seat}", fill=DIM)
    top = HEADER_HEIGHT
    hub_x = MARGIN + LABEL_WIDTH
    hub_half = min(28.0, (n + 1) * TRAIN_ROW_HEIGHT / 2 - 4)
    picture.tile(hub_x + (HUB_WIDTH - hub_half) / 2, top + (n + 1) * TRAIN_ROW_HEIGHT / 2 - hub_half,
                 hub_half, view.engine, view.engine, vertical=True)
    open_trains = {train for train, _v in view.open_doubles}
    for train, tiles in enumerate(view.trains):
        y = top + train * TRAIN_ROW_HEIGHT
        you = " (you)" if train == view.seat else ""
        label = "mexican train" if train == n else f"seat {train}'s train{you}"
        picture.text(MARGIN, y + TRAIN_ROW_HEIGHT / 2 - 9, label)
        if train < n and view.marked[train]:
            cx, cy, r = MARGIN + LABEL_WIDTH - 14, y + TRAIN_ROW_HEIGHT / 2, 7
            picture.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=MARKER, outline=EDGE)
        _draw_train(picture, view, tiles, hub_x + HUB_WIDTH, y, train in open_trains)
    rows = []
    for seat, size in enumerate(view.hand_sizes):
        hand = view.hands[seat] if view.hands is not None else view.hand if seat == view.seat else None
        faces = None if hand is None else [tuple(map(int, tile_text(t).split("-"))) for t in iter_bits(hand)]
        notes = ["you"] if seat == view.seat else []
        notes += ["marked"] if view.marked[seat] else []
        label = _seat_label(seat, notes, f"{size} tiles")
        rows.append(SeatRow(label, faces, size, seat == view.current_player))
    picture.seat_rows(top + (n + 1) * TRAIN_ROW_HEIGHT, rows)
    return picture.array()


def _draw_train(picture: Picture, view: MexicanTrainView, tiles: Sequence[tuple[int, int, int]], x: float,
                y: float, open_double: bool) -> None:
    """One train from the hub outwards, each tile ``[end before | end after]``, doubles crosswise,
    shrunk to fit the row; the last tile ringed when it is the train's open double."""
    faces, end = [], view.engine
    for _tile, _seat, after in tiles:
        faces.append((end, after))
        end = after
    width = WIDTH - MARGIN - x
    half = min((TRAIN_ROW_HEIGHT - 4) / 2, width / max(1.0, sum(_length(a, b, 1) for a, b in faces)))
    for i, (a, b) in enumerate(faces):
        if a == b:
            picture.tile(x, y + TRAIN_ROW_HEIGHT / 2 - half, half, a, b, vertical=True)
            if open_double and i == len(faces) - 1:
                picture.draw.rectangle((x - 2, y + TRAIN_ROW_HEIGHT / 2 - half - 2, x + half + 1,
                                        y + TRAIN_ROW_HEIGHT / 2 + half + 1), outline=TO_ACT, width=2)
        else:
            picture.tile(x, y + TRAIN_ROW_HEIGHT / 2 - half / 2, half, a, b)
        x += _length(a, b, half)
