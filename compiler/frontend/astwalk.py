"""Every node under an AST node, computed once per node.

The front end asks the same questions of a kernel's function body several times (which parameters are used
as tensors, as ints, which names a loop body writes ...); each `ast.walk` of a long kernel visits thousands of
nodes.  The walk is kept on the node itself: the tree belongs to one analysis and is never modified, so the
list cannot go stale and nothing outlives the analysis.
"""

from __future__ import annotations

import ast

_ATTR = "_nki_walk"


def walk(node: ast.AST) -> tuple:
    """The nodes of `ast.walk(node)`, in the same order."""
    got = getattr(node, _ATTR, None)
    if got is None:
        got = _bfs(node)
        setattr(node, _ATTR, got)
    return got


def _bfs(node: ast.AST) -> tuple:
    """ast.walk's breadth-first order, without its per-node generators."""
    out = [node]
    i = 0
    AST = ast.AST
    while i < len(out):
        n = out[i]
        i += 1
        for name in n._fields:
            v = getattr(n, name, None)
            if isinstance(v, AST):
                out.append(v)
            elif isinstance(v, list):
                out.extend(x for x in v if isinstance(x, AST))
    return tuple(out)
