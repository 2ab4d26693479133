"""``python -m dicehall`` runs the command line."""

from dicehall.cli.main import main

main()
