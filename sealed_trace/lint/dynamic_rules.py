"""The import rules both passes judge by, written once, over plain values.

The libcst pass (:mod:`.cst_pass`, sealed modules) and the ``ast`` pass (:mod:`.ast_pass`,
every other file) each read their own node types into the plain values of this module: a
callee's qualified names, a call's arguments as :class:`Plain` values (a literal string, a
non-negative integer, a bare name, ``globals()``, a list of literals, or nothing readable,
that is computed), and where the call is (:class:`Site`). The judgments on those values live
here: what ``importlib.import_module(x, package)``, ``__import__(name, globals, locals,
fromlist, level)``, ``runpy.run_module`` or ``pkgutil.resolve_name`` import, which callables
load code from a path or discover plugins, what an import statement binds (and so re-exports),
which guard is ``if __name__ == "__main__":``, and the tables of those callables.

Where the two passes read a call differently on purpose (the graph pass over-approximates
and follows more import functions; the sealed pass reads only what the sealed module spells),
the difference is a :class:`Dialect`, not a second copy of the rule. Nothing here imports
libcst.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sealed_trace.lint.facts import (
    IMPORT_FUNCS,
    PATH_LOADERS,
    PLUGIN_FUNCS,
    DynamicFact,
    ImportFact,
    dynamic_import_target,
    relative_module,
)

__all__ = [
    "ATTRIBUTE_MAKERS",
    "DUNDER_IMPORTS",
    "ESCAPING_FUNCS",
    "FUNC_BY_NAME",
    "GRAPH_IMPORT_FUNCS",
    "GRAPH_PASS",
    "HIDDEN_IMPORTS",
    "IMPORTING_CALLABLES",
    "IMPORT_FUNCS",
    "IMPORT_ROOTS",
    "LIST_MUTATORS",
    "PATH_LOADERS",
    "PLUGIN_FUNCS",
    "RELATIVE_BASES",
    "SEALED_PASS",
    "STRING_IMPORTS",
    "STRING_IMPORT_METHODS",
    "STRING_LIST_IMPORTS",
    "CallArgs",
    "Dialect",
    "Importer",
    "Plain",
    "Site",
    "StringImport",
    "attribute_name_arguments",
    "computed_import_root",
    "dynamic_import_fact",
    "escaped_import_function",
    "from_import_binding",
    "from_import_fact",
    "hidden_import",
    "import_binding",
    "import_function",
    "import_statement_fact",
    "is_main_guard",
    "judge_import_call",
    "loader_facts",
    "member_names",
    "module_name_argument",
    "names_import_function",
    "star_imported_functions",
    "string_import",
    "string_import_facts",
]

# -- tables of callables -----------------------------------------------------------------------
#: Import functions of the import-graph pass: the shared ones (:data:`IMPORT_FUNCS`) plus the
#: resolvers that import their argument's parents (``find_spec``) or the whole dotted path
#: (``resolve_name``).
GRAPH_IMPORT_FUNCS = IMPORT_FUNCS | {"pkgutil.resolve_name", "importlib.util.find_spec"}
#: Every callable the import-graph pass judges as importing: import functions, plugin
#: discovery, path loaders.
IMPORTING_CALLABLES = GRAPH_IMPORT_FUNCS | PLUGIN_FUNCS | PATH_LOADERS
#: ``__import__(name, globals, locals, fromlist, level)``, under either name.
DUNDER_IMPORTS = frozenset({"builtins.__import__", "importlib.__import__"})
#: Import functions whose use as a value (not a call) hides what they import, in the order
#: findings name them.
ESCAPING_FUNCS = tuple(sorted(GRAPH_IMPORT_FUNCS | PATH_LOADERS))
#: Module globals that relative imports resolve against, and a package's ``__path__``, where
#: its submodules are looked for.
RELATIVE_BASES = frozenset({"__package__", "__spec__", "__name__", "__path__"})
#: Methods that change a list in place (``__path__.insert(0, elsewhere)``).
LIST_MUTATORS = frozenset(
    {
        "insert",
        "append",
        "extend",
        "__iadd__",
        "__setitem__",
        "remove",
        "clear",
        "pop",
        "reverse",
        "sort",
    }
)
#: ``getattr(anything, "import_module")`` and ``x["__import__"]`` are taken for the import
#: function of that name whatever ``anything`` is (``getattr(getattr, "__self__")`` is the
#: builtins module): over-approximating, the safe direction.
FUNC_BY_NAME = {
    "__import__": "builtins.__import__",
    "import_module": "importlib.import_module",
    "run_module": "runpy.run_module",
    "resolve_name": "pkgutil.resolve_name",
    "find_spec": "importlib.util.find_spec",
}
#: Modules whose attributes, fetched under a computed name, may be an import function.
IMPORT_ROOTS = frozenset(
    {
        "builtins",
        "importlib",
        "importlib.util",
        "importlib.machinery",
        "importlib.metadata",
        "pkgutil",
        "runpy",
        "imp",
        "zipimport",
        "pydoc",
        "importlib.resources",
        "importlib._bootstrap",
        "unittest.mock",
        "pickle",
        "marshal",
    }
)
#: Callables that import a module named by a string argument although they are not import
#: functions: ``name -> (position, keywords)`` of that argument. A literal is an import of the
#: longest known module it names (``patch("pkg.mod.attr")`` imports ``pkg.mod``); anything else
#: that is not a module object or the module's own ``__name__``/``__package__`` is ST301.
STRING_IMPORTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "pydoc.locate": (0, ("path",)),
    "pkgutil.get_data": (0, ("package",)),
    "importlib._bootstrap._gcd_import": (0, ("name",)),
    "importlib._bootstrap._find_and_load": (0, ("name",)),
    **{
        f"{owner}.{func}": (0, ("anchor", "package"))
        for owner in ("importlib.resources", "importlib_resources")
        for func in (
            "files",
            "read_text",
            "read_binary",
            "open_text",
            "open_binary",
            "path",
            "contents",
            "is_resource",
        )
    },
    **{
        owner + suffix: (0, ("target", "in_dict"))
        for owner in ("unittest.mock.patch", "mock.patch")
        for suffix in ("", ".dict", ".multiple")
    },
    "unittest.main": (0, ("module",)),
    "unittest.TestProgram": (0, ("module",)),
    "xml.sax.make_parser": (0, ("parser_list",)),
}
#: Of :data:`STRING_IMPORTS`, the callables whose argument is a list of module names.
STRING_LIST_IMPORTS = frozenset({"xml.sax.make_parser"})
#: Method names that import their string argument whatever object they are called on
#: (``unittest.TestLoader().loadTestsFromName("pkg.mod")``); the ``...Names`` ones take a list.
STRING_IMPORT_METHODS = {
    "loadTestsFromName": (0, ("name",)),
    "loadTestsFromNames": (0, ("names",)),
    "_gcd_import": (0, ("name",)),
}
#: Callables that may import any module named inside their data (``pickle.loads`` imports the
#: module of every global it restores): ST301 wherever they occur.
HIDDEN_IMPORTS = frozenset(
    {
        *(
            f"{owner}.{func}"
            for owner in ("pickle", "_pickle", "marshal", "cPickle", "dill", "cloudpickle")
            for func in ("load", "loads", "Unpickler")
        ),
        # logging configuration imports the classes and factories its data names ("class", "()")
        "logging.config.dictConfig",
        "logging.config.fileConfig",
        "logging.config.listen",
        # an entry point built by hand loads whatever its value names
        "importlib.metadata.EntryPoint",
        "importlib_metadata.EntryPoint",
    }
)
#: Callables that run code given as a string: the imports of a literal one are the call's
#: own (``exec("import pkg.sealed")``).
CODE_RUNNERS = frozenset({"builtins.exec", "builtins.eval"})
#: Callables that bind a function's first arguments (``partial(import_module, "pkg.x")``): a
#: call of an import function with them.
BINDERS = frozenset({"functools.partial"})
#: Callables that make a function fetching an attribute named by a string: given an import
#: function's name, what they make may be that function, whatever object it is applied to.
ATTRIBUTE_MAKERS = frozenset({"operator.attrgetter", "operator.methodcaller"})


# -- plain values --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Plain:
    """What a pass could read of one expression without its node type: ``text`` for a string
    literal without placeholders, ``integer`` for a non-negative integer literal, ``name`` for
    a bare name, ``own_globals`` for ``globals()`` called with no arguments, ``items`` for a
    list or tuple display (each element's literal string, None where it is not one). All
    empty: a computed value."""

    text: str | None = None
    integer: int | None = None
    name: str | None = None
    own_globals: bool = False
    items: tuple[str | None, ...] | None = None


@dataclass(frozen=True, slots=True)
class CallArgs:
    """A call's arguments as plain values: the positional ones that are not starred, and the
    named ones (``**mapping`` is neither)."""

    positional: tuple[Plain, ...] = ()
    keywords: Mapping[str, Plain] = field(default_factory=dict)

    def get(self, index: int, keyword: str) -> Plain | None:
        """The argument passed as ``keyword``, else the ``index``-th positional one."""
        found = self.keywords.get(keyword)
        if found is not None:
            return found
        return self.positional[index] if index < len(self.positional) else None


@dataclass(frozen=True, slots=True)
class Site:
    """Where a call or import is: its 1-based position; ``type_checking``: under ``if
    TYPE_CHECKING:``; ``lazy``: inside a function body; ``main``: under ``if __name__ ==
    "__main__":``."""

    line: int
    column: int
    type_checking: bool
    lazy: bool
    main: bool


@dataclass(frozen=True, slots=True)
class Importer:
    """The module whose text is judged: its dotted name (``""`` when unknown) and whether it
    is a package's ``__init__``."""

    module: str
    is_package: bool

    @property
    def package(self) -> str:
        """The package relative imports of this module resolve against."""
        return self.module if self.is_package else self.module.rpartition(".")[0]

    def absolute(self, level: int, name: str) -> str:
        """The absolute name of ``from <level dots><name> import ...`` here (``""`` when it
        leaves the top package)."""
        return relative_module(self.package, level, name) if level else name


@dataclass(frozen=True, slots=True)
class Dialect:
    """How a pass reads an import function's call, where the passes deliberately differ.

    ``import_funcs``: the callables taken as import functions. ``level_funcs``: the
    ``__import__`` spellings whose ``level`` and ``fromlist`` arguments are read.
    ``level_needs_own_globals``: a positive ``level`` counts only with the module's own globals
    (``globals()`` or none given; other globals may name any package). ``name_is_package``: a
    package's ``__name__`` passed as ``package`` is its own ``__package__``."""

    import_funcs: frozenset[str]
    level_funcs: frozenset[str]
    level_needs_own_globals: bool
    name_is_package: bool


#: The libcst pass over the sealed module: the shared import functions, ``builtins.__import__``'s
#: level taken as written.
SEALED_PASS = Dialect(
    import_funcs=IMPORT_FUNCS,
    level_funcs=frozenset({"builtins.__import__"}),
    level_needs_own_globals=False,
    name_is_package=False,
)
#: The import-graph pass over every other file: the resolvers too, both ``__import__``
#: spellings, a level only against the module's own globals.
GRAPH_PASS = Dialect(
    import_funcs=GRAPH_IMPORT_FUNCS,
    level_funcs=DUNDER_IMPORTS,
    level_needs_own_globals=True,
    name_is_package=True,
)


# -- import statements: facts and bindings (what a module re-exports) ----------------------
def import_statement_fact(site: Site, statement: int, name: str) -> ImportFact:
    """``import name`` (one alias of the statement starting on line ``statement``)."""
    return ImportFact(
        site.line,
        site.column,
        name,
        None,
        "import",
        site.type_checking,
        f"import {name}",
        site.lazy,
        statement,
        site.main,
    )


def from_import_fact(
    site: Site, statement: int, module: str, spelled: str, name: str
) -> ImportFact:
    """``from spelled import name`` (``name`` ``"*"`` for a star import), ``module`` being
    ``spelled`` made absolute."""
    return ImportFact(
        site.line,
        site.column,
        module,
        name,
        "from",
        site.type_checking,
        f"from {spelled} import {name}",
        site.lazy,
        statement,
        site.main,
    )


def import_binding(name: str, asname: str | None) -> tuple[str, str]:
    """The name ``import name [as asname]`` binds and the module it is bound to: ``asname``
    to the whole dotted name, else the first component to itself."""
    if asname:
        return asname, name
    root = name.partition(".")[0]
    return root, root


def from_import_binding(module: str, name: str, asname: str | None) -> tuple[str, str]:
    """The name ``from module import name [as asname]`` binds and what it is bound to."""
    return asname or name, f"{module}.{name}"


def star_imported_functions(module: str) -> list[tuple[str, str]]:
    """``(name, callable)`` for each importing callable that ``from module import *`` binds
    (``from importlib import *`` binds ``import_module``)."""
    out: list[tuple[str, str]] = []
    for func in IMPORTING_CALLABLES:
        owner, _, last = func.rpartition(".")
        if owner == module:
            out.append((last, func))
    return out


def is_main_guard(single_equality: bool, left: Plain, right: Plain) -> bool:
    """``__name__ == "__main__"`` (either way round), given whether the test is one ``==``
    comparison and its two sides: true only when the file runs as a script, never when it is
    imported."""
    if not single_equality:
        return False
    sides = (left, right)
    names = [s for s in sides if s.name == "__name__"]
    texts = [s for s in sides if s.text == "__main__"]
    return len(names) == 1 and len(texts) == 1


# -- import functions ------------------------------------------------------------------------
def import_function(callee: Iterable[str], dialect: Dialect) -> str | None:
    """The import function a call's callee names (the first by name when it names several),
    None when it names none."""
    found = sorted(set(callee) & dialect.import_funcs)
    return found[0] if found else None


def module_name_argument(func: str) -> tuple[int, str]:
    """``(position, keyword)`` of the argument naming the module ``func`` imports."""
    return 0, "mod_name" if func == "runpy.run_module" else "name"


def import_level(func: str, args: CallArgs, dialect: Dialect) -> int | None:
    """The ``level`` of ``__import__(name, globals, locals, fromlist, level)`` (0 for the
    other import functions), None when it is computed (or, in a dialect that requires it,
    relative to globals other than the module's own)."""
    if func not in dialect.level_funcs:
        return 0
    level = args.get(4, "level")
    if level is None:
        return 0
    if level.integer is None:
        return None
    if level.integer == 0 or not dialect.level_needs_own_globals:
        return level.integer
    base = args.get(1, "globals")
    return level.integer if base is None or base.own_globals else None


def _package(args: CallArgs, importer: Importer, dialect: Dialect) -> str | None:
    """The ``package`` argument as a string: a literal, or the module's own package for
    ``__package__`` (and, in a dialect that says so, for a package's ``__name__``)."""
    arg = args.get(1, "package")
    if arg is None:
        return None
    if arg.name == "__package__" or (
        arg.name == "__name__" and dialect.name_is_package and importer.is_package
    ):
        return importer.package
    return arg.text


def judge_import_call(
    func: str,
    names: Iterable[str] | None,
    args: CallArgs,
    site: Site,
    importer: Importer,
    dialect: Dialect,
) -> tuple[list[ImportFact], list[DynamicFact]]:
    """The imports (and computed imports) of a call of import function ``func``: ``names``
    are the strings its module argument (:func:`module_name_argument`) can be, None when it is
    computed; a literal name is judged with ``level``, ``package`` and ``fromlist``."""
    if names is None:
        return [], [DynamicFact(site.line, site.column, "computed-import", func)]
    imports: list[ImportFact] = []
    dynamics: list[DynamicFact] = []
    for text in sorted(names):
        found = _literal_import(func, text, args, site, importer, dialect)
        if found is None:
            dynamics.append(DynamicFact(site.line, site.column, "computed-import", func))
        else:
            imports.extend(found)
    return imports, dynamics


def _literal_import(
    func: str, text: str, args: CallArgs, site: Site, importer: Importer, dialect: Dialect
) -> list[ImportFact] | None:
    """The imports of one module name ``func``'s call takes; None when it is computed after
    all (a computed level, a relative name without a readable package)."""
    if func == "pkgutil.resolve_name":
        text = text.partition(":")[0]  # "pkg.mod:attr" imports pkg.mod
    relative = import_level(func, args, dialect)
    if relative is None or not (text.strip(".") or relative):
        return None
    package = _package(args, importer, dialect)
    module = dynamic_import_target(text, relative, package, importer.package)
    if module is None:
        return None
    shown = f"{func}({text!r}{_package_shown(func, args, dialect)})"
    found = dynamic_import_fact(site, module, None, shown)
    return [found, *_fromlist_facts(func, text, module, args, site, dialect)]


def _package_shown(func: str, args: CallArgs, dialect: Dialect) -> str:
    """``", 'pkg'"`` for ``import_module('.x', 'pkg')``: the ``package`` argument a
    relative name resolves against, as the call spells it (empty when there is none)."""
    arg = None if func in dialect.level_funcs else args.get(1, "package")
    if arg is None:
        return ""
    if arg.text is not None:
        return f", {arg.text!r}"
    return f", {arg.name}" if arg.name else ", ..."


def _fromlist_facts(
    func: str, text: str, module: str, args: CallArgs, site: Site, dialect: Dialect
) -> list[ImportFact]:
    """``__import__(text, ..., fromlist=[...])``: an import of each literal name listed."""
    fromlist = args.get(3, "fromlist") if func in dialect.level_funcs else None
    items = fromlist.items if fromlist is not None else None
    return [
        dynamic_import_fact(site, module, item, f"{func}({text!r}, fromlist=[{item!r}])")
        for item in items or ()
        if item
    ]


def dynamic_import_fact(site: Site, module: str, name: str | None, text: str) -> ImportFact:
    """A literal dynamic import at ``site`` (its statement is its own line), spelled
    ``text``."""
    return ImportFact(
        site.line,
        site.column,
        module,
        name,
        "dynamic",
        site.type_checking,
        text,
        site.lazy,
        site.line,
        site.main,
    )


def loader_facts(callee: Iterable[str], line: int, column: int) -> list[DynamicFact]:
    """Path loaders (code from a file path: never checkable) and plugin discovery a callee
    names."""
    names = set(callee)
    out: list[DynamicFact] = []
    loaders = sorted(names & PATH_LOADERS)
    if loaders:
        out.append(DynamicFact(line, column, "path-import", loaders[0]))
    plugins = sorted(names & PLUGIN_FUNCS)
    if plugins:
        out.append(DynamicFact(line, column, "plugin-discovery", plugins[0]))
    return out


# -- other importing callables (the import-graph pass) -----------------------------------------
@dataclass(frozen=True, slots=True)
class StringImport:
    """A callable importing a module named by a string argument: its name, where that
    argument is (``index``, ``keywords`` tried in order) and whether it is a list of names."""

    func: str
    index: int
    keywords: tuple[str, ...]
    listed: bool


def string_import(callee: Iterable[str], method: str | None) -> StringImport | None:
    """The string-importing callable a call names (:data:`STRING_IMPORTS` by qualified name,
    else :data:`STRING_IMPORT_METHODS` by the ``method`` name it is called as), if any."""
    matched = sorted(set(callee) & STRING_IMPORTS.keys())
    if matched:
        func = matched[0]
        index, keywords = STRING_IMPORTS[func]
    elif method is not None and method in STRING_IMPORT_METHODS:
        func = method
        index, keywords = STRING_IMPORT_METHODS[method]
    else:
        return None
    listed = func.endswith("Names") or func in STRING_LIST_IMPORTS
    return StringImport(func, index, keywords, listed)


def string_import_facts(func: str, texts: Iterable[str], site: Site) -> list[ImportFact]:
    """The imports of a string-importing call whose argument can be each of ``texts``: the
    module each names (leading and trailing dots dropped; the engine takes the longest known
    module a dotted name starts with)."""
    return [
        dynamic_import_fact(site, text.strip("."), None, f"{func}({text!r})")
        for text in sorted(texts)
        if text.strip(".")
    ]


def code_runner(callee: Iterable[str]) -> str | None:
    """A callable that runs code given as a string (:data:`CODE_RUNNERS`)."""
    found = sorted(set(callee) & CODE_RUNNERS)
    return found[0] if found else None


def hidden_import(callee: Iterable[str]) -> str | None:
    """A callable that may import modules named in its data (:data:`HIDDEN_IMPORTS`)."""
    found = sorted(set(callee) & HIDDEN_IMPORTS)
    return found[0] if found else None


def computed_import_root(owner: Iterable[str]) -> str | None:
    """The import-capable module (:data:`IMPORT_ROOTS`) whose attribute a computed name
    fetches, if ``owner`` resolves to one."""
    found = sorted(set(owner) & IMPORT_ROOTS)
    return found[0] if found else None


def member_names(owner: Iterable[str], text: str) -> set[str]:
    """``owner[text]`` or ``getattr(owner, text)``: a member of what ``owner`` is, and the
    import function of that name whatever ``owner`` is (over-approximating)."""
    out = {f"{b}.{text}" for b in owner}
    if text in FUNC_BY_NAME:
        out.add(FUNC_BY_NAME[text])
    return out


def escaped_import_function(resolved: Iterable[str], direct: bool) -> str | None:
    """An import function used as a value (``map(importlib.import_module, names)``), or an
    attribute of one (``import_module.__call__``): what it imports is out of sight. A
    ``direct`` use (a call, an alias the walk follows) is not such a use."""
    for q in sorted(resolved):
        for func in ESCAPING_FUNCS:
            if (q == func and not direct) or q.startswith(func + "."):
                return func
    return None


def attribute_name_arguments(maker: str, count: int) -> int:
    """How many of the ``count`` leading arguments of an attribute getter or method caller
    name attributes: ``methodcaller``'s first (the rest are the call's arguments), every one
    of ``attrgetter``'s."""
    return min(count, 1) if maker.endswith("methodcaller") else count


def names_import_function(text: str) -> bool:
    """Whether a dotted attribute name (``attrgetter("__self__.__import__")``) reaches an
    import function by name."""
    return any(name in FUNC_BY_NAME for name in text.split("."))
