"""
# Texas 42

| Import             | `from domino_env import texas42_v0`                          |
|--------------------|--------------------------------------------------------------|
| Actions            | Discrete                                                     |
| Parallel API       | No                                                           |
| Manual Control     | No                                                           |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']`   |
| Agents             | 4 (teams 0+2 v 1+3); 3 (`num_players=3`); 6 (`preset="texas88"`) |
| Action Shape       | Discrete(63); Discrete(64) with three players; Discrete(149) in Texas 88 |
| Action Values      | Discrete(63); Discrete(64); Discrete(149)                    |
| Observation Shape  | (430,), (514,) with `open_hands`; 3 players (334,); 88 (1055,) |
| Observation Values | [0, 1]                                                       |

Texas 42 as docs/rules.md section 3 (3.1-3.6) specifies: four players in two partnerships, all 28
double-six tiles dealt, one round of bidding, a contract (trump 0-6, doubles, follow-me, and with
options Nello, Sevens, Plunge), up to seven tricks, marks to 7. Presets `"standard"` and
`"n42pa"` (tournament rules: it refuses the options it forbids with a `ValueError`), and two
variants with their own action spaces and observation sizes:

- **Three-player 42** (`num_players=3`, docs/rules.md 3.7): 0-1 removed, nine tiles each, nine tricks,
  44 points a hand, bids 30..43 then marks; the bidder plays alone against the other two; marks
  are kept per player. Plunge is refused (no partner); in Nello nobody sits out.
- **Texas 88** (`preset="texas88"`, docs/rules.md 3.8): six players, seats 0+2+4 against 1+3+5, two
  double-six sets (tile id = canonical index + 28 x copy; the second copy is written `6-4'`),
  nine tiles each and a kitty of two, tricks worth 2 (88 points), bids 60, 62, ..., 86 then
  marks. The bid winner takes the kitty, discards two non-count tiles (`discard a-b`, a phase of
  its own; the kitty and the discards are hidden from everyone else), then names a suit or
  doubles. Forced bid, Nello, Plunge, Sevens and follow-me are refused.

Options
`all_pass` (`"reshake"` or `"forced"`; `forced_bid=True` is an alias of `"forced"`),
`follow_me_doubles` (`"high"`, `"own_suit"`), `nello` (`None`, or its doubles: `"high"`, `"low"`,
`"own_suit"`), `plunge`, `sevens`, `stop_when_decided` (default on: a hand ends as soon as its
result is known), `episode` (`"hand"`, default, or `"game"` to `target_marks`, default 7) and
`open_hands` (practice: every hand in every observation).

A hand goes bid -> declare -> play. The bid winner declares and leads (after Plunge, their
partner declares and leads), so the same agent may act twice in a row. If all four pass, the deal
passes to the left and a new hand is dealt inside the same episode, without marks: a `"hand"`
episode always ends with a hand played. In Nello the bidder's partner sits out and is never
selected. `reset(seed=..., options={"deal": {"hands": [[7 tiles] x 4], "shaker": 0}})` sets up an
exact first deal (tiles as text such as `"6-4"` or tile ids; Texas 88 adds `"kitty": [2 tiles]`).

### Observation Space

A dict: `"observation"`, a float32 vector from the encoder named by `observation_encoder`
(`"default"`: `domino_env.encoders.texas42.DefaultTexas42Encoder`, documented slot by slot by its
slot table: own hand, tiles played by each seat, the trick in progress by seat and its leader,
suits each seat failed to follow, phase, seat to act, shaker, every bid, highest bidder,
declarer, contract, the Nello partner sitting out, points per team, marks per team; all relative
to the observing seat), and `"action_mask"`. No other hand is visible, the Nello partner's
included (it lies face down).

### Legal Actions Mask

`observation["action_mask"]`, int8 of length `num_actions` (63 in 42): 1 for each legal action of
the agent to act. Every other agent, and every agent once the episode is over, sees all zeros.

### Action Space

Four-player 42 (the other variants shift every id after the point bids: 14 point bids, so
`trump 0` is 26; three-player 42 has 27 play ids, 64 in all; Texas 88 has 56 play ids then 56
`discard a-b` ids, 149 in all; see `domino_env.rules.texas42`):

| ids | meaning |
|---|---|
| 0 | `pass` |
| 1-12 | `bid 30` ... `bid 41` |
| 13-19 | `bid 1m` ... `bid 7m` (above 2 marks only one mark over a bid of 2 marks or more) |
| 20-23 | `bid plunge 4m` ... `bid plunge 7m` (option `plunge`, holding four doubles or more) |
| 24-30 | `trump 0` ... `trump 6` |
| 31, 32 | `trump doubles`, `trump followme` |
| 33, 34 | `nello`, `sevens` (options; only after a winning bid of 1 mark or more) |
| 35-62 | `play a-b`: tile `t` of the canonical index (`0-0, 0-1, ..., 6-6`) is `35 + t` |

`env.unwrapped.action_to_text(a)` and `action_from_text(text)` convert to and from the notation
of docs/rules.md 3.9.

### Rewards

Rewards go to every agent at the step that ends a hand (zero at all other steps, reshakes
included). Marks are held by *sides*: the two teams, or with three players each player. Let `m_k`
be the marks side `k` won this hand; seat `s` on side `k` gets:

- `reward="zero_sum"` (default): `m_k - mean of the other sides' m`, so every step's rewards sum
  to 0. With teams: `+m` to the team that scored, `-m` to the other. With three players: made,
  `+m` to the bidder and `-m/2` to each opponent; set, `-m` to the bidder and `+m/2` to each
  opponent.
- `reward="marks"`: `m_k` (the marks the seat's side scored; 0 for the others).
- `reward="win_loss"`: only when the episode ends, the same zero-sum formula over `w_k` = 1 for
  the side(s) with the most marks, else 0: `+1`/`-1` with teams; with three players `+1` to the
  winner and `-1/2` to the others (two tied winners: `+1/2` each, `-1` to the third).

With `illegal_action="penalize"` an illegal move ends the episode with `-illegal_penalty` for the
offender and 0 for the others, except a renege (a tile in hand that does not follow suit) under
the `n42pa` preset: the offending team loses the hand, i.e. the contract's marks go to the other
team (`zero_sum`: `-m`/`+m`; `marks`: `+m` to the other team; `win_loss`: `-1`/`+1`).
`"raise"` (the default of `raw_env()`; `env()` defaults to
`"penalize"`) raises `IllegalActionError` (a `ValueError`) naming the move and the legal
moves, and leaves the state untouched.

When a hand ends, every agent's info holds `"hand_marks"` (by seat: marks its side won this
hand), `"marks"` (game totals by seat: its side's), `"points_taken"` (by seat: points its side
took this hand; with three players the bidder's own, or the two opponents' together) and
`"contract"` (`{"bidder", "bid", "declaration", "made"}`, moves as text).

### Version History

* v0: Initial release (0.1.0); three-player 42 (`num_players=3`) and Texas 88 (`preset="texas88"`)
  added without changing the four-player game
"""

