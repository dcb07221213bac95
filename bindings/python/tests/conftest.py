"""Shared fixtures: paths of the test modules."""

import os

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(TESTS, "data")
REPO = os.path.abspath(os.path.join(TESTS, "..", "..", ".."))


def testdata(*parts):
    return os.path.join(REPO, "testdata", *parts)


@pytest.fixture
def mul_vmfb():
    """expected_output.vmfb: mul (4xf32 x 2), iadd (2x2xi32 x 2), pair
    (3xf16 -> 3xf16, 3xf32), scalar (i32, f32 -> i32, f32)."""
    return testdata("llvm-cpu", "expected_output.vmfb")


@pytest.fixture
def tiny_vmfb():
    """tiny.vmfb: add_i32 (i32, i32 -> i32), mul4 (4xf32 x 2)."""
    return os.path.join(DATA, "tiny.vmfb")
