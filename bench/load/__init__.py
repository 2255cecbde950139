"""A day of a big front end, as a Locust load test: ``python -m bench load`` (:mod:`.run`).

Virtual players (:mod:`.locustfile`) sign in, hold their player stream, quick play and
play at a human pace, chat, befriend, challenge and join tournaments; the front end's
server (:mod:`.frontend`) mints their tokens, schedules tournaments and receives every
webhook. The mix and the pace are settings (:mod:`.habits`).
"""
