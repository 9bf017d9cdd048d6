"""Kernels with their test harness in the same file, as the SDK's examples are written: the shapes a
unittest.TestCase method or a pytest `test_*` function launches a kernel with are the shapes it is analysed at
(so a finding there is an error, and a kernel its harness launches correctly is clean without asserts); the
harness's numpy calls (random arrays, astype, tile, element-wise functions) are followed, a launch argument
computed in a way not followed is left symbolic, and a launch under `with self.assertRaises(...)` is a launch."""
import unittest

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit(mode="simulation")
def exp_rows(a_tensor):
    out = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_tensor)
    nl.store(out, value=nisa.activation(op=nl.exp, data=a))
    return out


@nki.jit(mode="simulation")
def exp_rows_launched_too_tall(a_tensor):
    out = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_tensor)  # expect: NKI201 error
    nl.store(out, value=nisa.activation(op=nl.exp, data=a))
    return out


@nki.jit(mode="simulation")
def add_tiled_rows(a_tensor, b_tensor):
    out = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_tensor)
    b = nl.load(b_tensor)
    nl.store(out, value=nl.add(a, b))
    return out


@nki.jit(mode="simulation")
def copy_first_block(a_tensor):
    out = nl.ndarray((128, 512), dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_tensor[0:128, 0:512])  # expect: NKI101 error
    nl.store(out, value=a)
    return out


@nki.jit(mode="simulation")
def add_a_spectrum(a_tensor, b_tensor):
    # b is launched with an array computed in a way not followed (np.fft): b alone is analysed as if standalone
    out = nl.ndarray((128, 512), dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_tensor[0:128, 0:512])
    b = nl.load(b_tensor[0:128, 0:512])  # expect: NKI101 warning, NKI101 warning
    nl.store(out, value=nl.add(a, b))
    return out


class TestKernels(unittest.TestCase):
    def setUp(self):
        self.rows = 128

    def test_exp_rows(self):
        a = np.random.random_sample([self.rows, 1024]).astype(np.float32) * 100
        self.assertTrue(np.allclose(exp_rows(a), np.exp(a)))

    def test_exp_rows_too_tall(self):
        a = np.random.random_sample([2 * self.rows, 512]).astype(np.float32)
        self.assertTrue(np.allclose(exp_rows_launched_too_tall(a), np.exp(a)))

    def test_add_tiled_rows(self):
        row = np.random.random_sample([16, 512]).astype(np.float32)
        a = np.tile(row, (8, 1))
        b = np.maximum(a, 0.5)
        self.assertTrue(np.allclose(add_tiled_rows(a, b), a + b))

    def test_copy_past_the_end(self):
        a = np.random.random_sample([128, 256]).astype(np.float32)
        with self.assertRaises(IndexError):
            copy_first_block(a)


def test_add_a_spectrum():
    a = np.random.random_sample([128, 512]).astype(np.float32)
    b = np.fft.fft(a).real.astype(np.float32)
    assert np.allclose(add_a_spectrum(a, b), a + b)


def test_nested_copy_of_a_tall_block():
    # a kernel defined inside the test that launches it: analysed at that launch
    @nki.jit(mode="simulation")
    def copy_tall_block(a_tensor):
        out = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a_tensor))  # expect: NKI201 error
        return out

    a = np.random.random_sample([256, 64]).astype(np.float32)
    copy_tall_block(a)
