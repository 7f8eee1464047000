"""engine/allocator.py: malloc is tuned while a big closure runs, and put back after, also when
closures nest or overlap, fail, or are small."""
import pytest

from holokb.engine import allocator


class _Recorder:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("trim", pad))
        return 1


@pytest.fixture
def libc(monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr(allocator, "_glibc", lambda: rec)
    monkeypatch.setattr(allocator, "ENABLED", True)
    monkeypatch.setattr(allocator, "_users", 0)
    # glibc's own defaults: an in-process CLI derive earlier in this process may have kept freed memory
    monkeypatch.setattr(allocator, "_DEFAULTS", allocator.GLIBC_DEFAULTS)
    return rec


TUNED = [(-8, 1), (-4, 0), (-1, 2**31 - 1)]
RESTORED = [(-1, 128 * 1024), (-4, 65536), ("trim", 0)]


def test_a_big_closure_runs_tuned_and_restores_after(libc):
    with allocator.big_arrays(allocator.MIN_ROWS):
        assert libc.calls == TUNED
    assert libc.calls == TUNED + RESTORED and allocator._users == 0


def test_overlapping_closures_restore_once_the_last_ends_even_after_a_failure(libc):
    with pytest.raises(MemoryError):
        with allocator.big_arrays(10**6):
            with allocator.big_arrays(10**6):
                assert libc.calls == TUNED
            assert libc.calls == TUNED  # the outer one still runs
            raise MemoryError
    assert libc.calls == TUNED + RESTORED and allocator._users == 0


def test_small_closures_and_the_switch_leave_malloc_alone(libc, monkeypatch):
    with allocator.big_arrays(allocator.MIN_ROWS - 1):
        pass
    monkeypatch.setattr(allocator, "ENABLED", False)
    with allocator.big_arrays(10**7):
        pass
    assert libc.calls == []


def test_glibc_is_found_where_it_is_the_c_library():
    import os

    try:
        glibc = bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):
        glibc = False
    assert (allocator._glibc() is not None) == glibc


def test_a_command_that_keeps_freed_memory_gets_its_settings_back_after_a_closure(libc):
    """The CLI's derive keeps freed memory for the whole process; a big closure's end restores that
    choice, not glibc's defaults."""
    assert allocator.keep_freed_memory()
    kept = [(-3, 64 << 20), (-1, 512 << 20)]
    assert libc.calls == kept
    with allocator.big_arrays(allocator.MIN_ROWS):
        pass
    assert libc.calls == kept + TUNED + [(-1, 512 << 20), (-4, 65536), ("trim", 0)]


def test_keeping_freed_memory_respects_the_switch(libc, monkeypatch):
    monkeypatch.setattr(allocator, "ENABLED", False)
    assert not allocator.keep_freed_memory() and libc.calls == []


def test_numpys_huge_page_request_is_off_while_closures_run_and_restored_after(libc, monkeypatch):
    state = {"on": True}
    calls = []

    def switch(on):
        calls.append(on)
        before, state["on"] = state["on"], on
        return before

    monkeypatch.setattr(allocator, "_hugepage_switch", lambda: switch)
    with allocator.big_arrays(10**6):
        with allocator.big_arrays(10**6):
            assert state["on"] is False
        assert state["on"] is False  # the outer closure still runs
    assert state["on"] is True and calls == [False, True]
    with allocator.big_arrays(allocator.MIN_ROWS - 1):  # a small input may have a big closure: off too
        assert state["on"] is False
    assert state["on"] is True and calls == [False, True, False, True]
    monkeypatch.setattr(allocator, "ENABLED", False)  # the switch (or the user's malloc tuning): untouched
    with allocator.big_arrays(10**6):
        assert state["on"] is True
    assert calls == [False, True, False, True]


def test_the_huge_page_switch_is_numpys_and_answers_its_previous_setting():
    switch = allocator._hugepage_switch()
    if allocator.HUGEPAGES:
        assert switch is None
        return
    assert switch is not None
    before = switch(False)
    try:
        assert bool(switch(False)) is False  # it answers the setting made just before
    finally:
        switch(before)
