"""The boundary-lint engine: discover, prefilter, parse where a rule can fire, judge, report.

Pipeline (issue 3 §5-§6; ADR-0230 §5, §7.3, §15):

1. **Read** every discovered file once (``_files.read_bytes``); a file that cannot be read,
   decoded, or holds a NUL byte becomes ST001/ST002 — never a crash, never a silent pass.
2. **Prefilter** (sound, byte-level): a file gets a full libcst parse only when a rule can
   fire on it. Boundary modules are always parsed. For reverse dependencies the engine grows
   the set ``R`` of first-party modules that reach the sealed module, starting from the sealed
   module itself: any import of a module ``m`` (absolute, ``from``, relative, dotted attribute,
   or literal dynamic import) names ``m``'s last component as a whole identifier, or is a
   relative import of an ancestor package (``from .``), or is a star import (which may import
   the submodules in a package's ``__all__``), or goes through an import function: one named
   outright (``__import__``, ``import_module``, ...), an import-capable module named
   (``importlib``, ``builtins``, ``pkgutil``, ``runpy``, ...), or a lookup (``getattr``,
   ``vars``, ``__dict__``) with a literal spelled through escapes or implicit concatenation,
   which is how a string can name one without its bytes (:class:`_Vocabulary`). So
   a file in which none of those spellings occurs cannot import anything in ``R`` and is not
   parsed. Non-ASCII files are NFKC-normalised before the
   search (Python normalises identifiers), files with a non-UTF-8 coding cookie are decoded
   first. Parsed files contribute their exact edges; ``R`` grows until nothing new is found.
   ``R`` also starts from every parsed module outside a boundary and its upstream that holds a
   dynamic import the lint cannot resolve (such a module is parsed, as it names an import
   function): when an upstream module reaches one, that module's ST301 findings are reported
   (role ``reached``), since it may import the sealed module on upstream's behalf.
3. **Parse** candidates with libcst (``_extract``), in parallel over the cores when worth it;
   facts are cached by content hash (+ module name and engine version).
4. **Judge** facts against each boundary with the rules, apply suppressions, sort.
5. **Warm path**: when policy, rules, selection and the stat fingerprints of all files equal
   the previous run's, the cached findings are returned without reading any file.

The engine never imports or executes scanned code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sealed_trace.lint._files import SourceFile, discover, read_bytes
from sealed_trace.lint.catalog import RuleInfo, register_rule_info
from sealed_trace.lint.config import Boundary, LintConfig
from sealed_trace.lint.facts import DYNAMIC_WORDS, FileFacts, ImportFact
from sealed_trace.lint.findings import Finding, sort_findings
from sealed_trace.lint.rules import BUILTIN_RULES, ReverseEdge, Rule, RuleContext
from sealed_trace.lint.suppressions import MARKER, apply_suppressions, scan_suppressions

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["CACHE_FILE", "ENGINE_VERSION", "LintResult", "lint"]

ENGINE_VERSION = "7"
#: Cache file name: its format version, independent of ENGINE_VERSION (which is in every key).
CACHE_FILE = "lint-v1.json"
_MARKER = MARKER.encode()
_RELATIVE = re.compile(rb"\bfrom[ \t\f\\\r\n]*\.")
#: A star import (``from P import *``) may import every submodule named in P's ``__all__``.
_STAR = re.compile(rb"import[ \t\f\\\r\n(]*\*")
#: Modules whose mere mention makes a file parsed: their attributes are import functions that a
#: string can name (``getattr(importlib, "import_\x6dodule")``); ``imp`` is a whole word.
_ROOT_WORDS = (b"importlib", b"builtins", b"pkgutil", b"runpy", b"zipimport", b"resolve_name",
               b"find_spec", b"pydoc", b"locate", b"get_data", b"resources", b"loadTestsFromName",
               b"patch", b"_gcd_import", b"_find_and_load", b"pickle", b"marshal",
               b"dictConfig", b"fileConfig", b"EntryPoint", b"make_parser")
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
#: What may stand between a package's name and a dot that makes it name a submodule.
_DOT_AFTER = re.compile(rb"(?:[ \t\f]|\\(?:\r\n|\r|\n))*\.")
#: Names through which a string literal reaches an attribute of an unnamed object
#: (``getattr(getattr(getattr, "__self__"), "__import__")``, ``x.__dict__["..."]``).
_LOOKUP_WORDS = (b"getattr", b"__dict__", b"__globals__", b"vars", b"attrgetter",
                 b"methodcaller")
#: A string literal spelling a name through an escape that yields letters, digits or dots, or a
#: backslash-newline inside it, or two adjacent literals (implicit concatenation, also across
#: lines and comments inside brackets).
#: Each pattern starts with a literal character, so ``re`` skips to its occurrences quickly.
_SPELLED_ESCAPE = re.compile(rb"\\(?:[xuUN0-7]|\r\n|\r|\n)")
_SPELLED_GAP = tuple(
    re.compile(quote + rb"(?:[ \t\f\r\n]|\\(?:\r\n|\r|\n)|#[^\r\n]*)+[rRuUbBfF]{0,2}[\"']")
    for quote in (b'"', b"'")
)
_SPELLED_TIGHT = tuple(
    re.compile(quote + rb"[\"']*[rRuUbBfF]{0,2}[\"'](?=[A-Za-z0-9_.])") for quote in (b'"', b"'")
)
#: Dynamic-fact kinds of an import the lint cannot resolve (ST301).
_HIDDEN_KINDS = frozenset(
    {"computed-import", "path-import", "hidden-import", "escaped-import", "relative-base"}
)
_WORDISH = re.compile(rb"[A-Za-z0-9_.]")


def _spelled(scan: bytes) -> bool:
    """A string literal spelled through an escape that yields letters, digits or dots, or a
    backslash-newline inside it, or two adjacent literals (implicit concatenation, also across
    lines and comments inside brackets)."""
    if _SPELLED_ESCAPE.search(scan) or any(rx.search(scan) for rx in _SPELLED_GAP):
        return True
    for rx in _SPELLED_TIGHT:  # ``"ab""cd"``: quotes between word characters
        for match in rx.finditer(scan):  # the word character after is in the pattern
            start = match.start()
            if start and _WORDISH.match(scan, start - 1):
                return True
    return False
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_UTF8 = frozenset({"utf-8", "utf_8", "utf8", "utf-8-sig", "ascii", "us-ascii"})
#: A batch is parsed in worker processes from this weight on: a file for the import-graph pass
#: weighs 1 (a few milliseconds), a file for the libcst pass weighs 64.
_PARALLEL_MIN = 96


@dataclass(frozen=True, slots=True)
class LintResult:
    """Outcome of one lint run: sorted ``findings`` of the selected files, how many files were
    ``checked`` and ``parsed`` with libcst, whether the warm ``cache_hit`` path answered, and
    the ``rules`` that ran (for SARIF's rule table)."""

    findings: tuple[Finding, ...]
    checked: int
    parsed: int
    cache_hit: bool
    rules: tuple[Rule, ...] = ()


@dataclass(slots=True)
class _Loaded:
    file: SourceFile
    scan: bytes = b""
    text: str | None = None
    digest: str = ""
    error: tuple[str, int, int, str] | None = None
    words_checked: set[tuple[bytes, bool]] = field(default_factory=set)
    raw: bytes = b""
    tokens: set[bytes] | None = None


def _line_of(data: bytes, index: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, index) + 1
    return line, index - (data.rfind(b"\n", 0, index) + 1) + 1


_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)?")


