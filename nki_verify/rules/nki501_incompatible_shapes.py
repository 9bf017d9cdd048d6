"""NKI501: Operand shapes do not satisfy the instruction's shape rules."""

from .base import Rule

RULE = Rule(
    code='NKI501',
    name='incompatible-shapes',
    severity='error',
    summary="Operand shapes do not satisfy the instruction's shape rules.",
    what=(
        'Checks the shape relations of every instruction call against compiler/spec (same partitions and '
        'elements per partition for element-wise operations, matmul K/M/N consistency, dma element counts, '
        'reshape element counts, ...).'
    ),
    why='The compiler rejects the call; when it does not, data is silently truncated or misread.',
    bad='nisa.tensor_tensor(dst=out[0:128, 0:256], data1=a[0:128, 0:512], data2=b[0:128, 0:512], op=nl.add)',
    good='nisa.tensor_tensor(dst=out[0:128, 0:512], data1=a[0:128, 0:512], data2=b[0:128, 0:512], op=nl.add)',
    fix='Make the operand views agree (the message names the rule and the sizes).',
    implemented=True,
)
