"""The site's dice and their proofs: the dice pool and bags, the fairness log, the batches'
checks and Merkle proofs, and what of a game's log the public may see."""
