"""NKI401: Two iterations of an `affine_range` loop touch the same element, one of them writing."""

from .base import Rule

RULE = Rule(
    code='NKI401',
    name='affine-loop-carried-dependency',
    severity='error',
    summary='Two iterations of an `affine_range` loop touch the same element, one of them writing.',
    what=(
        'Proves with two copies of the loop index (i != j) that no write in one iteration meets a read or '
        'write of another, element by element. Accumulation the hardware orders is exempt: matmul into PSUM, '
        '`+=` / `nl.loop_reduce` accumulation, and in Beta 2 (where iterations run in order) a '
        '`tensor_tensor(dst=acc, data1=acc, data2=x)` whose op does not depend on the order (add, multiply, '
        'maximum, minimum, bitwise and/or/xor), as in the SDK\'s Mamba example. An error in Beta 1; a warning '
        'in Beta 2, where the compiler may '
        'serialise the loop instead of miscompiling it. A write placed by a value each iteration reads at run '
        'time (a scatter by an index loaded in the loop, `scalar_offset=row`) meets another iteration\'s when '
        'the two values can be equal: a warning naming the value, which only the caller can rule out; a value '
        'read once before the loop is the same in every iteration.'
    ),
    why='`affine_range` promises independent iterations; the compiler may reorder or overlap them.',
    bad=(
        'for i in nl.affine_range(n):\n'
        '    nisa.tensor_tensor(dst=acc, data1=x[i], data2=acc, op=nl.subtract)'
    ),
    good=(
        'for i in nl.sequential_range(n):\n'
        '    nisa.tensor_tensor(dst=acc, data1=x[i], data2=acc, op=nl.subtract)'
    ),
    fix='Use `sequential_range` (or allocate per iteration).',
)
