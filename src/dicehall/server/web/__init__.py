"""The site's HTML face: server-rendered pages and one small ES module per game board."""
