"""Players: a front end's users, vouched for by the front end (its server key, or a
short-lived player token it mints or signs), and the tokens that prove them."""