from __future__ import annotations

import numpy as np

from domino_env.encoders.base import get_encoder
from domino_env.envs.base import DominoAECEnv
from domino_env.games import TEXAS42
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.rewards import zero_sum
from domino_env.rules.texas42 import RenegeError, Texas42Game


class raw_env(DominoAECEnv):
    """Texas 42 as a PettingZoo AEC environment (no wrappers; see ``env()``)."""

    metadata = {**DominoAECEnv.metadata, "name": "texas42_v0"}

    def __init__(
        self,
        preset: str = "standard",
        all_pass: str | None = None,
        forced_bid: bool | None = None,
        follow_me_doubles: str = "high",
        nello: str | None = None,
        plunge: bool = False,
        sevens: bool = False,
        stop_when_decided: bool = True,
        episode: str = "hand",
        target_marks: int = 7,
        open_hands: bool = False,
        num_players: int | None = None,
        reward: str = "zero_sum",
        observation_encoder: str = "default",
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ):
        self.config = TEXAS42.config(
            reward=reward,
            preset=preset,
            forced_bid=forced_bid,
            all_pass=all_pass,
            follow_me_doubles=follow_me_doubles,
            nello=nello,
            plunge=plunge,
            sevens=sevens,
            stop_when_decided=stop_when_decided,
            episode=episode,
            target_marks=target_marks,
            open_hands=open_hands,
            num_players=num_players,
        )
        self._sides = [self.config.side_of(s) for s in range(self.config.num_players)]
        self.reward_mode = reward
        self.encoder = get_encoder("texas42", observation_encoder)
        self._hands_reported = 0
        self._reported = False  # the infos hold a hand's result (cleared on the next step)
        super().__init__(
            num_players=self.config.num_players,
            num_actions=self.config.num_actions,
            observation_space=self.encoder.space(self.config),
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )

    @property
    def reward_range(self) -> tuple[float, float]:
        """Bounds of any one step's reward of any seat (a plain illegal move's ``-illegal_penalty``
        aside; an n42pa renege pays the hand's marks, within them): at most the marks of one hand
        (``config.max_hand_marks``), or 1 with ``win_loss``."""
        if self.reward_mode == "win_loss":
            return -1.0, 1.0
        marks = float(self.config.max_hand_marks)
        return (0.0 if self.reward_mode == "marks" else -marks), marks

    def _new_game(self, rng: np.random.Generator, options: dict | None) -> Texas42Game:
        """Other ``options`` keys are ignored, as PettingZoo's API test expects of a reset."""
        self._hands_reported = 0
        self._reported = False
        return Texas42Game(self.config, rng, deal=(options or {}).get("deal"))

    def _observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The view's ``legal_mask`` is the seat's legal moves when it is to act, else 0."""
        return self.encoder.encode_with_mask(self.game.view(seat), self.num_actions)

    def _apply(self, action: int) -> list[float] | None:
        game = self.game
        scored = game.hands_scored
        game.apply(action)
        if game.hands_scored == scored:
            return None
        if self.reward_mode == "win_loss":
            if not game.is_terminal:
                return None
            top = max(game.marks)
            return zero_sum([float(m == top) for m in game.marks], self._sides)
        return self._hand_rewards(game.last_result["hand_marks"])

    def _hand_rewards(self, hand_marks: list[int]) -> list[float] | list[int]:
        """``marks`` and ``zero_sum`` rewards of a hand that gave ``hand_marks`` (by seat; side k
        holds seat k)."""
        if self.reward_mode == "marks":
            return hand_marks
        return zero_sum(hand_marks[: len(self.game.marks)], self._sides)

    def _penalty_rewards(self, offender: int, error: IllegalActionError) -> list[float] | list[int]:
        """A renege the rules price (``RenegeError``: n42pa) pays as the hand it forfeits, the
        episode won by the side it gives the marks to; any other illegal move the base penalty."""
        if not isinstance(error, RenegeError):
            return super()._penalty_rewards(offender, error)
        if self.reward_mode == "win_loss":
            return zero_sum([float(m > 0) for m in error.hand_marks[: len(self.game.marks)]], self._sides)
        return self._hand_rewards(error.hand_marks)

    def _infos(self) -> list[dict] | None:
        """A hand's result for one step; ``None`` while the infos stay empty."""
        game = self.game
        if game.hands_scored == self._hands_reported or game.last_result is None:
            if not self._reported:
                return None
            self._reported = False
            return [{} for _ in self.possible_agents]
        self._hands_reported = game.hands_scored
        self._reported = True
        return [dict(game.last_result) for _ in self.possible_agents]
