"""What keeps clients current: the LISTEN board, parked requests, one read for a crowd,
giving way under gevent."""
