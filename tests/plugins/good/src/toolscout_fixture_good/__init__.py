"""Test fixture: a minimal, well-behaved toolscout plugin distribution."""
