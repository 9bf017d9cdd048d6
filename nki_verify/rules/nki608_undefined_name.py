"""NKI608: A name that nothing in the file defines and that is not a builtin (NameError while tracing)."""

from .base import Rule

RULE = Rule(
    code='NKI608',
    name='undefined-name',
    severity='error',
    summary='A name that nothing in the file defines and that is not a builtin (NameError while tracing).',
    what=('Finds a read, in code a kernel runs, of a name that no statement of the file binds in any scope (no '
          'assignment, parameter, def, class, import, loop or with target) and that is not a Python builtin: a '
          'typo, or a variable renamed in one place only. A file with a star import, or that writes its namespace '
          'through globals()/vars()/exec, is not judged. A warning when only some inputs reach the read, an error '
          'when every analysed launch does; the inputs that reach it are not analysed further.'),
    why='Tracing raises NameError, so the kernel does not compile.',
    bad=(
        'i_p = slice(p_start, p_end)\n'
        'tile = nl.load(in_tensor[i_p, 0:512])\n'
        'nl.store(out_tensor[i_p, i_f], value=tile)'
    ),
    good=(
        'i_p = slice(p_start, p_end)\n'
        'tile = nl.load(in_tensor[i_p, 0:512])\n'
        'nl.store(out_tensor[i_p, 0:512], value=tile)'
    ),
    fix='Define the name, or correct its spelling.',
)
