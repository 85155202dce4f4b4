"""`python -m toolscout_bench`: the same as `toolscout bench`."""

from __future__ import annotations

from toolscout_bench.cli import main

raise SystemExit(main())
