"""Fair play: each rated or staked match's signals (agreement with the expert where the
choice mattered, loss a play, move-time regularity, what moved between two players), a
player's picture against players of similar rating, and flags for staff to decide."""
