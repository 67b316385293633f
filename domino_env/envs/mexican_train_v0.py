"""
# Mexican Train

| Import             | `from domino_env import mexican_train_v0`                          |
|--------------------|--------------------------------------------------------------------|
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No                                                                 |
| Agents             | `agents= ['player_0', ..., 'player_3']` (`num_players`, 2 to 8)     |
| Agents             | 2 to 8 (4 by default)                                              |
| Action Shape       | Discrete(91(n + 1) + 3): 276 for 2 players, 458 for 4, 822 for 8   |
| Action Values      | Discrete(458) with 4 players                                       |
| Observation Shape  | (115n + 227,): 457 for 2 players, 687 for 4, 1147 for 8 (default)   |
| Observation Values | [0, 1]                                                             |

Mexican Train as RULES-new-games.md section 3 specifies: a double-twelve set, 2 to 8 players, the
round's engine double in the hub, a personal train per seat and the Mexican train open to all; a
seat that cannot play (after one draw) passes and marks its train, which opens it to everyone until
its owner plays on it; a double must be covered before play goes on elsewhere. Presets `"standard"`
and `"cardinal"` (hands of 11 for 7-8 players, the engine's holder places it, an opening run on
one's own train), and every option on its own: `hand_size` (a number or a table: `standard`,
`cardinal`, `fundex`, `bh`), `engine_source`, `first_player`, `opening`, `own_train_first`,
`double_bonus`, `unsatisfiable_double`, `blank_scoring`, `open_hands`. An episode is one round
(`episode="round"`, the default: engine 12-12) or a match of `rounds` rounds (`episode="match"`;
1 to 13, engines 12-12 down; the lowest total wins). `first_round` (not a rule of the game: practice
and training) starts the episode at a later round and its engine (`first_round=5`: 8-8), or at one
drawn anew each episode (`"random"`), so that one policy meets every engine of the match.

`reset(seed=..., options={"deal": {"hands": [["12-5", "3-4"], ...], "boneyard": [...],
"first_player": 0}})` sets up an exact first round (tiles as text or ids; `trains` and `marked`
set up a position in mid-round; see `MexicanTrainGame`). Other option keys are ignored.

### Observation Space

A dict: `"observation"`, a float32 vector from the encoder named by `observation_encoder`
(`"default"`: `domino_env.encoders.mexican_train.DefaultMexicanTrainEncoder`, every slot
documented by its slot table in docs/encoders.md: own hand, each train's tiles and end, markers,
open doubles, the turn's state, the round, hand sizes, the boneyard, scores; seats and trains
relative to the observing seat; `"compact"` adds what each other seat is known to lack, `"history"`
is the round's moves as tokens), and `"action_mask"`.

### Legal Actions Mask

`observation["action_mask"]`, int8 of length `91(n + 1) + 3`: 1 for each legal action of the seat
to act. Every other seat, and every seat once the episode is over, sees all zeros.

### Action Space

Relative to the acting seat `p`, with `n` players: `(n + 1) * t + k` plays tile `t` (canonical
double-twelve index `0-0, 0-1, ..., 12-12`) on train slot `k`: `0` is p's own train, `j` seat
`(p + j) mod n`'s, `n` the Mexican train; `91(n + 1)` draws, `+1` passes (and marks p's train),
`+2` stops an opening run. `env.unwrapped.action_to_text(a)` gives `"play 5-12 own"`,
`"play 5-12 mexican"`, `"play 1-6 p2"` (another train by its absolute seat), `"draw"`, `"pass"`,
`"stop"`; `action_from_text` reads them back.

### Rewards

Round points are penalties (the pips left in hand under `blank_scoring`; lower is better).
Rewards go to every seat at the step that ends a round (zero at all other steps). Let `p_i` be the
points seat `i` scored in the round and `n` the number of players:

- `reward="zero_sum"` (default): `-(p_i - (sum_j p_j - p_i) / (n - 1))`, so rewards sum to 0 at
  every step: going out (0 points) against heavy hands pays.
- `reward="penalty"`: `-p_i`.
- `reward="win_loss"`: only when the episode ends, the zero-sum formula applied to `w_i = 1` for
  the seats with the lowest total of the episode, 0 for the others.

With `illegal_action="penalize"` an illegal move ends the episode with `-illegal_penalty` for the
offender and 0 for the others; `"raise"` (the default of `raw_env()`; `env()` defaults to
`"penalize"`) raises `IllegalActionError` (a `ValueError`) naming the move and the legal moves,
and leaves the state untouched.

When a round ends, every agent's info holds `"round_points"` and `"scores"` (match totals), both
indexed by seat, until that agent's next move. After `reset()` both hold zeros.

### Version History

* v0: Initial release
"""

from __future__ import annotations

import numpy as np

from domino_env.encoders.base import get_encoder
from domino_env.envs.base import DominoAECEnv, RoundResultEnv
from domino_env.games import MEXICAN_TRAIN
from domino_env.rules.mexican_train import MexicanTrainGame


class raw_env(RoundResultEnv):
    """Mexican Train as a PettingZoo AEC environment (no wrappers; see ``env()``)."""

    metadata = {**DominoAECEnv.metadata, "name": "mexican_train_v0"}

    def __init__(
        self,
        num_players: int = 4,
        preset: str = "standard",
        episode: str = "round",
        rounds: int = 13,
        first_round: int | str = 1,
        hand_size: int | str | None = None,
        engine_source: str | None = None,
        first_player: str | None = None,
        opening: str | None = None,
        own_train_first: bool | None = None,
        double_bonus: str | None = None,
        unsatisfiable_double: str | None = None,
        blank_scoring: str | None = None,
        open_hands: bool = False,
        reward: str = "zero_sum",
        observation_encoder: str = "default",
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ):
        self.config = MEXICAN_TRAIN.config(
            num_players=num_players, preset=preset, episode=episode, rounds=rounds, first_round=first_round,
            hand_size=hand_size, engine_source=engine_source, first_player=first_player, opening=opening,
            own_train_first=own_train_first, double_bonus=double_bonus,
            unsatisfiable_double=unsatisfiable_double, blank_scoring=blank_scoring, open_hands=open_hands,
            reward=reward,
        )
        self.reward_mode = reward
        self.encoder = get_encoder("mexican_train", observation_encoder)
        n = self.config.num_players
        self._sides = list(range(n))  # every seat plays for itself
        super().__init__(
            num_players=n,
            num_actions=self.config.num_actions,
            observation_space=self.encoder.space(self.config),
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=render_mode,
        )

    def _new_game(self, rng: np.random.Generator, options: dict | None) -> MexicanTrainGame:
        self._reset_round_infos()
        return MexicanTrainGame(self.config, rng, deal=(options or {}).get("deal"))

    def _observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The view's ``legal_mask`` is the seat's legal moves when it is to act, else 0."""
        return self.encoder.encode_with_mask(self.game.view(seat), self.num_actions)

    def _round_side_points(self) -> list[float]:
        """Pips held count against their holder: a seat's points are minus its round points."""
        return [-float(p) for p in self.game.results[-1].round_points]

    def _episode_wins(self) -> list[float]:
        return [float(s in self.game.winners) for s in self._sides]
