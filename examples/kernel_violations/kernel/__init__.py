"""A small practice kernel: a word problem's refused assessment becomes a sealed practice trace.

Loop order (ADR-0230 §5), one module per stage, dependencies pointing one way:
``frame -> assessment -> residuals -> gate -> budget -> search -> replay -> sealing``.
:mod:`kernel.practice` runs the loop; :mod:`kernel.sealing` is the only module that imports
``sealed_trace``. Importing this package imports none of its modules.
"""
