"""Engine behaviour: the prefilter parses only where a rule can fire, the cache (content hash +
policy hash, warm stat path) and parallel parsing give the same findings."""

from __future__ import annotations

import json
import os

import pytest
from lint_project import Project

from sealed_trace.lint import engine


def test_prefilter_skips_files_that_cannot_reach_the_sealed_module(project: Project) -> None:
    project.write("src/pkg/up/b.py", "import json\nfrom pkg import values\n")
    project.write("src/pkg/up/c.py", "'''mentions sealed_trace and resealed only'''\n")
    parsed: list[str] = []
    project.run(parsed=parsed)
    assert "src/pkg/sealed.py" in parsed
    assert "src/pkg/up/b.py" not in parsed
    assert "src/pkg/up/c.py" not in parsed


def test_prefilter_follows_chains(project: Project) -> None:
    project.write("src/pkg/x.py", "import pkg.sealed\n")
    project.write("src/pkg/up/b.py", "import pkg.x\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    assert {"src/pkg/x.py", "src/pkg/up/b.py"} <= set(parsed)
    assert [(f.path, f.code) for f in result.findings] == [("src/pkg/up/b.py", "ST402")]


def test_package_word_followed_by_dot_is_not_a_candidate(project: Project) -> None:
    project.write("src/pkg/__init__.py", "from pkg import sealed\n")
    project.write("src/pkg/up/b.py", "from pkg.values import x\n")
    parsed: list[str] = []
    project.run(parsed=parsed)
    assert "src/pkg/up/b.py" not in parsed


def test_warm_run_uses_cache(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import time\n")
    cold = project.run(use_cache=True)
    assert not cold.cache_hit
    parsed: list[str] = []
    warm = project.run(use_cache=True, parsed=parsed)
    assert warm.cache_hit
    assert parsed == []
    assert warm.findings == cold.findings
    assert (project.root / ".sealed_trace_cache" / ".gitignore").read_text() == "*\n"


def test_changed_file_invalidates(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import time\n")
    project.run(use_cache=True)
    project.write("src/pkg/sealed.py", "import json\n")
    result = project.run(use_cache=True)
    assert not result.cache_hit
    assert result.findings == ()


def test_policy_change_invalidates(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import decimal\n")
    assert project.run(use_cache=True).findings
    project.boundary_toml += 'allowed_imports = ["pkg.values", "decimal"]\n'
    project.boundary_toml = project.boundary_toml.replace(
        'allowed_imports = ["pkg.values"]\n', "", 1)
    result = project.run(use_cache=True)
    assert not result.cache_hit
    assert result.findings == ()


def test_facts_cache_avoids_reparse(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.run(use_cache=True)
    project.write("src/pkg/unrelated.py", "x = 1\n")  # run cache misses, facts cache hits
    calls: list[int] = []
    real = engine._parse_batch

    def counting(batch):  # type: ignore[no-untyped-def]
        calls.append(len(batch))
        return real(batch)

    monkeypatch.setattr(engine, "_parse_batch", counting)
    result = project.run(use_cache=True)
    assert not result.cache_hit
    assert sum(calls) == 0


def test_corrupt_cache_is_ignored(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import time\n")
    cache = project.root / ".sealed_trace_cache"
    cache.mkdir()
    (cache / engine.CACHE_FILE).write_text("{not json", encoding="utf-8")
    assert [f.code for f in project.run(use_cache=True).findings] == ["ST102"]
    data = json.loads((cache / engine.CACHE_FILE).read_text())
    data["facts"] = {k: {"bad": 1} for k in data["facts"]}
    data["run"] = {}
    (cache / engine.CACHE_FILE).write_text(json.dumps(data))
    assert [f.code for f in project.run(use_cache=True).findings] == ["ST102"]


def test_parallel_equals_serial(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(12):
        project.write(f"src/pkg/up/m{i}.py", f"import pkg.sealed\nfrom . import m{(i + 1) % 12}\n")
    serial = project.run(jobs=1).findings
    monkeypatch.setattr(engine, "_PARALLEL_MIN", 0)
    parallel = project.run(jobs=2).findings
    assert parallel == serial
    assert len(serial) == 24


def test_one_read_and_parse_per_file_with_several_boundaries(project: Project) -> None:
    project.write("src/pkg/kernel.py", "import json\n")
    project.boundary_toml += """
[[tool.sealed_trace.boundary]]
name = "kernel"
module = "pkg.kernel"
preset = "adr-0230"
upstream = ["pkg.up.*"]
"""
    project.write("src/pkg/up/a.py", "from pkg import sealed, kernel\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    assert len(parsed) == len(set(parsed))
    assert {(f.code, f.boundary) for f in result.findings} == {
        ("ST401", "sealed"), ("ST401", "kernel")}


def test_paths_outside_roots_get_engine_checks(project: Project) -> None:
    outside = project.write("scripts/tool.py", b"\x00")
    result = project.run(paths=[os.path.relpath(outside, project.root)])
    assert [f.code for f in result.findings] == ["ST001"]


def test_background_boundary_parse_equals_serial(project: Project) -> None:
    project.write("src/pkg/sealed.py", "import time\nclass T:\n    answer: int\n")
    project.write("src/pkg/up/a.py", "from pkg import sealed\n")
    serial = project.run(jobs=1).findings
    background = project.run(jobs=2).findings
    assert background == serial
    assert {f.code for f in serial} == {"ST102", "ST501", "ST401"}


def _crash_on_sealed(batch):  # type: ignore[no-untyped-def]
    if any(job[0].endswith("sealed.py") for job in batch):
        os._exit(3)  # a native parser crash kills the worker like this
    return _REAL_PARSE_BATCH(batch)


_REAL_PARSE_BATCH = engine._parse_batch


def test_parser_crash_in_worker_fails_closed(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write("src/pkg/sealed.py", "import time\n")
    monkeypatch.setattr(engine, "_parse_batch", _crash_on_sealed)
    result = project.run(jobs=2)
    assert [(f.path, f.code) for f in result.findings] == [("src/pkg/sealed.py", "ST001")]
    assert "crashed" in result.findings[0].message


def test_large_candidate_set_is_parsed_in_workers(project: Project) -> None:
    for i in range(120):
        project.write(f"src/pkg/up/w{i}.py", f"import importlib\nimportlib.import_module(N{i})\n")
    serial = project.run(jobs=1).findings
    parallel = project.run(jobs=2).findings
    assert parallel == serial
    assert len(serial) == 120


@pytest.mark.parametrize(
    ("methods", "threads", "expected"),
    [
        (["fork", "spawn", "forkserver"], 1, "fork"),
        (["fork", "spawn", "forkserver"], 2, "forkserver"),
        (["fork", "spawn", "forkserver"], 9, "forkserver"),
        (["spawn"], 1, None),
        (["spawn"], 3, None),
    ],
)
def test_workers_are_forked_only_from_a_single_threaded_process(methods, threads, expected):
    from sealed_trace.lint.engine import _start_method

    assert _start_method(methods, threads) == expected


def _double(value: int) -> int:
    return value * 2


@pytest.mark.skipif(
    "forkserver" not in __import__("multiprocessing").get_all_start_methods(),
    reason="needs the fork server start method",
)
def test_the_pool_works_after_the_futures_module_was_imported_again(monkeypatch) -> None:
    # pytester's in-process runs drop modules imported during a run from sys.modules; the
    # package concurrent.futures still holds the executor class of the copy it first loaded.
    # A fork-server worker pickles its function by module name, so the engine must take the
    # executor from the module in sys.modules, whichever copy that is.
    import concurrent.futures
    import sys
    import time

    from sealed_trace.lint import engine

    assert concurrent.futures.ProcessPoolExecutor  # cached by the package from this copy
    threads_before = engine._thread_count()
    monkeypatch.delitem(sys.modules, "concurrent.futures.process")
    monkeypatch.setattr(engine, "_thread_count", lambda: 2)  # as under pytest-xdist
    pool = engine._pool(1)
    try:
        assert pool.submit(_double, 21).result(timeout=120) == 42
    finally:
        pool.shutdown()
        monkeypatch.undo()
        # The pool's helper threads end just after shutdown: wait for them (bounded), so
        # that no test after this one counts them.
        for _ in range(200):
            if engine._thread_count() <= threads_before:
                break
            time.sleep(0.05)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc (Linux)")
def test_the_thread_count_sees_threads_started_outside_threading() -> None:
    import _thread
    import threading

    from sealed_trace.lint.engine import _thread_count

    before = _thread_count()
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait()

    _thread.start_new_thread(hold, ())
    started.wait()
    try:
        assert _thread_count() == before + 1
    finally:
        release.set()
