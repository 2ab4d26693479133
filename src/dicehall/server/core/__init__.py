"""Settings, the database and its schema, security primitives, the clock: no site logic."""
