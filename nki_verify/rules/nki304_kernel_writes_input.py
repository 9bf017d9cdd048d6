"""NKI304: A kernel writes one of its input tensors."""

from .base import Rule

RULE = Rule(
    code='NKI304',
    name='kernel-writes-input',
    severity='error',
    summary='A kernel writes one of its input tensors.',
    what=('Beta-1 kernels: detects writes to a kernel parameter that the kernel also reads before writing (the '
          'getting-started guide of that release: an output cannot also be an input). A parameter that is only '
          'written is an output passed in and is not reported, and neither are parameters annotated '
          '`nt.mutable_tensor` (the Beta-1 errors page\'s way to make an input writable) or those of an '
          '`@nki.trace` sub-kernel, whose caller hands it buffers to update. Beta-2 kernels are not checked: '
          'current NKI writes inputs in place (the NKI library\'s inplace kernels, `nki_op(mutates_args=...)`).'),
    why='In/out parameters were not supported by Beta-1 NKI.',
    bad='nl.store(a[0:128, 0:512], value=t)  # a is also loaded',
    good=(
        'out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)\n'
        'nl.store(out[0:128, 0:512], value=t)'
    ),
    fix='Return a new output tensor, or annotate the parameter `nt.mutable_tensor` if it is meant to be updated.',
)