def _head_lines(data: bytes) -> list[bytes]:
    """The first two lines of ``data`` with their ends, split as CPython's tokenizer splits
    them (``\r\n``, ``\r`` or ``\n``), where a coding cookie may stand."""
    lines: list[bytes] = []
    position = 0
    while len(lines) < 2:
        match = _LINE.match(data, position)
        if match is None or not match.group():
            break
        lines.append(match.group())
        position = match.end()
    return lines


def _load(file: SourceFile, limit: int) -> _Loaded:
    """Read, check and decode one file (see the module docstring, step 1)."""
    item = _Loaded(file)
    if file.problem is not None:
        item.error = ("ST002", 1, 1, f"cannot read: {file.problem}")
        return item
    try:
        data = read_bytes(file.abspath, limit)
    except OSError as exc:
        item.error = ("ST002", 1, 1, f"cannot read: {exc.strerror or exc}")
        return item
    except ValueError as exc:
        item.error = ("ST002", 1, 1, f"cannot read: {exc}")
        return item
    item.raw = data
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_of(data, nul)
        item.error = ("ST001", line, col, "source contains a NUL byte")
        return item
    head = _head_lines(data)
    cookies = [match for line in head if (match := _COOKIE.search(line))]
    if data.isascii() and all(c.group(1).decode().lower() in _UTF8 for c in cookies):
        item.scan = data
        return item
    import tokenize
    import unicodedata

    try:
        # CPython finds the coding cookie on the first two lines as its tokenizer reads
        # them, with universal newlines: a lone CR ends a line too.
        encoding, _ = tokenize.detect_encoding(iter([*head, b"", b""]).__next__)
        text = data.decode(encoding)
    except (SyntaxError, LookupError) as exc:
        item.error = ("ST001", 1, 1, f"cannot decode: {exc}")
        return item
    except UnicodeDecodeError as exc:
        line, col = _line_of(data, exc.start)
        item.error = ("ST001", line, col, f"cannot decode as {exc.encoding}: {exc.reason}")
        return item
    item.text = text
    item.scan = unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")
    return item


def _decoded(item: _Loaded) -> str:
    if item.text is None:
        item.text = item.scan.decode("ascii")
    return item.text


