"""PettingZoo adapters over the pure rules engines in ``domino_env.rules``."""
