"""The example kernel with its boundary violations planted (see ``../README.md``).

Only the planted modules, :mod:`kernel.gate` and :mod:`kernel.sealing`, live here. Every other
module of the package is the kernel's own, in ``../../kernel/kernel/``: Python takes a
submodule from the first directory of the package's ``__path__`` that holds it, and the lint
(``source_roots = [".", "../kernel"]``) from the first source root. Importing this package
imports none of its modules.
"""

import os

# The lint reports any change of __path__ (ST301): here it is the layout itself, on purpose.
__path__.append(  # sealed-trace: ignore[ST301] -- the kernel's other modules
    os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "kernel",
        "kernel",
    )
)
