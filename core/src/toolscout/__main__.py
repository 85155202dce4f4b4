"""`python -m toolscout`: the `toolscout` command, for when its script is not on PATH."""

from toolscout.cli import main

raise SystemExit(main())
