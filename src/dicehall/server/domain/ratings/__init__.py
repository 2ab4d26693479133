"""Ratings for 2 to 8 seats (openskill's Bradley-Terry, calibrated for dice), leaderboards
and ladders."""
