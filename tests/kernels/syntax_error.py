import nki


@nki.jit
def broken(a):
    return a[0:128,  # expect: NKI999 error
