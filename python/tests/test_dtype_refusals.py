"""Dtypes Tack does not have are refused by name, never converted: by
Device.array, Device.zeros, tack.from_dlpack, annotations and the kernel call.
And NumPy asking for a device array on the host is told how to get a copy."""
import numpy as np
import pytest

import tack

NAMES = "(bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64)"

REFUSED = [
    (np.zeros(4, np.float16), "dtype float16", "e.g. a.astype(np.float32)"),
    (np.zeros(4, np.longdouble), "dtype float128", "e.g. a.astype(np.float32)"),
    (np.zeros(4, np.complex64), "dtype complex64", "e.g. a.real or np.abs(a)"),
    (np.zeros(4, np.complex128), "dtype complex128", "e.g. a.real or np.abs(a)"),
    (np.array([1, "x"], object), "dtype object (Python objects)", "convert it first"),
    (np.array(["ab", "c"]), "dtype <U2 (strings)", "convert it first"),
    (np.array([b"ab"]), "dtype |S2 (bytes)", "convert it first"),
    (np.zeros(2, "datetime64[s]"), "dtype datetime64[s] (dates)", "convert it first"),
    (np.zeros(2, "timedelta64[s]"), "dtype timedelta64[s] (time spans)", "convert it first"),
    (np.zeros(2, [("a", np.int32), ("b", np.float32)]), "(a structured dtype)", "convert it first"),
    (np.zeros(2, "V4"), "dtype |V4 (raw bytes)", "convert it first"),
]


@pytest.mark.parametrize("host, name, hint", REFUSED, ids=[str(h.dtype) for h, _, _ in REFUSED])
def test_device_array_refuses_and_names_the_dtype(cpu, host, name, hint):
    with pytest.raises(tack.TypeError) as e:
        cpu.array(host)
    msg = str(e.value)
    assert msg.startswith("Device.array: ") and name in msg and hint in msg
    assert f"is not one of Tack's dtypes {NAMES}; convert it first" in msg


def test_python_sequences_of_unsupported_values_are_refused(cpu):
    with pytest.raises(tack.TypeError, match="dtype complex128 is not one of Tack's dtypes"):
        cpu.array([1j, 2])
    with pytest.raises(tack.TypeError, match="dtype <U1 .strings. is not one of Tack's dtypes"):
        cpu.array(["a", "b"])
    with pytest.raises(tack.TypeError, match=r"dtype object \(Python objects\)"):
        cpu.array([1, None])
    with pytest.raises(tack.TypeError, match=r"dtype object \(Python objects\)"):
        cpu.array([1, 2**70])  # no 64-bit integer holds it


def test_an_explicit_dtype_converts_and_byte_order_is_not_a_dtype(cpu):
    # Asked for: the caller chose the conversion.
    a = cpu.array(np.array([1.5, 2.5], np.float16), dtype=np.float32)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a.numpy(), [1.5, 2.5])
    # Big-endian float32 is float32: the same values in the host's byte order, not a wider dtype.
    b = cpu.array(np.array([1.5, -2.0], ">f4"))
    assert b.dtype == np.float32
    np.testing.assert_array_equal(b.numpy(), [1.5, -2.0])
    with pytest.raises(tack.TypeError, match=r"dtype >f4 is byte-swapped; convert it first, e.g. a.astype\(np.float32"):
        cpu.zeros(2, ">f4")


def test_zeros_and_annotations_refuse_too(cpu):
    with pytest.raises(tack.TypeError, match="dtype float16 is not one of Tack's dtypes"):
        cpu.zeros(3, np.float16)
    with pytest.raises(tack.TypeError, match="dtype complex64 is not one of Tack's dtypes"):
        tack.Array[np.complex64]
    with pytest.raises(tack.TypeError, match="dtype float16 is not one of Tack's dtypes"):
        tack.Scalar[np.float16]


def test_bfloat16_if_ml_dtypes_is_installed(cpu):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    host = np.zeros(4, ml_dtypes.bfloat16)
    with pytest.raises(tack.TypeError, match=r"dtype bfloat16 is not one of Tack's dtypes .*a.astype\(np.float32\)"):
        cpu.array(host)
    with pytest.raises(tack.TypeError, match="dtype bfloat16 is not one of Tack's dtypes"):
        cpu.zeros(4, ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype, name", [(np.float16, "float16"), (np.complex64, "complex64"),
                                         (np.complex128, "complex128")])
def test_from_dlpack_refuses_and_names_the_dtype(cpu, dtype, name):
    host = np.zeros(4, dtype)
    with pytest.raises(tack.TypeError, match=f"from_dlpack: dtype {name} is not one of Tack's dtypes"):
        tack.from_dlpack(host, cpu)
    np.testing.assert_array_equal(host, np.zeros(4, dtype))  # refused: still the producer's


@tack.kernel
def scale(a: tack.Array, s: tack.Scalar):
    for i in tack.parallel(a.size):
        a[i] = a[i] * s


def test_the_kernel_call_names_the_dtype(cpu):
    a = cpu.zeros(2, np.float32)
    with pytest.raises(tack.TypeError, match=r"argument '\w+' \(the 2nd\): a \S*float16 cannot be passed to a kernel: "
                                             r"dtype float16 is not one of Tack's dtypes .*a.astype\(np.float32\)"):
        scale(a, np.float16(2))
    with pytest.raises(tack.TypeError, match=r"argument '\w+' \(the 2nd\): a \S*complex64 cannot be passed to a kernel: "
                                             "dtype complex64 is not one of"):
        scale(a, np.complex64(2))
    with pytest.raises(tack.TypeError, match=r"argument '\w+' \(the 1st\): a \S*ndarray cannot be passed to a kernel: "
                                             "dtype float16 is not one of.*pass a tack.Array"):
        scale(np.zeros(2, np.float16), 2.0)
    with pytest.raises(tack.TypeError, match=r"argument '\w+' \(the 1st\): a \S*ndarray cannot be passed to a kernel; "
                                             "pass a tack.Array"):
        scale(np.zeros(2, np.float32), 2.0)  # a Tack dtype: only the kind of argument is wrong


# ---- NumPy asking for a device array -------------------------------------------


def test_numpy_gets_a_host_copy_of_a_device_array_or_the_hint():
    from conftest import make_device
    dev = make_device("opencl")
    a = dev.array(np.array([1.5, 2.5], np.float32))
    # np.from_dlpack(a, device="cpu") asks for the host: a copy, as the DLPack protocol allows.
    host = np.from_dlpack(a, device="cpu")
    np.testing.assert_array_equal(host, [1.5, 2.5])
    host[0] = 9.0
    np.testing.assert_array_equal(a.numpy(), [1.5, 2.5])  # a copy, not the device's memory
    with pytest.raises(BufferError, match=r"lives on the opencl device, not in host memory.*a\.numpy\(\)"):
        a.__dlpack__(dl_device=(1, 0), copy=False)


def test_a_host_array_still_exports_in_place(cpu):
    a = cpu.array(np.array([1.0, 2.0], np.float32))
    view = np.from_dlpack(a, device="cpu")
    a.fill(3.0)
    np.testing.assert_array_equal(view, [3.0, 3.0])
