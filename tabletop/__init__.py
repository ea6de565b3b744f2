"""What the card games of Gamenook share and is not a rule of any of them.

Pure Python, standard library only, like the game packages that use it:

- ``tabletop.ruleset``: the interface a game package provides (``Ruleset``)
  and the service reaches it through, with the typed refusal (``RuleError``)
  and option declarations (``OptionSpec``);
- ``tabletop.seats``: seats still in the game and their rotation;
- ``tabletop.shuffle``: seeded shuffles, uniform and reproducible;
- ``tabletop.deal``: dealing one card at a time round the table;
- ``tabletop.ranking``: ranks shared by equals (1, 2, 2, 4);
- ``tabletop.handles``: opaque card handles keyed by the game's secret seed;
- ``tabletop.record``: the envelope of a game record and its action entries.
"""
