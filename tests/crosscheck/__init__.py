"""The cross-check: generated kernel programs, verified statically and executed on the reference device.

programs.py  the program generator (a hypothesis strategy over `Spec`s, each built into source text, inputs
             and a numpy reference of the intended computation)
oracle.py    the three properties: soundness, counterexample replay, agreement on clean kernels
regressions.py  specs that once disagreed, kept as regression tests
"""
