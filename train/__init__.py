"""Self-play, TD(lambda) updates, the training loop, evaluation matches, checkpoints."""
