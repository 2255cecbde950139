"""The computer's moves for this app: searching levels in helper processes of lower
priority (:mod:`.helpers`, each one :mod:`.searcher`), the others in the request. The
bots themselves are the engine's (:mod:`service.engine.bots`)."""
