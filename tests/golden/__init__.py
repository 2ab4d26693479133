"""Golden playthroughs: whole seeded games stored as JSON and replayed by the tests."""
