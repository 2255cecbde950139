"""HTTP plumbing every resource shares: the Api, problem+json, the parser, fields."""
