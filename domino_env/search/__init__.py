"""search

Importing the package imports each game's belief module that lives outside ``beliefs``: importing one
registers its game in ``beliefs.BELIEFS``, so ``sample_consistent_deal`` and ``rebuild`` serve it.
"""

from domino_env.search import fives_beliefs, mexican_train_beliefs  # noqa: F401 (they register on import)