def _has_word(scan: bytes, word: bytes, package: bool = False) -> bool:
    """Whether ``word`` occurs as a whole identifier; for a package, one not followed by ``.``.

    A package is imported as itself only by ``import pkg``/``from pkg import name`` (never
    followed by a dot), by a relative import (checked separately) or dynamically (the dynamic
    words); ``pkg.sub`` names the submodule, and attribute edges to a package that is an
    ancestor of an imported module are not edges (see :func:`_edges`).

    Only spaces, tabs, form feeds and backslash-newline continuations may stand between the
    name and that dot: a plain newline ends a statement (``from pkg import sealed`` followed by
    a line ``...`` or ``.5``); inside brackets a dot on the next line is therefore taken for an
    import of the package itself, erring toward parsing.
    """
    # Occurrences are found with bytes.find (fast) and their edges checked one by one: a
    # regex with a look-behind first would be tried at every position of the file.
    size = len(word)
    start = scan.find(word)
    while start >= 0:
        end = start + size
        if (start == 0 or scan[start - 1] not in _IDENT_BYTES) and (
            end == len(scan) or scan[end] not in _IDENT_BYTES
        ) and not (package and _DOT_AFTER.match(scan, end)):
            return True
        start = scan.find(word, start + 1)
    return False


_TOKEN_TABLE = bytes(c if c in _IDENT_BYTES else 32 for c in range(256))


def _tokens(scan: bytes) -> set[bytes]:
    """Maximal runs of identifier bytes: a word occurs in ``scan`` as a substring iff it is a
    substring of one of them (words are identifier bytes), as a whole identifier iff it is one."""
    return set(scan.translate(_TOKEN_TABLE).split())


def _containing(vocabulary: set[bytes], words: Iterable[bytes]) -> set[bytes]:
    """The tokens of ``vocabulary`` that contain one of ``words``."""
    blob = b" ".join(vocabulary)
    out: set[bytes] = set()
    for word in words:
        i = blob.find(word)
        while i >= 0:
            start = blob.rfind(b" ", 0, i) + 1
            end = blob.find(b" ", i)
            end = len(blob) if end < 0 else end
            out.add(blob[start:end])
            i = blob.find(word, end)
    return out


_ASCII_WORD = re.compile(rb"[A-Za-z0-9_]+")


def _names_word(item: _Loaded, word: bytes, package: bool) -> bool:
    """:func:`_has_word` on the file, answered by its token set when that decides it: an
    ASCII identifier word that is not a token does not occur as a whole identifier."""
    if item.tokens is not None and _ASCII_WORD.fullmatch(word) and word not in item.tokens:
        return False
    return _has_word(item.scan, word, package)


def _star(scan: bytes) -> bool:
    """Whether the file holds a star import (``import *`` after a non-identifier byte)."""
    for match in _STAR.finditer(scan):
        start = match.start()
        if start == 0 or scan[start - 1] not in _IDENT_BYTES:
            return True
    return False


class _Vocabulary:
    """The prefilter's word searches, answered through token sets.

    A token is a maximal run of ASCII identifier bytes of a file's scan text. Every searched
    word is made of such bytes, so it occurs in a file as a substring exactly when it is a
    substring of one of the file's tokens, and as a whole identifier exactly when it is one.
    The tokens containing a dynamic-import word are found once, over the vocabulary of all
    files, so each file then needs set lookups instead of one substring search per word.
    """

    def __init__(self, token_sets: Iterable[set[bytes]]) -> None:
        vocabulary: set[bytes] = set().union(*token_sets)
        self.dynamic = _containing(vocabulary, (*DYNAMIC_WORDS, *_ROOT_WORDS))
        self.dynamic.add(b"imp")  # a whole word: ``imp.load_module`` without the word below
        self.lookup = _containing(vocabulary, _LOOKUP_WORDS)

    def may_import_dynamically(self, item: _Loaded) -> bool:
        """Whether the file may call an import function (the prefilter's dynamic half): it
        names one, or a module that holds some, or looks a name up with a string literal that
        is spelled through escapes or implicit concatenation (which the parser folds into one
        constant)."""
        tokens = item.tokens
        if tokens is None:
            return True  # never tokenised: err toward parsing
        if not tokens.isdisjoint(self.dynamic):
            return True
        return not tokens.isdisjoint(self.lookup) and _spelled(item.scan)


_Job = tuple[str, str, str | None, bool, bool]
_Parsed = list[tuple[str, dict[str, Any]]]


def _parse_batch(batch: Sequence[_Job]) -> _Parsed:
    """Worker entry point: parse each ``(key, text, module, is_package, full)``.

    ``full`` files (the sealed modules) get the libcst pass with scope metadata; the others the
    import-graph pass (:mod:`._graph`). Returns ``(key, facts JSON)`` pairs.
    """
    from sealed_trace.lint._graph import extract_graph_facts

    out: _Parsed = []
    for key, text, module, pkg, full in batch:
        if full:
            from sealed_trace.lint._extract import extract_facts

            out.append((key, extract_facts(text, module, pkg).to_json()))
        else:
            out.append((key, extract_graph_facts(text, module, pkg).to_json()))
    return out


