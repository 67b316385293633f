"""Reliability: bad input and faults, one module per category. Each module's docstring lists the bad
inputs it tries, so the next probe has a list to extend; long fuzz runs stay benchmarks.

- ``test_env_steps``: PettingZoo envs and ``SingleAgentEnv`` used before ``reset`` or after the end.
- ``test_options``: game and environment options (types, ranges, caps, penalties).
- ``test_deals``: exact deals through the engines and ``reset(options={"deal": ...})``.
- ``test_notation``: move text (non-strings, malformed moves, Texas 88 primes).
- ``test_engine_conventions``: seat to act, action ids (numpy, bool, out of range), generators.
- ``test_batched``: batched engines' deals, shakers and actions (dtypes, shapes, ids).
- ``test_saves``: ``from_json`` of versions, formats, generators, nesting, impossible scores.
- ``test_checkpoints``: damaged, malformed and non-finite checkpoints, resume mismatches, kills.
- ``test_config``: run configs (game options, non-finite floats, seeds, devices, run names).
- ``test_command_lines``: ``domino-evaluate`` and ``domino-play`` arguments and Ctrl-C.
"""
