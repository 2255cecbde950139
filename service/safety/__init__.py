"""Trust and safety: suspensions, voided results, reports, the audit log, and a player's
data (export, erasure), for a front end's staff."""