def _longest_module(name: str, modules: dict[str, str]) -> str | None:
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _edges(
    facts: FileFacts, own: str, modules: dict[str, str]
) -> list[tuple[str, int, int, str, bool]]:
    """Exact first-party edges of a parsed file: ``(target, line, col, spelling, tc)``."""
    out: list[tuple[str, int, int, str, bool]] = []
    covered: set[str] = set()
    for fact in facts.imports:
        target = _import_target(fact, modules)
        if target is not None and target != own:
            out.append((target, fact.line, fact.column, fact.text, fact.type_checking))
            parts = target.split(".")
            covered.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    for ref in facts.refs:
        if ref.qname.startswith("builtins."):
            continue
        # An attribute reference is an edge only to a module deeper than anything imported
        # (``import pkg`` then ``pkg.sealed.x``); a package that is merely the parent of an
        # imported module is not imported by that (as in import-linter's graph).
        target = _longest_module(ref.qname, modules)
        if target is not None and target != own and target not in covered:
            covered.add(target)
            out.append((target, ref.line, ref.column, ref.qname, ref.type_checking))
    return out


def _import_target(fact: ImportFact, modules: dict[str, str]) -> str | None:
    if not fact.module:
        return None
    if fact.name and fact.name != "*":
        full = f"{fact.module}.{fact.name}"
        if full in modules:
            return full
    return _longest_module(fact.module, modules)


