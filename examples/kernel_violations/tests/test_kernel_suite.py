"""The kernel's own suite, run against this tree: the planted modules, and the kernel's others.

The tests are ``../kernel/tests/``'s, imported (``pythonpath`` holds that directory), so a fix
to them is made once. Here they must fail where the planted violations break them.
"""

from test_boundary_markers import *  # noqa: F403
from test_practice_end_to_end import *  # noqa: F403
from test_upstream_with_fixtures import *  # noqa: F403
