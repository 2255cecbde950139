"""Front ends: their API keys, who a request speaks for, rate limits."""
