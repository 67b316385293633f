"""The run configs (YAML), installed as package data of domino_env_training: ``--config block_2p``."""
