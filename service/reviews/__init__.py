"""Reviews: every play of a finished match scored against the expert's choice, asked for
over the API and made by the worker in the background."""
