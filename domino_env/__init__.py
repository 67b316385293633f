"""domino-env: rules engines and PettingZoo environments for dominoes (line games and Texas 42)."""

__version__ = "0.1.0"
