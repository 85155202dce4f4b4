"""`python -m toolscout_mcp serve ...`: the `toolscout-mcp` command."""

from toolscout_mcp.cli import main

raise SystemExit(main())
