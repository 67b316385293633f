"""The batched Mexican Train engine beside the batched Block engine: agent-steps per second, interleaved.

    .venv/bin/python scripts/speed_mexican_train_vector.py                 # 4,096 games, 3 s each
    .venv/bin/python scripts/speed_mexican_train_vector.py --games 16384 --seconds 10

Each case steps ``--games`` games at once with uniformly random legal actions drawn from each step's
masks (``sample_legal``), or the batched ``greedy``'s moves where the case says so (the scripted
opponent of training), and the compact observation built every step, timed in alternating short
slices beside Block 2p (``VectorLineGame``) by ``speed_fives_vector``'s runner, so load drifts on a
shared machine hit every case alike: compare the ratios to Block 2p within one run, not the absolute
rates across runs. The load average is printed with the figures.
"""

from __future__ import annotations

from speed_fives_vector import REFERENCE, compare

MEXICAN_TRAIN = "domino_env.vector.mexican_train:VectorMexicanTrainGame"
CASES: dict[str, tuple] = {
    REFERENCE: ("domino_env.vector.line:VectorLineGame", {"variant": "block", "num_players": 2}),
    "Mexican Train 4p": (MEXICAN_TRAIN, {"num_players": 4}),
    "Mexican Train 2p": (MEXICAN_TRAIN, {"num_players": 2}),
    "Mexican Train 8p": (MEXICAN_TRAIN, {"num_players": 8}),
    "Mexican Train 4p cardinal": (MEXICAN_TRAIN, {"num_players": 4, "preset": "cardinal"}),
    "Mexican Train 4p match": (MEXICAN_TRAIN, {"num_players": 4, "episode": "match"}),
    "Mexican Train 4p, greedy plays": (MEXICAN_TRAIN, {"num_players": 4}, ("mexican_train", "greedy")),
}


if __name__ == "__main__":
    compare(CASES, REFERENCE, __doc__)
