"""A launcher that takes the number of programs as a parameter: `kernel[n](x)` with n an integer the host
passes, for every n (not an array, as the launcher's other parameters are taken to be until used)."""
from neuronxcc import nki
import neuronxcc.nki.language as nl


@nki.jit
def halves_of_rows(x):
    rows, cols = x.shape
    g = nl.num_programs(0)
    assert rows % g == 0 and (rows // g) % 128 == 0 and cols <= 512
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    chunk = rows // g
    for t in nl.affine_range(chunk // 128):
        r0 = nl.program_id(0) * chunk + t * 128
        tile = nl.load(x[r0:r0 + 128, 0:cols])
        nl.store(out[r0:r0 + 128, 0:cols], value=nl.relu(tile))
    return out


@nki.jit
def halves_of_rows_strided_by_one_tile_too_many(x):
    rows, cols = x.shape
    g = nl.num_programs(0)
    assert rows % g == 0 and (rows // g) % 128 == 0 and cols <= 512 and g >= 2
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    chunk = rows // g
    for t in nl.affine_range(chunk // 128):
        r0 = nl.program_id(0) * (chunk + 128) + t * 128
        tile = nl.load(x[r0:r0 + 128, 0:cols])  # expect: NKI101 error
        nl.store(out[r0:r0 + 128, 0:cols], value=nl.relu(tile))  # expect: NKI101 error
    return out


def launch(x, n_programs):
    return halves_of_rows[n_programs](x)


def launch_strided(x, n_programs):
    return halves_of_rows_strided_by_one_tile_too_many[n_programs](x)
