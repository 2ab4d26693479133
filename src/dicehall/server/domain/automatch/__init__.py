"""Auto-match: tickets, open waiting-room seats first, the matcher's plan and its job."""
