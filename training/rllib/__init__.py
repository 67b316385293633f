"""Self-play on Ray RLlib (``scripts/train_rllib.py``); Ray is imported only by the modules that need it."""
