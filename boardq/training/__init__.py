"""A training run: the trainer, its state on disk, the ladder, logging, Ray actor processes."""
