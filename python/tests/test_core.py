"""Generators: Philox against published values and an independent key derivation; os_random;
errors."""

import os
import threading

import numpy as np
import pytest

import dpx

MASK64 = (1 << 64) - 1


def splitmix64(z):
    """SplitMix64 finaliser (Steele, Lea & Flood 2014), written independently of dpx."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def test_philox_cpp26_reference_value():
    # C++26 [rand.eng.philox]: the 10000th output of a default-constructed philox4x32 is
    # 1955073260 (default seed 20111115 -> key {20111115, 0}, counter 0).
    g = dpx.Philox.from_key((20111115, 0))
    g.discard(9999)
    assert g.random_raw() == 1955073260


def test_random123_known_answer():
    # Random123 kat_vectors: philox4x32_10, counter = key = 0 ->
    # 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
    g = dpx.Philox.from_key((0, 0), (0, 0, 0, 0))
    assert [hex(x) for x in g.random_raw(4)] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]


@pytest.mark.parametrize("seed,cell,rep,purpose,code", [(7, 0, 0, "noise", 2), (3, 12345, 9, "data", 1)])
def test_stream_key_derivation(seed, cell, rep, purpose, code):
    g = dpx.Philox(seed, cell, rep, purpose)
    k64 = splitmix64(splitmix64(seed) ^ cell)
    assert g.key == (k64 & 0xFFFFFFFF, k64 >> 32)
    assert g.counter == (0, 0, rep, code)


def test_bulk_equals_scalar_and_copy():
    g = dpx.Philox(11)
    h = g.copy()
    assert g == h
    bulk = g.random_raw(1001)
    assert bulk.dtype == np.uint32
    assert [h.random_raw() for _ in range(1001)] == bulk.tolist()
    u = dpx.Philox(5).uniform(7)
    w = dpx.Philox(5).random_raw(14).astype(np.uint64)
    words = w[0::2] | (w[1::2] << np.uint64(32))
    np.testing.assert_array_equal(u, (words >> np.uint64(11)).astype(np.float64) * 2.0**-53)


def test_os_random_is_not_constant():
    r = dpx.os_random()
    x = r.random_raw(64)
    assert x.dtype == np.uint64 and len(set(x.tolist())) == 64
    assert isinstance(r.random_raw(), int)
    # Every bit takes both values over 3000 words (a stuck bit passes with probability 2^-2999).
    w = r.random_raw(3000)
    assert int(np.bitwise_or.reduce(w)) == MASK64 and int(np.bitwise_and.reduce(w)) == 0


def test_the_release_generator_is_the_csprng():
    # Releases draw from dpx.os_random() (OpenSSL's CSPRNG); no Philox constructor is offered
    # for them any more (Philox is not cryptographic).
    assert not hasattr(dpx.Philox, "os_seeded")
    assert "CSPRNG" in dpx.os_random.__doc__ and "RAND_priv_bytes" in dpx.OsRandom.__doc__


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_os_random_forked_child_does_not_repeat_the_parent():
    # The child must not draw the words the parent had buffered (equal words by chance: 2^-64).
    r = dpx.os_random()
    r.random_raw()
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(wr, int(r.random_raw()).to_bytes(8, "little"))
        os._exit(0)
    mine = r.random_raw()
    child = int.from_bytes(os.read(rd, 8), "little")
    os.waitpid(pid, 0)
    os.close(rd)
    os.close(wr)
    assert mine != child


def test_validation_error_carries_cpp_fields():
    with pytest.raises(dpx.ValidationError) as e:
        dpx.Philox(1, purpose="everything")
    assert isinstance(e.value, ValueError)
    assert e.value.parameter == "purpose" and e.value.value == "everything"
    assert "must be data, noise" in str(e.value)


def test_shared_generator_is_safe_across_threads():
    # 4 threads x 50 fills of 10^4 words from one generator: every word distinct positions of
    # the same stream, i.e. the union is exactly the first 2*10^6 outputs (in some order).
    g = dpx.Philox(99)
    out = []

    def work():
        for _ in range(50):
            out.append(g.random_raw(10_000))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    got = np.sort(np.concatenate(out))
    want = np.sort(dpx.Philox(99).random_raw(2_000_000))
    np.testing.assert_array_equal(got, want)