class _Cache:
    """JSON cache (never pickle: a planted cache file must not run code)."""

    def __init__(self, directory: str | None) -> None:
        self.directory = directory
        self.path = os.path.join(directory, CACHE_FILE) if directory else None
        self.data: dict[str, Any] = {}
        if self.path is not None:
            with contextlib.suppress(OSError, ValueError):
                with open(self.path, encoding="utf-8") as handle:
                    loaded = json.load(handle)
                if isinstance(loaded, dict):
                    self.data = loaded

    def facts(self) -> dict[str, Any]:
        value = self.data.get("facts")
        return value if isinstance(value, dict) else {}

    def save(self, run: dict[str, Any], facts: dict[str, Any]) -> None:
        if self.directory is None or self.path is None:
            return
        with contextlib.suppress(OSError):
            os.makedirs(self.directory, exist_ok=True)
            ignore = os.path.join(self.directory, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as handle:
                    handle.write("*\n")
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(json.dumps({"run": run, "facts": facts}, separators=(",", ":")))
                os.replace(tmp, self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _jobs(requested: int) -> int:
    if requested > 0:
        return requested
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _start_method(methods: Sequence[str], threads: int) -> str | None:
    """How worker processes start: forked (cheapest: nothing to import again) while this
    process runs a single thread; from a fork server once other threads exist (forking a
    multi-threaded process may deadlock the child, and Python 3.12+ warns about it, an error
    under ``-W error``); the platform's default otherwise."""
    if "fork" in methods and threads <= 1:
        return "fork"
    if "forkserver" in methods:
        return "forkserver"
    return None


def _thread_count() -> int:
    """This process's threads, as the OS counts them (threads started outside ``threading``,
    as execnet's under pytest-xdist, included) where it tells; else ``threading``'s count."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _pool(workers: int) -> ProcessPoolExecutor:
    import multiprocessing

    # From the module itself, not the package's lazily cached name: a worker function is
    # pickled by its module's name (fork server), and the package can still hold the class of
    # an earlier copy of the module, when something (pytester, say) dropped it from
    # sys.modules since.
    from concurrent.futures.process import ProcessPoolExecutor

    method = _start_method(multiprocessing.get_all_start_methods(), _thread_count())
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))


class _Parser:
    """Parses batches of files: in a process pool when there are enough of them, and the
    libcst pass of the sealed modules in the background while the main process reads and
    prefilters everything else (libcst's import alone costs a quarter of a second)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = _pool(self.jobs)
        return self.pool

    def submit(self, batch: list[_Job]) -> list[tuple[list[_Job], Future[_Parsed]]] | None:
        """Start parsing ``batch`` in the background, in ``jobs - 1`` tasks so one core stays
        free for the main process; None when running serially."""
        if self.jobs <= 1 or not batch:
            return None
        pool = self._get_pool()
        tasks = min(len(batch), self.jobs - 1)
        chunks = [batch[i::tasks] for i in range(tasks)]
        return [(chunk, pool.submit(_parse_batch, chunk)) for chunk in chunks]

    def collect(self, pending: list[tuple[list[_Job], Future[_Parsed]]]) -> _Parsed:
        """Wait for :meth:`submit`'s tasks; a crashed worker fails closed file by file."""
        from concurrent.futures.process import BrokenProcessPool

        out: _Parsed = []
        for chunk, future in pending:
            try:
                out.extend(future.result())
            except BrokenProcessPool:
                self._drop_pool()
                out.extend(self._isolated(job) for job in chunk)
        return out

    def parse(self, batch: list[_Job]) -> _Parsed:
        weight = sum(64 if job[4] else 1 for job in batch)
        if self.jobs <= 1 or weight < (8 if self.pool is not None else _PARALLEL_MIN):
            return _parse_batch(batch)
        from concurrent.futures.process import BrokenProcessPool

        size = max(1, len(batch) // (self.jobs * 4))
        chunks = [batch[i:i + size] for i in range(0, len(batch), size)]
        out: _Parsed = []
        try:
            for part in self._get_pool().map(_parse_batch, chunks):
                out.extend(part)
        except BrokenProcessPool:
            # A worker died inside the native parser: isolate each file, fail closed on culprits.
            self._drop_pool()
            done = {key for key, _ in out}
            for job in batch:
                if job[0] not in done:
                    out.append(self._isolated(job))
        return out

    def _drop_pool(self) -> None:
        """Shut a broken pool down completely (its threads too) before forking again."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    @staticmethod
    def _isolated(job: _Job) -> tuple[str, dict[str, Any]]:
        from concurrent.futures.process import BrokenProcessPool

        with _pool(1) as pool:
            try:
                return pool.submit(_parse_batch, [job]).result()[0]
            except BrokenProcessPool:
                crashed = FileFacts(error=("ST001", 1, 1, "the parser crashed on this file"))
                return job[0], crashed.to_json()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _environment() -> list[object]:
    """What changes when packages (and so plugins) are installed or removed."""
    import sys

    out: list[object] = [sys.version, list(sys.path)]
    for entry in sys.path:
        if os.path.basename(entry) in ("site-packages", "dist-packages"):
            with contextlib.suppress(OSError):
                out.append([entry, os.stat(entry).st_mtime_ns])
    return out


def _rule_key(rules: Sequence[Rule]) -> list[str]:
    return [f"{type(r).__module__}.{type(r).__qualname__}:{r.code}" for r in rules]


def lint(
    config: LintConfig,
    paths: Sequence[str] = (),
    *,
    extra_rules: Sequence[Rule] = (),
    use_cache: bool = True,
    jobs: int | None = None,
    on_parse: Callable[[str], None] | None = None,
    rule_loader: Callable[[], Sequence[Rule]] | None = None,
) -> LintResult:
    """Lint the project described by ``config``.

    ``paths`` (files or directories, absolute or relative to the current directory) limit the
    *reported* files; the import graph is always built from every module of the source roots.
    Raises ``FileNotFoundError`` for a path that does not exist. ``on_parse`` is called with
    each relpath parsed by libcst (tests use it to prove the prefilter). ``rule_loader`` returns
    plugin rules; it is called only when the warm cache cannot answer (the installed
    environment, fingerprinted by ``sys.path`` and the mtimes of its ``site-packages``
    directories, is part of the warm key), so an unchanged project is answered without
    scanning entry points.
    """
    rules: tuple[Rule, ...] = (*BUILTIN_RULES, *extra_rules)
    files = list(config.files) or discover(config.root, config.source_roots, (), config.exclude)
    selected: set[str] | None = None
    if paths:
        chosen = discover(config.root, (), tuple(paths), config.exclude)
        selected = {f.relpath for f in chosen}
        known = {f.relpath for f in files}
        files += [f for f in chosen if f.relpath not in known]
    cache = _Cache(config.cache_dir if use_cache else None)
    env = _environment() if rule_loader is not None else []
    run_key = hashlib.sha256(json.dumps(
        [ENGINE_VERSION, config.policy_hash(), _rule_key(rules), sorted(selected or []), env]
    ).encode()).hexdigest()
    fingerprints = {f.relpath: [*f.fingerprint, f.problem or ""] for f in files}
    run = cache.data.get("run")
    if (isinstance(run, dict) and run.get("key") == run_key
            and run.get("fingerprints") == fingerprints and isinstance(run.get("findings"), list)):
        with contextlib.suppress(KeyError, TypeError, ValueError):
            cached = tuple(Finding.from_dict(d) for d in run["findings"])
            for info in run.get("plugin_rules", []):
                with contextlib.suppress(ValueError):
                    register_rule_info(RuleInfo(*info))
            return LintResult(cached, len(fingerprints if selected is None else selected), 0,
                              True, rules)
    plugin_rules: tuple[Rule, ...] = tuple(rule_loader()) if rule_loader is not None else ()
    rules = (*rules, *plugin_rules)
    result = _Run(config, files, selected, rules, cache.facts(), _jobs(jobs or config.jobs),
                  on_parse).execute()
    cache.save(
        {"key": run_key, "fingerprints": fingerprints,
         "plugin_rules": [[r.code, r.name, r.summary, r.explanation, "plugin"]
                          for r in plugin_rules],
         "findings": [f.to_dict() for f in result[0].findings]},
        result[1],
    )
    return result[0]


class _Run:
    """One cold or partly cached run (steps 1-4 of the module docstring)."""

    def __init__(
        self,
        config: LintConfig,
        files: list[SourceFile],
        selected: set[str] | None,
        rules: tuple[Rule, ...],
        cached_facts: dict[str, Any],
        jobs: int,
        on_parse: Callable[[str], None] | None,
    ) -> None:
        self.config = config
        self.selected = selected
        self.rules = rules
        self.cached_facts = cached_facts
        self.new_facts: dict[str, Any] = {}
        self.parser = _Parser(jobs)
        self.on_parse = on_parse
        self.loaded = [_load(f, config.max_file_bytes) for f in files]
        self.by_path = {item.file.relpath: item for item in self.loaded}
        self._vocabulary = _Vocabulary(())  # filled by the prefilter, once every file is read
        self.modules: dict[str, str] = {}
        for item in self.loaded:
            if item.file.module is not None and item.file.module not in self.modules:
                self.modules[item.file.module] = item.file.relpath
        self.packages = {item.file.module for item in self.loaded
                         if item.file.module is not None and item.file.is_package}
        self.facts: dict[str, FileFacts] = {}
        self.inflight: set[str] = set()
        self._edges: dict[str, list[tuple[str, int, int, str, bool]]] = {}

    def _is_selected(self, relpath: str) -> bool:
        return self.selected is None or relpath in self.selected

    def _full(self, item: _Loaded) -> bool:
        module = item.file.module
        return module is not None and any(b.seals(module) for b in self.config.boundaries)

    def _cache_key(self, item: _Loaded) -> str:
        if not item.digest:
            item.digest = hashlib.sha256(item.raw).hexdigest()[:32]
        mode = "cst" if self._full(item) else "ast"
        module = item.file.module or ""
        return f"{ENGINE_VERSION}|{item.digest}|{module}|{int(item.file.is_package)}|{mode}"

    def _parse(
        self, items: Iterable[_Loaded], *, background: bool = False
    ) -> list[tuple[list[_Job], Future[_Parsed]]] | None:
        """Parse ``items`` not parsed yet (cache first). With ``background``, start the work
        and return the pending tasks for :meth:`_store` (None when it ran in the foreground)."""
        batch: list[_Job] = []
        for item in items:
            path = item.file.relpath
            if path in self.facts or path in self.inflight or item.error is not None:
                continue
            if self.on_parse is not None:
                self.on_parse(path)
            key = self._cache_key(item)
            hit = self.cached_facts.get(key)
            if hit is not None:
                with contextlib.suppress(KeyError, TypeError, ValueError, IndexError):
                    self.facts[path] = FileFacts.from_json(hit)
                    self.new_facts[key] = hit
                    continue
            batch.append((path, _decoded(item), item.file.module, item.file.is_package,
                          self._full(item)))
        if background:
            pending = self.parser.submit(batch)
            if pending is not None:
                self.inflight.update(job[0] for job in batch)
                return pending
        self._store(self.parser.parse(batch))
        return None

    def _store(self, parsed: _Parsed) -> None:
        for path, data in parsed:
            item = self.by_path[path]
            self.facts[path] = FileFacts.from_json(data)
            self.new_facts[self._cache_key(item)] = data
            self.inflight.discard(path)

    def _file_edges(self, path: str) -> list[tuple[str, int, int, str, bool]]:
        if path not in self._edges:
            item = self.by_path[path]
            facts = self.facts[path]
            own = item.file.module or ""
            edges = _edges(facts, own, self.modules) if facts.error is None else []
            for fact in facts.imports if facts.error is None else ():
                if fact.name == "*":
                    edges.extend((target, fact.line, fact.column, fact.text, fact.type_checking)
                                 for target in self._star_targets(fact.module) if target != own)
            self._edges[path] = edges
        return self._edges[path]

    def _star_targets(self, package: str) -> list[str]:
        """Submodules that ``from package import *`` imports: those named in the package's
        literal ``__all__``; every direct submodule when ``__all__`` is not literal."""
        if package not in self.packages:
            return []
        facts = self.facts.get(self.modules[package])
        if facts is None or facts.error is not None or "all" not in facts.extra:
            return []
        names = facts.extra["all"]
        if names is None:
            return sorted(m for m in self.modules if m.rpartition(".")[0] == package)
        return [f"{package}.{n}" for n in names if f"{package}.{n}" in self.modules]

    def _parse_star_sources(self) -> None:
        """Parse every first-party package that a parsed file star-imports (its ``__all__``
        decides the edges), until no new one appears."""
        done: set[str] = set()
        while True:
            need: list[_Loaded] = []
            for path, facts in list(self.facts.items()):
                if path in done:
                    continue
                done.add(path)
                for fact in facts.imports:
                    if fact.name == "*" and fact.module in self.packages:
                        source = self.by_path[self.modules[fact.module]]
                        if source.file.relpath not in self.facts:
                            need.append(source)
            if not need:
                return
            self._parse(need)

    def _reach(self, b: Boundary) -> dict[str, str | None]:
        """Modules reaching ``b``'s sealed module: ``{module: next hop (None for sealed)}``."""
        return self._reach_from([m for m in self.modules if b.seals(m)], b)

    def _hidden(self, b: Boundary) -> list[tuple[str, str]]:
        """Parsed modules outside ``b`` and its upstream whose dynamic imports the lint cannot
        resolve (ST301 kinds), as ``(module, path)``: an upstream module that imports one may
        reach anything."""
        out: list[tuple[str, str]] = []
        for path, facts in self.facts.items():
            module = self.by_path[path].file.module
            if (module is None or facts.error is not None or b.seals(module)
                    or b.is_upstream(module)):
                continue
            if any(f.kind in _HIDDEN_KINDS for f in facts.dynamics):
                out.append((module, path))
        return sorted(out)

    def _reach_from(self, sealed: Iterable[str], b: Boundary) -> dict[str, str | None]:
        """Modules reaching one of ``sealed`` over the parsed files' edges (never through a
        module ``b`` seals): ``{module: next hop (None for the start)}``."""
        sealed = list(sealed)
        reverse: dict[str, list[str]] = {}
        for path in self.facts:
            module = self.by_path[path].file.module
            if module is None or b.seals(module):
                continue
            for target, _l, _c, _t, tc in self._file_edges(path):
                if tc and b.type_checking_imports == "ignore":
                    continue
                reverse.setdefault(target, []).append(module)
        hop: dict[str, str | None] = dict.fromkeys(sealed)
        queue = deque(sorted(sealed))
        while queue:
            current = queue.popleft()
            for importer in sorted(reverse.get(current, ())):
                if importer not in hop:
                    hop[importer] = current
                    queue.append(importer)
        return hop

    def _initially_needed(self, item: _Loaded) -> bool:
        """Boundary files, files using dynamic-import spellings, files with suppressions."""
        module = item.file.module
        if module is not None:
            if any(b.seals(module) for b in self.config.boundaries):
                return True
            if self._vocabulary.may_import_dynamically(item):
                return True
            if b"*" in item.scan and _star(item.scan):
                return True
        return self._is_selected(item.file.relpath) and _MARKER in item.scan

    def _prefilter(self) -> None:
        """Grow the parsed set until no unparsed file can import a module that reaches a
        sealed module (see the module docstring, step 2)."""
        # The sealed modules are known from the policy: their libcst pass starts before the
        # scan, in the background.
        readable = [i for i in self.loaded if i.error is None]
        pending = self._parse([i for i in readable if self._full(i)], background=True)
        for item in readable:
            item.tokens = _tokens(item.scan)
        self._vocabulary = _Vocabulary(i.tokens for i in readable if i.tokens is not None)
        initial = [i for i in self.loaded if i.error is None and self._initially_needed(i)]
        self._parse([i for i in initial if not self._full(i)])
        self._grow()
        if pending is not None:
            self._store(self.parser.collect(pending))

    def _grow(self) -> None:
        """The fixpoint of step 2 (sealed modules themselves never extend ``R``)."""
        checked_packages: set[str] = set()
        while True:
            self._parse_star_sources()
            words: set[tuple[bytes, bool]] = set()
            packages: set[str] = set()
            for b in self.config.boundaries:
                # modules reaching the sealed module, and modules reaching a module with a
                # dynamic import the lint cannot resolve (ST301 there when upstream reaches it)
                hidden = [m for m, _ in self._hidden(b)]
                for reaching in [*self._reach(b), *self._reach_from(hidden, b)]:
                    is_package = reaching in self.packages
                    # ``import pkg.sealed.anything`` (even a missing submodule, or
                    # ``pkg.sealed.__init__``) runs a sealed package: its name followed by a
                    # dot is a candidate too
                    words.add((reaching.rpartition(".")[2].encode(),
                               is_package and not b.seals(reaching)))
                    if is_package:
                        packages.add(reaching)
            new_packages = packages - checked_packages
            checked_packages |= packages
            need: list[_Loaded] = []
            for item in self.loaded:
                module = item.file.module
                path = item.file.relpath
                if item.error is not None or module is None or path in self.facts:
                    continue
                if path in self.inflight:
                    continue
                fresh = words - item.words_checked
                item.words_checked |= fresh
                hit = any(_names_word(item, w, pkg) for w, pkg in fresh)
                if not hit and new_packages and _RELATIVE.search(item.scan):
                    hit = any(module.startswith(p + ".") for p in new_packages)
                if hit:
                    need.append(item)
            if not need:
                return
            self._parse(need)

    def execute(self) -> tuple[LintResult, dict[str, Any]]:
        try:
            self._prefilter()
        finally:
            self.parser.close()
        per_file: dict[str, list[Finding]] = {}
        engine: list[Finding] = []
        for item in self.loaded:
            path = item.file.relpath
            if not self._is_selected(path):
                continue
            error = item.error or (self.facts[path].error if path in self.facts else None)
            if error is not None:
                code, line, col, message = error
                engine.append(Finding(path, line, col, code, message, anchor=message))
        first_party = frozenset(self.modules)
        for b in self.config.boundaries:
            hop = self._reach(b)
            for path, facts in self.facts.items():
                module = self.by_path[path].file.module
                if module is None or facts.error is not None or not self._is_selected(path):
                    continue
                role = ("boundary" if b.seals(module)
                        else "upstream" if b.is_upstream(module) else "")
                if not role:
                    continue
                edges = self._reverse_edges(path, b, hop) if role == "upstream" else ()
                ctx = RuleContext(path, module, facts, b, role, self.by_path[path].text, edges,
                                  first_party)
                found = per_file.setdefault(path, [])
                for rule in self.rules:
                    if role in rule.roles:
                        found.extend(self._check(rule, ctx))
            for module, path in self._hidden(b):
                if not self._is_selected(path):
                    continue
                upstream = sorted(m for m in self._reach_from([module], b)
                                  if m != module and b.is_upstream(m))
                if not upstream:
                    continue
                ctx = RuleContext(path, module, self.facts[path], b, "reached",
                                  self.by_path[path].text, (), first_party, upstream[0])
                found = per_file.setdefault(path, [])
                for rule in self.rules:
                    if "reached" in rule.roles:
                        found.extend(self._check(rule, ctx))
        for path, facts in self.facts.items():
            if self._is_selected(path) and facts.error is None:
                per_file.setdefault(path, [])
        result: list[Finding] = list(engine)
        for path, found in per_file.items():
            suppressions = self.facts[path].suppressions
            if not suppressions and _MARKER in self.by_path[path].scan:
                suppressions = scan_suppressions(_decoded(self.by_path[path]))
            result.extend(apply_suppressions(path, found, suppressions))
        selected = [i for i in self.loaded if self._is_selected(i.file.relpath)]
        return (
            LintResult(tuple(sort_findings(result)), len(selected), len(self.facts), False,
                       self.rules),
            self.new_facts,
        )

    def _reverse_edges(
        self, path: str, b: Boundary, hop: dict[str, str | None]
    ) -> tuple[ReverseEdge, ...]:
        """One edge per first-party module that ``path`` imports and that reaches ``b``'s
        sealed module, at its first import line, with a shortest chain that never passes
        through ``path``'s own module (an import cycle is not a way for it to reach)."""
        own = self.by_path[path].file.module or ""
        first: dict[str, tuple[int, int, str]] = {}
        for target, line, col, text, tc in sorted(self._file_edges(path), key=lambda e: e[1:3]):
            if target in hop and target not in first and not (
                    tc and b.type_checking_imports == "ignore"):
                first[target] = (line, col, text)
        out: list[ReverseEdge] = []
        for target, (line, col, text) in first.items():
            chain = [target]
            nxt = hop[target]
            while nxt is not None:
                chain.append(nxt)
                nxt = hop[nxt]
            if own in chain:
                avoided = self._chain_avoiding(target, own, b)
                if avoided is None:
                    continue  # ``target`` reaches the sealed module only through ``own``
                chain = avoided
            out.append(ReverseEdge(line, col, text, tuple(chain)))
        return tuple(out)

    def _chain_avoiding(self, start: str, avoid: str, b: Boundary) -> list[str] | None:
        """Shortest import chain from ``start`` to a module sealed by ``b`` not through
        ``avoid`` (breadth-first over the parsed files' edges), or None."""
        forward: dict[str, list[str]] = {}
        for path in self.facts:
            module = self.by_path[path].file.module
            if module is None or b.seals(module):
                continue
            forward[module] = sorted({
                target for target, _l, _c, _t, tc in self._file_edges(path)
                if not (tc and b.type_checking_imports == "ignore")
            })
        parent: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            if b.seals(current):
                chain: list[str] = []
                node: str | None = current
                while node is not None:
                    chain.append(node)
                    node = parent[node]
                return chain[::-1]
            for nxt in forward.get(current, ()):
                if nxt != avoid and nxt not in parent:
                    parent[nxt] = current
                    queue.append(nxt)
        return None

    def _check(self, rule: Rule, ctx: RuleContext) -> list[Finding]:
        try:
            return list(rule.check(ctx))
        except Exception as exc:  # a plugin rule must never make the lint crash or pass
            return [ctx.finding(1, 1, "ST006",
                                f"rule {getattr(rule, 'code', '?')} raised {type(exc).__name__}: "
                                f"{exc}", f"{getattr(rule, 'code', '?')}")]
