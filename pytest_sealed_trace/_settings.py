"""Each setting of the plugin as a command-line option and an ini key, the option first.

``--sealed-trace-lint-items module`` and ``sealed_trace_lint_items = module`` are the same
setting; a value given on the command line wins over the ini file's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = [
    "IDENTITY_LAYOUTS",
    "LINT_FORMATS",
    "choice",
    "flag",
    "path_setting",
    "setting",
    "setting_list",
]

#: The report formats of ``sealed-trace lint --format`` (named here so the plugin loads no
#: lint code to register its options).
LINT_FORMATS = ("text", "json", "sarif", "github")
#: The identity layouts of sealing-policy §10 (named here so the plugin loads no sealer).
IDENTITY_LAYOUTS = ("adr-0230", "adr-0233")


def setting(config: pytest.Config, name: str) -> str | None:
    """The value of ``--<name>`` when given, else of ini ``<name>`` (None when neither)."""
    option = config.getoption(name, default=None)
    if option is not None:
        return str(option)
    value = str(config.getini(name) or "").strip()
    return value or None


def setting_list(config: pytest.Config, name: str) -> list[str]:
    """A list setting: the option's values when given (repeatable), else the ini lines."""
    option = config.getoption(name, default=None)
    if option:
        return [str(v) for v in option]
    return [str(v) for v in config.getini(name)]


def path_setting(config: pytest.Config, name: str) -> Path | None:
    """A file setting: as given on the command line (relative to the current directory),
    else the ini file's, relative to the rootdir."""
    option = config.getoption(name, default=None)
    if option is not None:
        return Path(str(option))
    value = str(config.getini(name) or "").strip()
    return config.rootpath / value if value else None


def flag(config: pytest.Config, name: str) -> bool:
    """A boolean setting: the option, or the ini key (true/false, yes/no, on/off, 1/0); an
    ini value that is none of these is a usage error naming the key."""
    if config.getoption(name, default=None):
        return True
    try:
        return bool(config.getini(name))
    except (ValueError, pytest.UsageError) as error:  # pytest 9 raises the latter
        raise pytest.UsageError(
            f"ini {name}: {error}; it takes true or false (yes/no, on/off and 1/0 work too)"
        ) from None


def choice(config: pytest.Config, name: str, choices: tuple[str, ...]) -> str | None:
    """A setting that must be one of ``choices``; an ini value that is not is a usage error
    naming the key and its values (the option's choices argparse checks itself)."""
    value = setting(config, name)
    if value is not None and value not in choices:
        raise pytest.UsageError(f"ini {name}: {value!r} is not one of {', '.join(choices)}")
    return value
