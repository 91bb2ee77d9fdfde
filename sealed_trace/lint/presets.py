"""Built-in policy presets for ``[[tool.sealed_trace.boundary]]`` (ADR-0230 §15, §7.3).

A :class:`Preset` holds three tuples: ``allowed_imports`` (dotted module names; a name allows its
submodules), ``banned`` (qualified-name patterns, ``*`` matches any run of characters, dots
included, and a banned name also bans every attribute below it) and ``forbidden_fields``
(identifiers). A boundary's own lists extend its preset; they never shrink it.

``adr-0230``:

* allowed: the standard library's immutable value, enum, canonical JSON and SHA-256 facilities
  (§15.1). Project-local value types and static manifests are project specific: list them in
  ``allowed_imports``.
* banned: the generic facilities of §15.2 that have a standard-library or well-known spelling:
  filesystem and network I/O, subprocess and shell, clock and timestamps, randomness and UUIDs,
  environment and hostname inspection, dynamic import and plugin discovery, dynamic code.
  Domain facilities (search execution, replay, serving, ...) are project specific: add them to
  ``banned``.
* forbidden fields: the nineteen names of §7.3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["FIELD_PRESETS", "PRESETS", "Preset"]


@dataclass(frozen=True, slots=True)
class Preset:
    """A named bundle of allowed imports, banned name patterns and forbidden field names."""

    name: str
    allowed_imports: tuple[str, ...]
    banned: tuple[str, ...]
    forbidden_fields: tuple[str, ...]


_ADR_0230_ALLOWED = (
    "__future__",
    "collections.abc",
    "dataclasses",
    "enum",
    "hashlib",
    "json",
    "types",
    "typing",
    "typing_extensions",
)

_ADR_0230_BANNED = (
    # filesystem and network I/O
    "builtins.open",
    "builtins.input",
    "builtins.print",
    "io.*",
    "os",
    "os.*",
    "posix.*",
    "nt.*",
    "pathlib.*",
    "shutil.*",
    "tempfile.*",
    "glob.*",
    "fileinput.*",
    "mmap.*",
    "sqlite3.*",
    "shelve.*",
    "dbm.*",
    "pickle.*",
    "marshal.*",
    "codecs.*",
    "logging.*",
    "warnings.*",
    "json.load",
    "json.dump",
    "hashlib.file_digest",
    "socket.*",
    "ssl.*",
    "select.*",
    "selectors.*",
    "asyncio.*",
    "http.*",
    "urllib.*",
    "ftplib.*",
    "smtplib.*",
    "imaplib.*",
    "poplib.*",
    "xmlrpc.*",
    "requests.*",
    "httpx.*",
    "aiohttp.*",
    # subprocess, shell and concurrency
    "subprocess.*",
    "pty.*",
    "multiprocessing.*",
    "concurrent.*",
    "threading.*",
    "_thread.*",
    "signal.*",
    "ctypes.*",
    # clock and timestamps
    "time.*",
    "datetime.*",
    "calendar.timegm",
    "zoneinfo.*",
    # randomness and UUIDs
    "random.*",
    "secrets.*",
    "uuid.*",
    "numpy.random.*",
    # environment and hostname inspection
    "sys.*",
    "platform.*",
    "getpass.*",
    "pwd.*",
    "grp.*",
    "resource.*",
    "sysconfig.*",
    "site.*",
    # dynamic import, plugin discovery and dynamic code
    "builtins.__import__",
    "builtins.exec",
    "builtins.eval",
    "builtins.compile",
    "builtins.breakpoint",
    "builtins.globals",
    "builtins.locals",
    "builtins.vars",
    "importlib",
    "importlib.*",
    "pkgutil.*",
    "pkg_resources.*",
    "runpy.*",
    "zipimport.*",
    "code.*",
    "codeop.*",
    "pdb.*",
    "inspect.*",
    "gc.*",
    # site builtins that read files, print or exit
    "builtins.help",
    "builtins.exit",
    "builtins.quit",
    "builtins.license",
    "builtins.copyright",
    "builtins.credits",
    # builtins and loaders reached without their names: the implicit module globals (loads of
    # them resolve to ``builtins.<name>``), path identity (§12.2, §17.14) and the attributes
    # that escape from any object to globals, builtins, code objects and frames
    "builtins.__builtins__",
    "builtins.__loader__",
    "builtins.__spec__",
    "builtins.__file__",
    "builtins.__cached__",
    "*.__builtins__",
    "*.__loader__",
    "*.__spec__",
    "*.__file__",
    "*.__cached__",
    "*.__subclasses__",
    "*.__globals__",
    "*.__dict__",
    "*.__code__",
    "*.__closure__",
    "*.__getattribute__",
    "*.__self__",
    "*.__reduce__",
    "*.__reduce_ex__",
    "*.gi_frame",
    "*.gi_code",
    "*.cr_frame",
    "*.cr_code",
    "*.ag_frame",
    "*.ag_code",
    "*.f_globals",
    "*.f_builtins",
    "*.f_locals",
    "*.f_back",
    "*.f_code",
    "*.tb_frame",
    "*._evaluate",
    "*._eval_type",
    # parts of the allowed surface that run code: evaluation of string annotations, code
    # objects, private helpers (``dataclasses._create_fn`` execs its text), the json CLI
    "typing.get_type_hints",
    "typing.ForwardRef",
    "typing.evaluate_forward_ref",
    "typing._*",
    "typing_extensions.get_type_hints",
    "typing_extensions.ForwardRef",
    "typing_extensions.evaluate_forward_ref",
    "typing_extensions.get_annotations",
    "typing_extensions._*",
    "dataclasses._*",
    "enum._*",
    "types.CodeType",
    "types.FunctionType",
    "types.LambdaType",
    "json.tool",
)

_ADR_0230_FORBIDDEN_FIELDS = (
    "answer",
    "final_answer",
    "served_output",
    "promotion",
    "mutation",
    "teaching_update",
    "pack_update",
    "policy_update",
    "identity_update",
    "workbench_state",
    "runtime_effect",
    "confidence",
    "score",
    "rank",
    "priority",
    "selected_candidate",
    "best_candidate",
    "serving_allowed",
    "runnable",
)

PRESETS: Final[dict[str, Preset]] = {
    "adr-0230": Preset("adr-0230", _ADR_0230_ALLOWED, _ADR_0230_BANNED, _ADR_0230_FORBIDDEN_FIELDS),
    "none": Preset("none", (), (), ()),
}

#: The names ADR-0231 §8.4 (candidate-operator outputs) and ADR-0232 §8 (binding dataclasses)
#: forbid beyond ADR-0230 §7.3: both ADRs give the same list.
_LATER_FORBIDDEN_FIELDS = ("proof", "verdict", "selected", "best")

#: Forbidden-field lists by the ADR that states them; each later ADR's list includes
#: ADR-0230's. ``sealed_trace_forbid_fields(..., fields="adr-0231")`` names one.
FIELD_PRESETS: Final[dict[str, tuple[str, ...]]] = {
    "adr-0230": _ADR_0230_FORBIDDEN_FIELDS,
    "adr-0231": _ADR_0230_FORBIDDEN_FIELDS + _LATER_FORBIDDEN_FIELDS,
    "adr-0232": _ADR_0230_FORBIDDEN_FIELDS + _LATER_FORBIDDEN_FIELDS,
}
