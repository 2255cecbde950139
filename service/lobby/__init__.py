"""Tables between strangers: open seats, quick play, rematch, abort."""
