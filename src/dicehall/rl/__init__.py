"""The five games as reinforcement-learning environments, for people who study games.

- :mod:`dicehall.rl.pettingzoo`: PettingZoo AEC environments, every seat an agent.
- :mod:`dicehall.rl.gymnasium`: Gymnasium environments, one seat against dicehall's bots.

Both need the ``rl`` extra (``pip install 'dicehall[rl]'``) and are imported only when asked
for; :mod:`dicehall.rl.encoding` says how each game's actions and observations are numbered.
Observations are built from the acting seat's view alone, so they hold nothing that seat may
not see. See docs/research.md.
"""
