"""Playing with people you know: friends, and challenges between players."""
