"""Test fixture: toolscout plugins that fail to load, each in its own way."""
