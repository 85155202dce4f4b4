pytest_plugins = ["toolscout.testing.plugin"]
