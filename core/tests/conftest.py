import atexit
import os
import shutil
import tempfile

pytest_plugins = ["toolscout.testing.plugin"]

# toolscout's caches (token counts, vectors) go to a folder of this run, not the user's.
_CACHE = tempfile.mkdtemp(prefix="toolscout-core-tests-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["XDG_CACHE_HOME"] = _CACHE
